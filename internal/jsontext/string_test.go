package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestJSONString(t *testing.T) {
	for in, want := range map[string]string{
		"":             `""`,
		"MatMul":       `"MatMul"`,
		`a"b\c`:        `"a\"b\\c"`,
		"t\tn\nr\r":    `"t\tn\nr\r"`,
		"\x00\x1f\x7f": `"\u0000\u001f` + "\x7f" + `"`,
		"µs é 专家":      `"µs é 专家"`,
		"bad\xffutf8":  `"bad\ufffdutf8"`,
		"\u2028\u2029": `"\u2028\u2029"`,
		"%q is not Go": `"%q is not Go"`,
	} {
		assert.Equalf(t, want, string(AppendString(nil, in)), "AppendString(%q)", in)
	}
}

// Any string, valid UTF-8 or not, becomes a JSON string that decodes to
// the string with each invalid byte replaced by U+FFFD.
func TestJSONStringRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		if rapid.Bool().Draw(t, "text") {
			s = rapid.String().Draw(t, "s")
		}
		out := AppendString(nil, s)
		require.Truef(t, json.Valid(out), "invalid JSON %s for %q", out, s)
		var back string
		require.NoError(t, json.Unmarshal(out, &back))
		var want strings.Builder
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			want.WriteRune(r)
			i += size
		}
		require.Equalf(t, want.String(), back, "%q came back as", s)
	})
}
