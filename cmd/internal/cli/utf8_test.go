package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
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
		if code != 0 {
			t.Fatalf("%s: code = %v, want 0", stderr, code)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("Mo\xff")) {
			t.Errorf("%s carries the raw bytes: bytes.Contains(data, []byte(\"Mo\\xff\")) = true, want false", c.out)
		}
		w := want
		if c.out == "t.json" {
			w = `Mo\ufffdE\ufffd\ufffd` // as encoding/json writes it
		}
		if !bytes.Contains(data, []byte(w)) {
			t.Errorf("%s lacks %q: bytes.Contains(data, []byte(w)) = false, want true", c.out, w)
		}
		if c.out == "r.html" {
			if !utf8.Valid(data) {
				t.Errorf("report.html is not valid UTF-8: utf8.Valid(data) = false, want true")
			}
		}
	}
}
