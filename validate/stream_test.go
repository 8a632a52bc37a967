package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// caseResults are the results of every testdata case: errors, warnings,
// truncated codes, layouts found and not.
func caseResults(t *testing.T) []*validate.Result {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err, "no cases")
	require.NotEmpty(t, files, "no cases")
	var rs []*validate.Result
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		require.NoError(t, err)
		for _, f := range ar.Files {
			if f.Name != "capture" {
				continue
			}
			tc, err := parseCaptureText(string(f.Data))
			require.NoErrorf(t, err, "%s", file)
			r, err := validate.CheckBytes(filepath.Base(file), tc.bytes, tc.opts)
			require.NoErrorf(t, err, "%s", file)
			rs = append(rs, r)
		}
	}
	return rs
}

// TestDocumentWriter: the document a DocumentWriter writes is the
// Document encoding/json writes, byte for byte, whether its entries stay
// in memory or wait in a scratch file, with no capture, one, or every
// case and a capture that could not be read among them.
func TestDocumentWriter(t *testing.T) {
	all := caseResults(t)
	ioErr := errors.New("open gone.bin: no such file or directory")
	for _, strict := range []bool{false, true} {
		for _, n := range []int{0, 1, 3, len(all)} {
			for _, spill := range []int{1 << 20, 1, 0} {
				t.Run(fmt.Sprintf("strict=%v/n=%d/spill=%d", strict, n, spill), func(t *testing.T) {
					defer validate.SetSpillBytes(spill)()
					doc := validate.NewDocument(strict, 100)
					w := validate.NewDocumentWriter(strict, 100)
					w.TempDir = t.TempDir()
					defer w.Close()
					for i, r := range all[:n] {
						if i == 1 {
							doc.AddIOError("gone.bin", ioErr)
							w.AddIOError("gone.bin", ioErr)
						}
						doc.Add(r)
						w.Add(r)
					}
					var want, got bytes.Buffer
					enc := json.NewEncoder(&want)
					enc.SetIndent("", "  ")
					require.NoError(t, enc.Encode(doc))
					_, err := w.WriteTo(&got)
					require.NoError(t, err)
					assert.Equal(t, []byte(want.Bytes()), []byte(got.Bytes()))
				})
			}
		}
	}
}
