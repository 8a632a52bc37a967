package input

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BOMs are every byte-order mark (UTF-16 and UTF-32, both orders, and
// UTF-8's) and gzip's magic: the low bytes of an entry cycle may be any
// of them.
var BOMs = map[string]string{
	"UTF-16LE": "\xff\xfe", "UTF-16BE": "\xfe\xff",
	"UTF-32LE": "\xff\xfe\x00\x00", "UTF-32BE": "\x00\x00\xfe\xff",
	"UTF-8": "\xef\xbb\xbf", "gzip": "\x1f\x8b\x08",
}

// TestLoadReadsCaptureWhoseEntryCycleLooksLikeABOM: a capture whose AIC/0
// entry cycle begins with a byte-order mark or gzip's magic (one capture
// in 32,768 ends its entry cycle in 0xfeff) is read as the capture it is,
// raw, gzip-compressed and as .npy, with its records and entry cycle.
func TestLoadReadsCaptureWhoseEntryCycleLooksLikeABOM(t *testing.T) {
	dir := t.TempDir()
	for name, bom := range BOMs {
		var pre [8]byte
		copy(pre[:], bom)
		entry := binary.LittleEndian.Uint64(pre[:])
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, entry).Span(abi.CoreTypeAIC, 0, entry+100, entry+200, abi.TaskTypeBase, 1)
		raw := b.Bytes()
		require.Equal(t, []byte(bom), raw[:min(len(bom), len(raw))], "%s: the capture's start", name)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		for kind, data := range map[string][]byte{"raw": raw, "gzip": gz.Bytes(), "npy": capturetest.NPY(raw)} {
			path := filepath.Join(dir, name+"."+kind)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			l, err := Load(Options{Paths: []string{path}, SoC: "ascend910b"})
			if !assert.NoErrorf(t, err, "%s %s", name, kind) {
				l.Close()
				continue
			}
			d := l.Sources[0].Decoded
			assert.Equal(t, uint64(1), d.Summary.Records, "%s %s: records", name, kind)
			assert.Equal(t, entry, d.Summary.Anchor, "%s %s: anchor", name, kind)
			l.Close()
		}
	}
}
