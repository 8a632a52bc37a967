package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// perByte is the rule stated plainly: ranging over a string yields
// U+FFFD, one byte wide, for each byte that is not valid UTF-8.
func perByte(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// Whatever the cuts between Writes, the page comes out as perByte says.
func TestUTF8Writer(t *testing.T) {
	for _, in := range []string{
		"plain", "K\xffX", "é€😀", "\xe2\x82", "a\xe2\x82\xacb\xf0\x9f\x98", "\xc3\x28", "\xed\xa0\x80", "\xf4\x90\x80\x80", "😀\xff😀",
	} {
		want := perByte(in)
		for cut := 0; cut <= len(in); cut++ {
			for cut2 := cut; cut2 <= len(in); cut2++ {
				var out bytes.Buffer
				u := &utf8Writer{w: &out}
				for _, part := range []string{in[:cut], in[cut:cut2], in[cut2:]} {
					n, err := u.Write([]byte(part))
					if err != nil {
						t.Error(err)
					}
					if want := len(part); n != want {
						t.Errorf("n = %v, want %v", n, want)
					}
				}
				if err := u.Close(); err != nil {
					t.Error(err)
				}
				if got := out.String(); got != want {
					t.Errorf("%q cut at %d, %d: out.String() = %q, want %q", in, cut, cut2, got, want)
				}
				if !utf8.Valid(out.Bytes()) {
					t.Errorf("utf8.Valid(out.Bytes()) = false, want true")
				}
			}
		}
	}
}
