package jsonread

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzReader holds the reader to encoding/json, through a buffer of any
// size: it accepts exactly the UTF-8 texts encoding/json accepts, copies
// the value byte for byte, decodes a string as encoding/json does, and
// places an error inside the text.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"\u0061":[1],"b":{"a":3},"a":null}`, `"MegaKernel\u0049nternal"`, `{"tasks":{"0":"\ud83d\ude00"}}`, "[\"a\x7f\"]", `{"a":[1,-0.5e+3,true,null,{}]}`, `[1 2]`, `"\ud800x"`, "{\"a\":\"\x00\"}", `[01]`, `{"a" 1}`, "\"\xe2\x82\"", `[NaN]`, "{} \x00"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) >= DefaultMaxDepth {
			return // encoding/json nests deeper
		}
		want := json.Valid(data) && utf8.Valid(data)
		r := NewSize("f", bytes.NewReader(data), 8+int(size))
		r.CheckUTF8 = true
		var s Sink
		err := r.Value(&s)
		if err == nil {
			err = r.End("value")
		}
		require.Equalf(t, want, (err == nil), "encoding/json valid, reader error %v", err)
		if err != nil {
			var e *Error
			require.ErrorAsf(t, err, &e, "error %v is not placed inside the %d-byte text", err, len(data))
			require.GreaterOrEqualf(t, e.Offset, int64(0), "error %v is not placed inside the %d-byte text", err, len(data))
			require.LessOrEqualf(t, e.Offset, int64(len(data)), "error %v is not placed inside the %d-byte text", err, len(data))
			require.GreaterOrEqualf(t, e.Line, 1, "error %v is not placed inside the %d-byte text", err, len(data))
			return
		}
		require.Equal(t, []byte(bytes.TrimSpace(data)), []byte(s.B), "copied")
		// An object's members: each key's value (the last, of a key
		// written twice) as encoding/json's map holds it.
		var obj map[string]json.RawMessage
		if tr := bytes.TrimSpace(data); len(tr) > 0 && tr[0] == '{' && json.Unmarshal(data, &obj) == nil {
			fs, ok := Fields(s.B, nil)
			require.Truef(t, ok, "Fields refused the object %q", s.B)
			for k, v := range obj {
				require.Equalf(t, []byte(v), []byte(Lookup(fs, k)), "Lookup(%q)", k)
			}
		}
		// A string (encoding/json also "reads" null into a string, leaving
		// it as it was: not a string).
		var str string
		if tr := bytes.TrimSpace(data); len(tr) > 0 && tr[0] == '"' && json.Unmarshal(data, &str) == nil {
			r := NewSize("f", bytes.NewReader(data), 8+int(size))
			got, err := r.Str()
			require.NoErrorf(t, err, "Str = %q", got)
			require.Equalf(t, str, string(got), "Str = %q", got)
			u, ok := Unquote(bytes.TrimSpace(data))
			require.Truef(t, ok, "Unquote, %v; encoding/json", ok)
			require.Equalf(t, str, u, "Unquote, %v; encoding/json", ok)
			// Cut at any cap: the string cut at a character's start.
			limit := int(size%16) + 1
			want := str
			for len(want) > limit {
				_, n := utf8.DecodeLastRuneInString(want)
				want = want[:len(want)-n]
			}
			c, _, ok := StringCapped(bytes.TrimSpace(data), limit)
			require.True(t, ok, "StringCapped(%d) ok", limit)
			require.Equal(t, want, c, "StringCapped(%d)", limit)
			require.Truef(t, IsString(bytes.TrimSpace(data), str), "IsString(%q) false", str)
		}
	})
}
