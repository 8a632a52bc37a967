package jsonread

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPropValueCopiesValues: any JSON value, read through buffers of any
// size, comes out byte for byte.
func TestPropValueCopiesValues(t *testing.T) {
	var gen func(depth int) *rapid.Generator[any]
	gen = func(depth int) *rapid.Generator[any] {
		leaves := []*rapid.Generator[any]{
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Map(rapid.Float64(), func(f float64) any { return f }),
			rapid.Map(rapid.Int64(), func(i int64) any { return i }),
			rapid.Just[any](nil), rapid.Just[any](true),
		}
		if depth == 0 {
			return rapid.OneOf(leaves...)
		}
		return rapid.OneOf(append(leaves,
			rapid.Map(rapid.SliceOfN(gen(depth-1), 0, 4), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(rapid.String(), gen(depth-1), 0, 4), func(v map[string]any) any { return v }),
		)...)
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := gen(3).Draw(rt, "value")
		js, err := json.MarshalIndent(v, "", rapid.SampledFrom([]string{"", " ", "\t", "  "}).Draw(rt, "indent"))
		if err != nil {
			rt.Skip(err)
		}
		r := NewSize("v.json", bytes.NewReader(js), rapid.IntRange(8, 64).Draw(rt, "buffer"))
		r.CheckUTF8 = rapid.Bool().Draw(rt, "checkUTF8")
		var s Sink
		require.NoErrorf(rt, r.Value(&s), "%s", js)
		require.Equal(rt, []byte(js), []byte(s.B), "copied")
	})
}

// TestRejects: malformed JSON is an error naming the line and the byte at
// fault, through a buffer of any size.
func TestRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"a" 1}`:             `x:1: byte 5: expected ':' after an object key, found '1'`,
		"[1,\n2,]":            `x:2: byte 6: expected a JSON value, found ']'`,
		`"abc`:                `x:1: byte 0: a string has no closing quote`,
		`["a\`:                `x:1: byte 1: a string has no closing quote`,
		`"a\qb"`:              `x:1: byte 2: invalid escape \q`,
		`"a\u12x4"`:           `x:1: byte 2: \u must be followed by 4 hex digits`,
		"\"a\tb\"":            `x:1: byte 2: control character 0x09 in a string; write it as an escape`,
		"[\"ab\x00\"]":        `x:1: byte 4: control character 0x00 in a string; write it as an escape`,
		"[1,\x00]":            `x:1: byte 3: expected a JSON value, found byte 0x00`,
		`[01]`:                `x:1: byte 1: "01" is not a JSON value`,
		`[NaN]`:               `x:1: byte 1: "NaN" is not a JSON value`,
		`{"a":1]`:             `x:1: byte 6: expected ',' or '}' in an object, found ']'`,
		`[1 2]`:               `x:1: byte 3: expected ',' or ']' in an array, found '2'`,
		`@`:                   `x:1: byte 0: expected a JSON value, found '@'`,
		``:                    `x:1: byte 0: expected a JSON value, found the end of the input`,
		`{"a":[1,{"b":`:       `x:1: byte 13: expected a JSON value, found the end of the input`,
		"{\"a\":\n \"\xff\"}": `x:2: byte 8: byte 0xff is not valid UTF-8`,
		"[\"\xe2\x82\"]":      `x:1: byte 2: byte 0xe2 is not valid UTF-8`,
	} {
		for _, size := range []int{8, 4096} {
			r := NewSize("x", strings.NewReader(in), size)
			r.CheckUTF8 = true
			err := r.Value(&Sink{})
			assert.EqualErrorf(t, err, want, "%q (buffer %d): error %v, want %s", in, size, err, want)
		}
	}
	deep := strings.Repeat("[", DefaultMaxDepth+1)
	err := NewBytes("x", []byte(deep)).Value(&Sink{})
	assert.EqualErrorf(t, err, "x:1: byte 512: arrays and objects nested more than 512 deep", "nesting: %v", err)
}

// TestAccepts: what JSON allows and go-yaml refused is read, and a string
// decodes as encoding/json decodes it (a surrogate pair as its character,
// a lone surrogate as U+FFFD, a raw DEL as itself); NaN only when asked.
func TestAccepts(t *testing.T) {
	for in, want := range map[string]string{
		`"\ud83d\ude00"`:   "😀",
		"\"a\x7fb\"":       "a\x7fb",
		`"x\ud800y"`:       "x\uFFFDy",
		`"\ude00\ud83d"`:   "\uFFFD\uFFFD",
		`"\u00e9\n\t\/\""`: "é\n\t/\"",
		`"plain"`:          "plain",
	} {
		var encoding string
		require.NoErrorf(t, json.Unmarshal([]byte(in), &encoding), "%s: the test's", in)
		require.Equalf(t, want, encoding, "%s: the test's", in)
		for _, size := range []int{8, 4096} {
			r := NewSize("x", strings.NewReader(in), size)
			r.CheckUTF8 = true
			got, err := r.Str()
			require.NoErrorf(t, err, "%s (buffer %d): %q", in, size, got)
			assert.Equalf(t, want, string(got), "%s (buffer %d): %q", in, size, got)
			s, ok := Unquote([]byte(in))
			assert.Truef(t, ok, "Unquote(%s), %v", in, ok)
			assert.Equalf(t, want, s, "Unquote(%s), %v", in, ok)
		}
	}
	r := NewBytes("x", []byte("[NaN,-Infinity]"))
	r.NonFinite = true
	assert.NoError(t, r.Value(&Sink{}), "NaN with NonFinite")
}

// TestTrailing: End refuses anything after the value, a NUL byte too
// (which Peek returns as 0, like the end).
func TestTrailing(t *testing.T) {
	for in, want := range map[string]string{
		"{} x":     `x:1: byte 3: data after the document: 'x'`,
		"{}\n\x00": `x:2: byte 3: data after the document: byte 0x00`,
		"{} \n ":   ``,
	} {
		r := NewBytes("x", []byte(in))
		err := r.Value(&Sink{})
		if err == nil {
			err = r.End("document")
		}
		if want == "" {
			assert.NoError(t, err, "%q", in)
		} else {
			assert.EqualError(t, err, want, "%q", in)
		}
	}
}

// TestKeysAcrossRefills: Object hands each key, decoded, and Key its text
// as written, intact whatever the buffer's size (a refill moves the
// buffer between a key and its colon).
func TestKeysAcrossRefills(t *testing.T) {
	in := `{"alpha"   :1, "b\u00e9ta"` + "\n\n" + `:[2], "gamma_gamma_gamma":{"x":"y"}, "d":"\ud83d\ude00"}`
	wantKeys := []string{"alpha", "béta", "gamma_gamma_gamma", "d"}
	wantRaw := []string{`"alpha"`, `"b\u00e9ta"`, `"gamma_gamma_gamma"`, `"d"`}
	for size := 8; size <= 64; size++ {
		r := NewSize("x", strings.NewReader(in), size)
		var keys []string
		err := r.Object("x", func(key []byte, at Pos) error {
			keys = append(keys, string(key))
			return r.Skip()
		})
		require.NoErrorf(t, err, "buffer %d: keys %q; want %q", size, keys, wantKeys)
		assert.Equalf(t, strings.Join(wantKeys, ","), strings.Join(keys, ","), "buffer %d: keys %q; want %q", size, keys, wantKeys)
		r = NewSize("x", strings.NewReader(in), size)
		r.Peek()
		r.Advance()
		for i := range wantKeys {
			if i > 0 {
				require.NoError(t, r.Expect(',', "','"))
			}
			key, raw, err := r.Key()
			assert.NoError(t, err, "buffer %d: Key %d", size, i)
			assert.Equal(t, wantKeys[i], string(key), "buffer %d: Key %d", size, i)
			assert.Equal(t, wantRaw[i], string(raw), "buffer %d: Key %d's value", size, i)
			require.NoError(t, r.Skip())
		}
	}
}

// TestColumns: Col counts the characters before the next byte on its
// line, through buffers of any size, on lines longer than the buffer too.
func TestColumns(t *testing.T) {
	in := `{"é": "ü😀ü", "b": [1,` + "\n" + `  "x"], "long": "` + strings.Repeat("é", 50) + `", ` + "\t" + `"z":` + "\n\n" + `{"ö": null}}`
	want := func(off int64) int { // an independent count
		line := in[:off]
		if i := strings.LastIndexByte(line, '\n'); i >= 0 {
			line = line[i+1:]
		}
		return len([]rune(line)) + 1
	}
	for size := 8; size <= 80; size++ {
		r := NewSize("x", strings.NewReader(in), size)
		r.Columns = true
		checked := 0
		err := r.Object("x", func(key []byte, at Pos) error {
			assert.Equalf(t, want(r.Offset()), r.Col(), "buffer %d, value of %q at byte %d: column", size, key, r.Offset())
			checked++
			return r.Skip()
		})
		require.NoErrorf(t, err, "buffer %d", size)
		require.Equalf(t, 4, checked, "buffer %d", size)
		assert.Equalf(t, want(r.Offset()), r.Col(), "buffer %d, at the end: column", size)
	}
}
