package jsonread

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValueCapNeverHeldPast: a value past MaxValue is refused at the
// cap, naming where it starts, and the sink never holds a byte past the
// cap (it held the cap plus one buffer before the check ran after the
// append), through buffers of any size, in a string, an array and an
// object.
func TestValueCapNeverHeldPast(t *testing.T) {
	const limit = 100
	for _, in := range []string{
		"\n  \"" + strings.Repeat("x", 1000) + `"`,
		"\n  [" + strings.Repeat("1,", 500) + "1]",
		"\n  {\"k\":\"" + strings.Repeat("é", 500) + `"}`,
	} {
		for size := 8; size <= 300; size += 23 {
			r := NewSize("x", strings.NewReader(in), size)
			r.MaxValue = limit
			var s Sink
			err := r.Value(&s)
			require.ErrorIsf(t, err, ErrTooLong, "%.10q (buffer %d): %v, want ErrTooLong", in, size, err)
			assert.Equalf(t, "x:2: byte 3: a value longer than 100 bytes (the cap on one value read whole: a trace event, a key, a string)", err.Error(), "%.10q (buffer %d): %v", in, size, err)
			assert.LessOrEqualf(t, len(s.B), limit, "%.10q (buffer %d): the sink holds", in, size)
		}
	}
	// A value of exactly the cap is read.
	in := `"` + strings.Repeat("x", limit-2) + `"`
	r := NewSize("x", strings.NewReader(in), 8)
	r.MaxValue = limit
	got, err := r.Str()
	require.NoError(t, err, "a value of the cap")
	require.Len(t, got, limit-2, "a value of the cap")
}

// endless is a reader of a JSON string that never ends: the test's input
// of any size without holding it.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	if !e.started {
		e.started = true
		p[0] = '"'
		return 1, nil
	}
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestDefaultCapBoundsMemory: a 100 MB string (here: one that never ends)
// is refused after the reader allocated about the cap, not several times
// it: the peak memory of a hostile value is the cap's.
func TestDefaultCapBoundsMemory(t *testing.T) {
	r := NewSize("x", io.LimitReader(&endless{}, 100<<20), 256<<10)
	got := allocated(func() {
		require.ErrorIs(t, r.Value(&Sink{}), ErrTooLong)
	})
	// Appending to the cap allocates about twice it in all (the slice
	// doubles); the old reader held 64 MiB and allocated about 150.
	assert.LessOrEqualf(t, got, uint64(5*MaxValueBytes/2), "refusing a 100 MB value allocated bytes, more than 2.5 times the cap of %d", MaxValueBytes)
	assert.LessOrEqual(t, MaxValueBytes, 16<<20, "MaxValueBytes")
}

// TestOpenSkipsBOM: a file that starts with a UTF-8 byte order mark, then
// any amount of whitespace, reads as the JSON after them, plain or
// gzip-compressed (the mark was "expected a JSON value, found byte 0xef").
func TestOpenSkipsBOM(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bom.json":    "\xef\xbb\xbf{\"a\":1}",
		"bomws.json":  "\xef\xbb\xbf" + strings.Repeat(" ", 600) + "\n\t{\"a\":1}",
		"spaces.json": strings.Repeat(" ", 600) + "{\"a\":1}",
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		r, err := Open(p)
		require.NoError(t, err)
		var s Sink
		err = r.Value(&s)
		if err == nil {
			err = r.End("value")
		}
		r.Close()
		require.NoErrorf(t, err, "%s: %q", name, s.B)
		assert.Equalf(t, `{"a":1}`, string(s.B), "%s: %q", name, s.B)
	}
	// A mark anywhere else is not skipped.
	p := filepath.Join(dir, "late.json")
	os.WriteFile(p, []byte(" \xef\xbb\xbf{}"), 0o644)
	r, _ := Open(p)
	defer r.Close()
	err := r.Value(&Sink{})
	assert.ErrorContainsf(t, err, "byte 0xef", "a mark after a space: %v", err)
}

// allocated is the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStringCapped: a string is cut at max bytes, at a character's start,
// as the decoded string cut by hand would be (escapes of every length at
// the cut), and one within the cap is whole.
func TestStringCapped(t *testing.T) {
	for _, body := range []string{
		strings.Repeat("a", 50),
		strings.Repeat(`\u00e9`, 30),
		strings.Repeat(`\ud83d\ude00`, 20),
		strings.Repeat("é", 30) + `\n`,
		"ab" + strings.Repeat(`\"`, 40),
		strings.Repeat("x", 8),
	} {
		want, ok := Unquote([]byte(`"` + body + `"`))
		require.Truef(t, ok, "%s: not a string", body)
		for max := 1; max <= 20; max++ {
			got, full, ok := StringCapped([]byte(`"`+body+`"`), max)
			w := want
			for len(w) > max {
				_, size := utf8.DecodeLastRuneInString(w)
				w = w[:len(w)-size]
			}
			wantFull := 0
			if w != want {
				wantFull = len(body)
			}
			assert.Truef(t, ok, "%.20s cut at %d, %v", body, max, ok)
			assert.Equalf(t, w, got, "%.20s cut at %d, %v", body, max, ok)
			assert.Equalf(t, wantFull, full, "%.20s cut at %d, %v", body, max, ok)
		}
	}
	_, _, ok := StringCapped([]byte("12"), 4)
	assert.False(t, ok, "a number is not a string")
}

// TestOneMeaningOfJSON: a key an object holds twice reads as its last
// value (Python's json module, encoding/json); a string compares with
// its escapes decoded.
func TestOneMeaningOfJSON(t *testing.T) {
	fs, ok := Fields([]byte(`{"a":1,"b":2,"a":3}`), nil)
	assert.True(t, ok, "Fields")
	assert.Equal(t, "3", string(Lookup(fs, "a")), "Lookup a")
	assert.Equal(t, "2", string(Lookup(fs, "b")), "Lookup b")
	assert.Nil(t, Lookup(fs, "c"), "Lookup c: want absent")
	for v, want := range map[string]bool{
		`"X"`: true, `"\u0058"`: true, `"\u0058 "`: false, `"x"`: false, `X`: false, `""`: false,
		`"MegaKernel\u0049nternal"`: true, `"MegaKernelInternal"`: true, `"MegaKernel\u0049ntern"`: false,
	} {
		s := "X"
		if strings.Contains(v, "Mega") {
			s = "MegaKernelInternal"
		}
		assert.Equalf(t, want, IsString([]byte(v), s), "IsString(%s, %q)", v, s)
	}
}

// TestExactKeys: members whose key matches a field only without regard
// to case are dropped, at any depth of struct fields, slices and maps, and
// so are the earlier members of a repeated key, so that encoding/json
// reads what Python's json module reads; the rest is kept as written.
func TestExactKeys(t *testing.T) {
	type inner struct {
		Count *int `json:"recordCount"`
	}
	type outer struct {
		Rank   *int             `json:"rank"`
		Ranks  []inner          `json:"ranks"`
		Sub    inner            `json:"sub"`
		Caps   map[string]int   `json:"caps"`
		ByName map[string]inner `json:"byName"`
	}
	for in, want := range map[string]string{
		`{"rank":1}`:                        `{"rank":1}`,
		`{"RANK":9,"rank":1}`:               `{"rank":1}`,
		`{"rank":1, "Rank":9}`:              `{"rank":1}`,
		`{"Rank":9}`:                        `{}`,
		`{"other":"x","Rank":9,"rank" : 2}`: `{"other":"x","rank" : 2}`,
		`{"ranks":[{"RecordCount":5},{"recordCount":3}]}`: `{"ranks":[{},{"recordCount":3}]}`,
		`{"sub":{"recordcount":1,"recordCount":2}}`:       `{"sub":{"recordCount":2}}`,
		`{"r\"ank":1,"RANKS":[]}`:                         `{"r\"ank":1}`,
		// A repeated key: the last replaces the earlier (Python's dict),
		// where encoding/json merges a repeated object into the first.
		`{"rank":1,"rank":2}`:                                `{"rank":2}`,
		`{"sub":{"recordCount":1},"sub":{}}`:                 `{"sub":{}}`,
		`{"caps":{"AIC":64,"AIV":64},"caps":{"AIV":4096}}`:   `{"caps":{"AIV":4096}}`,
		`{"caps":{"AIV":1,"AIV":2,"AIC":3}}`:                 `{"caps":{"AIV":2,"AIC":3}}`,
		`{"byName":{"a":{"RecordCount":1,"recordCount":2}}}`: `{"byName":{"a":{"recordCount":2}}}`,
	} {
		got := string(ExactKeys([]byte(in), reflect.TypeFor[outer]()))
		assert.Equalf(t, want, got, "ExactKeys(%s)", in)
		var a outer
		assert.NoErrorf(t, json.Unmarshal([]byte(got), &a), "%s: not JSON", got)
	}
}
