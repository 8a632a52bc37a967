// Command cycleabi-export writes captures' records as Apache Parquet: it is
// `cycleabi export`, a program of its own so that the Parquet writer and
// what it links (protobuf's reflection, brotli, net/http, crypto/tls) are in
// no other command. cycleabi runs it for `cycleabi export ARGS...`; run
// directly, `cycleabi-export ARGS...` does the same.
package main

import (
	"os"

	"github.com/megakernel/cycleabi/cmd/internal/cli"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/internal/outfile"
)

func main() {
	outfile.HandleSignals()
	cli.NewExporter = func(dir string) (cli.Exporter, error) {
		w, err := export.Create(dir)
		if err != nil {
			return nil, err // not a nil *export.Writer in a non-nil Exporter
		}
		return w, nil
	}
	os.Exit(cli.ExportMain(os.Args[1:]))
}
