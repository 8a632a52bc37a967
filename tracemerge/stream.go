package tracemerge

import (
	"fmt"
	"io"
)

// Stream reads a JSON object too large to hold in memory (a MegaKernel
// trace of gigabytes, plain or gzip-compressed) one member at a time, with
// the reader merge itself uses: other packages that read traces (package
// jsontrace) share it rather than keep a second tokenizer. Values are
// checked against the JSON grammar as they are read; one array element
// (a trace event) or one value read whole is bounded (64 MiB), so memory
// stays bounded whatever the file holds.
type Stream struct{ r *reader }

// Pos is where a value starts: 1-based line, 0-based byte offset in the
// decompressed text.
type Pos struct {
	Line   int
	Offset int64
}

// OpenStream opens the file at path, decompressing it when it starts with
// gzip's magic bytes (whatever its name).
func OpenStream(path string) (*Stream, error) {
	r, err := openReader(path)
	if err != nil {
		return nil, err
	}
	return &Stream{r: r}, nil
}

// Close releases the file and the gzip reader.
func (s *Stream) Close() { s.r.close() }

// Object reads the top-level object, calling member with each key (and
// where its value starts); member must consume the value with Array,
// Value or Skip. Anything after the object but whitespace is an error.
// what names the object in the error when the text is not one.
func (s *Stream) Object(what string, member func(key string, at Pos) error) error {
	r := s.r
	if r.peek() != '{' {
		if err := r.ioErr(); err != nil {
			return err
		}
		return r.errorf("%s is a JSON object, found %s", what, describe(r.cur()))
	}
	r.i++
	for first := true; ; first = false {
		if r.peek() == '}' {
			r.i++
			break
		}
		if !first {
			if err := r.expect(',', "',' or '}'"); err != nil {
				return err
			}
		}
		key, _, err := r.key()
		if err != nil {
			return err
		}
		r.peek()
		if err := member(key, Pos{r.line, r.pos()}); err != nil {
			return err
		}
	}
	if r.peek() != 0 {
		return r.errorf("data after the %s", what)
	}
	return r.ioErr()
}

// Array reads an array, calling fn with each element's raw bytes (valid
// until the next call) and where it starts.
func (s *Stream) Array(fn func(raw []byte, at Pos) error) error {
	return s.r.array(false, func(raw []byte, at eventAt) error { return fn(raw, Pos{at.line, at.off}) })
}

// Value reads the next value whole and returns its raw bytes (valid until
// the next read).
func (s *Stream) Value() ([]byte, error) {
	var k sink
	if err := s.r.value(&k); err != nil {
		return nil, err
	}
	return k.b, nil
}

// Skip reads past the next value, of any size.
func (s *Stream) Skip() error { return s.r.value(&sink{w: io.Discard}) }

// Errorf returns an *InputError about the value at at.
func (s *Stream) Errorf(at Pos, format string, args ...any) error {
	return &InputError{File: s.r.name, Line: at.Line, Offset: at.Offset, Msg: fmt.Sprintf(format, args...)}
}

// Field is one member of a JSON object read by Fields: the key unescaped
// and the value's raw bytes.
type Field struct {
	Key   []byte // unescaped (usually a slice of the object)
	Value []byte
	// start and end are where Value lies in the object.
	start, end int
}

// Fields lists the members of an object a Stream read (so checked
// already) into dst, reusing its storage. It reports false when raw is not
// an object. The slices alias raw.
func Fields(raw []byte, dst []Field) ([]Field, bool) {
	// One trace event's fields without an allocation once dst has grown.
	dst = dst[:0]
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return dst, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return dst, true
	}
	for i < len(raw) {
		ks := i
		i = skipString(raw, i)
		key, ok := keyBytes(raw[ks:i])
		if !ok {
			return dst, false
		}
		i = skipWS(raw, i)
		i = skipWS(raw, i+1) // the colon
		vs := i
		i = skipValue(raw, i)
		dst = append(dst, Field{Key: key, Value: raw[vs:i], start: vs, end: i})
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return dst, true
		}
		i = skipWS(raw, i+1) // the comma
	}
	return dst, true
}

// Lookup returns the value of key among fs, nil when absent.
func Lookup(fs []Field, key string) []byte {
	for i := range fs {
		if string(fs[i].Key) == key {
			return fs[i].Value
		}
	}
	return nil
}

// String returns the string a raw JSON value holds, or false when it is
// not a string.
func String(v []byte) (string, bool) { return str(v) }
