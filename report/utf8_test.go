package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
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
					assert.NoError(t, err)
					assert.Equal(t, len(part), n, "n")
				}
				assert.NoError(t, u.Close())
				assert.Equalf(t, want, out.String(), "%q cut at %d, %d: out.String()", in, cut, cut2)
				assert.True(t, utf8.Valid(out.Bytes()), "utf8.Valid(out.Bytes()) = false, want true")
			}
		}
	}
}
