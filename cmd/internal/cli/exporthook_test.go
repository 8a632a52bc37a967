package cli

import "github.com/megakernel/cycleabi/export"

// The in-process tests run the export command as cycleabi-export does,
// with package export's writer: a test's imports are not the cycleabi
// binary's (tests/imports holds the binary to that).
func init() {
	NewExporter = func(dir string) (Exporter, error) {
		w, err := export.Create(dir)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}
