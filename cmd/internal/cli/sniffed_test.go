package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command tells its inputs apart with the one sniffer: a trace
// after 600 spaces is a trace (it had been "blank text": 512 bytes were
// read), a trace after a byte-order mark is not read as a capture (it had
// been, "bad-capacity AIC/0"), and UTF-16 text is named for what it is.
func TestInputsSniffed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "mk.json")
	if _, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", trace); code != exitOK {
		t.Fatalf("%s: code = %v", stderr, code)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want, _, code := runMain(t, "analyze", trace)
	if code != exitOK {
		t.Fatalf("analyze mk.json: code = %v", code)
	}
	spaced := write("spaced.json", append([]byte(strings.Repeat(" ", 600)), data...))
	got, stderr, code := runMain(t, "analyze", spaced)
	if got = strings.ReplaceAll(got, spaced, trace); code != exitOK || got != want {
		t.Errorf("analyze of the trace after 600 spaces: code = %v, %s\ngot %q\nwant %q", code, stderr, got, want)
	}

	bom := write("bom.json", append([]byte("\xef\xbb\xbf"), data...))
	all, _, _ := runOut(t, "validate", bom)
	if strings.Contains(all, "bad-capacity") || strings.Contains(all, "not-a-capture") {
		t.Errorf("validate of the trace after a byte-order mark read it as a capture: %s", all)
	}

	utf16 := []byte("\xff\xfe")
	for _, c := range []byte(`{"traceEvents": []}`) {
		utf16 = append(utf16, c, 0)
	}
	u := write("utf16.json", utf16)
	out, _, code := runMain(t, "validate", u)
	if want := "not a capture: the file is UTF-16 text (save it as UTF-8)"; code != exitInvalid || !strings.Contains(out, want) {
		t.Errorf("validate of UTF-16 text: code = %v, out = %q; want %v and it to contain %q", code, out, exitInvalid, want)
	}
}
