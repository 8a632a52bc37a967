package cli

import (
	"bytes"
	"testing"
)

// TestStderrPrefixesLines: Stderr's writer puts the prefix before every
// line however the writes split them, and nowhere else.
func TestStderrPrefixesLines(t *testing.T) {
	var buf bytes.Buffer
	w := &prefixWriter{w: &buf, prefix: []byte("p: ")}
	for _, s := range []string{"a\nb", "c\n", "", "\n\nd\ne\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got, want := buf.String(), "p: a\np: bc\np: \np: \np: d\np: e\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
