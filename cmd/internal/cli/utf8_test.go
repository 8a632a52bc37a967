package cli

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --kernel-name that is not valid UTF-8 comes out with U+FFFD for each
// bad byte in every output, as the JSON trace has always written it
// (report.html used to carry the bytes raw).
func TestKernelNameInvalidUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const name, want = "Mo\xffE\xe2\x82", "Mo\uFFFDE\uFFFD\uFFFD"
	for _, c := range []struct {
		out  string
		args []string
	}{
		{"r.html", []string{"report"}},
		{"t.json", []string{"decode"}},
		{"t.pftrace", []string{"decode", "--format", "perfetto"}},
	} {
		out := filepath.Join(dir, c.out)
		args := append(c.args, "../../../examples/moe_layer.bin", "--kernel-name", name, "-o", out)
		_, stderr, code := runMain(t, args...)
		require.Equalf(t, 0, code, "%s: code", stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.NotContainsf(t, string(data), string([]byte("Mo\xff")), "%s carries the raw bytes: bytes.Contains(data, []byte(\"Mo\\xff\")) = true, want false", c.out)
		w := want
		if c.out == "t.json" {
			w = `Mo\ufffdE\ufffd\ufffd` // as encoding/json writes it
		}
		assert.Containsf(t, string(data), string([]byte(w)), "%s lacks %q: bytes.Contains(data, []byte(w)) = false, want true", c.out, w)
		if c.out == "r.html" {
			assert.True(t, utf8.Valid(data), "report.html is not valid UTF-8: utf8.Valid(data) = false, want true")
		}
	}
}
