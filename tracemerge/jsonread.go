package tracemerge

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/megakernel/cycleabi/internal/infile"
)

// InputError is a framework or MegaKernel trace that cannot be merged:
// malformed JSON, a value of the wrong kind, a non-finite time. Line and
// Offset (1-based line, 0-based byte offset in the decompressed text) say
// where, when known (Line 0: the error concerns the file as a whole).
type InputError struct {
	File   string
	Line   int
	Offset int64
	Msg    string
}

// Error returns "file:line: byte offset: message", or "file: message".
func (e *InputError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: byte %d: %s", e.File, e.Line, e.Offset, e.Msg)
}

// Limits that keep a hostile or broken trace from taking unbounded memory:
// one event, or one nesting, past these is an error.
const (
	maxEventBytes = 64 << 20
	maxDepth      = 512
)

// reader is a streaming JSON tokenizer over a (possibly gzip-compressed)
// file. It reads whole values as raw bytes, checked against the JSON
// grammar (plus the NaN/Infinity literals Python's json module writes, so
// that a non-finite time gets a clear error rather than a syntax error),
// and copies them through unchanged.
type reader struct {
	name string
	src  io.Reader
	buf  []byte
	i, n int
	eof  bool
	err  error // a read error, reported once the buffer is drained
	off  int64 // offset of buf[0] in the stream
	line int
	// closers close the file and the gzip reader.
	closers []io.Closer
	// rec, when set, receives the bytes from buf[mark:] as they are
	// consumed (see value); recErr is its first error.
	rec    *sink
	mark   int
	recErr error
}

// openFile opens the file at path for reading; tests replace it to read
// from memory.
var openFile = func(path string) (io.ReadSeekCloser, error) {
	f, _, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// openReader opens path, decompressing it when it starts with gzip's magic
// bytes (whatever its name).
func openReader(path string) (*reader, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	r := &reader{name: path, buf: make([]byte, 256<<10), line: 1, closers: []io.Closer{f}}
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	r.src = f
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.src = gz
		r.closers = append(r.closers, gz)
	}
	return r, nil
}

func newBytesReader(name string, data []byte) *reader {
	return &reader{name: name, src: bytes.NewReader(data), buf: make([]byte, 4096), line: 1}
}

func (r *reader) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i].Close()
	}
	r.closers = nil
}

// fill reads more input; it reports false at the end of the input or on a
// read error (kept in r.err).
func (r *reader) fill() bool {
	if r.eof {
		return false
	}
	if r.rec != nil {
		r.record()
		r.mark = 0
	}
	if r.i > 0 {
		copy(r.buf, r.buf[r.i:r.n])
		r.off += int64(r.i)
		r.n -= r.i
		r.i = 0
	}
	for r.n < len(r.buf) {
		m, err := r.src.Read(r.buf[r.n:])
		r.n += m
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
			break
		}
		if m > 0 {
			break
		}
	}
	return r.i < r.n
}

// pos is the offset of the next byte.
func (r *reader) pos() int64 { return r.off + int64(r.i) }

func (r *reader) errorf(format string, args ...any) error {
	if r.err != nil {
		return r.ioErr()
	}
	return &InputError{File: r.name, Line: r.line, Offset: r.pos(), Msg: fmt.Sprintf(format, args...)}
}

// peek skips whitespace and returns the next byte, 0 at the end.
func (r *reader) peek() byte {
	for {
		for r.i < r.n {
			switch c := r.buf[r.i]; c {
			case '\n':
				r.line++
				r.i++
			case ' ', '\t', '\r':
				r.i++
			default:
				return c
			}
		}
		if !r.fill() {
			return 0
		}
	}
}

// expect consumes c after whitespace.
func (r *reader) expect(c byte, what string) error {
	if got := r.peek(); got != c {
		return r.errorf("expected %s, found %s", what, describe(got))
	}
	r.i++
	return nil
}

func describe(c byte) string {
	if c == 0 {
		return "the end of the input"
	}
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", c)
}

// sink receives the raw bytes of a value. With w set, bytes past flushAt
// are written out as they come (a top-level value of any size streams);
// without, a value longer than maxEventBytes is an error.
type sink struct {
	b []byte
	w io.Writer
}

const flushAt = 64 << 10

func (s *sink) write(p []byte) error {
	s.b = append(s.b, p...)
	if s.w != nil && len(s.b) >= flushAt {
		if _, err := s.w.Write(s.b); err != nil {
			return err
		}
		s.b = s.b[:0]
	}
	return nil
}

// record passes buf[mark:i] to the sink being recorded into; fill calls
// it before it moves the buffer.
func (r *reader) record() {
	if r.rec == nil || r.recErr != nil {
		return
	}
	if err := r.rec.write(r.buf[r.mark:r.i]); err != nil {
		r.recErr = err
	} else if r.rec.w == nil && len(r.rec.b) > maxEventBytes {
		r.recErr = &InputError{File: r.name, Line: r.line, Offset: r.pos(), Msg: fmt.Sprintf("a trace event longer than %d bytes", maxEventBytes)}
	}
	r.mark = r.i
}

// value reads one JSON value after whitespace into s (without the leading
// whitespace; whitespace inside the value is kept). The bytes are not
// copied token by token: the reader records the span it consumed and
// hands it to s when it refills its buffer and at the end.
func (r *reader) value(s *sink) error {
	if r.peek() == 0 {
		return r.errorf("expected a value, found %s", describe(0))
	}
	r.rec, r.mark, r.recErr = s, r.i, nil
	err := r.scanValue()
	if err == nil {
		r.record()
		err = r.recErr
	}
	r.rec = nil
	return err
}

// ws skips whitespace inside a value, counting lines.
func (r *reader) ws() {
	for {
		for r.i < r.n {
			switch r.buf[r.i] {
			case '\n':
				r.line++
			case ' ', '\t', '\r':
			default:
				return
			}
			r.i++
		}
		if !r.fill() {
			return
		}
	}
}

func (r *reader) scanValue() error {
	var stack []byte
	const (
		stValue = iota
		stKey
		stAfter
	)
	state := stValue
	for {
		if r.recErr != nil {
			return r.recErr
		}
		switch state {
		case stValue:
			r.ws()
			switch c := r.cur(); {
			case c == '{' || c == '[':
				if len(stack) >= maxDepth {
					return r.errorf("values nested deeper than %d", maxDepth)
				}
				stack = append(stack, c)
				r.i++
				r.ws()
				close := byte('}')
				if c == '[' {
					close = ']'
				}
				if r.cur() == close {
					r.i++
					stack = stack[:len(stack)-1]
					state = stAfter
				} else if c == '{' {
					state = stKey
				}
			case c == '"':
				if err := r.str(); err != nil {
					return err
				}
				state = stAfter
			case c != 0 && isLiteralByte(c):
				if err := r.literal(); err != nil {
					return err
				}
				state = stAfter
			default:
				return r.errorf("expected a value, found %s", describe(c))
			}
		case stKey:
			r.ws()
			if r.cur() != '"' {
				return r.errorf("expected an object key, found %s", describe(r.cur()))
			}
			if err := r.str(); err != nil {
				return err
			}
			r.ws()
			if r.cur() != ':' {
				return r.errorf("expected ':' after an object key, found %s", describe(r.cur()))
			}
			r.i++
			state = stValue
		case stAfter:
			if len(stack) == 0 {
				return nil
			}
			r.ws()
			top := stack[len(stack)-1]
			c := r.cur()
			switch {
			case c == ',':
				r.i++
				if top == '{' {
					state = stKey
				} else {
					state = stValue
				}
			case c == '}' && top == '{' || c == ']' && top == '[':
				r.i++
				stack = stack[:len(stack)-1]
			default:
				want := "',' or '}'"
				if top == '[' {
					want = "',' or ']'"
				}
				return r.errorf("expected %s, found %s", want, describe(c))
			}
		}
	}
}

// cur is the next byte without skipping whitespace, 0 at the end.
func (r *reader) cur() byte {
	if r.i >= r.n && !r.fill() {
		return 0
	}
	return r.buf[r.i]
}

// str consumes a string starting at its opening quote, checking escapes
// and that it holds no control characters.
func (r *reader) str() error {
	r.i++
	for {
		j := r.i
		for j < r.n {
			c := r.buf[j]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			j++
		}
		r.i = j
		if j == r.n {
			// The buffer ends inside the string.
			if !r.fill() {
				return r.errorf("unterminated string")
			}
			continue
		}
		switch c := r.buf[j]; {
		case c == '"':
			r.i = j + 1
			return nil
		case c < 0x20:
			return r.errorf("control character 0x%02x in a string", c)
		}
		// A backslash: have the whole escape in the buffer.
		if j+6 > r.n && !r.eof {
			r.fill()
			continue
		}
		if r.i+1 >= r.n {
			return r.errorf("unterminated string")
		}
		switch r.buf[r.i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			r.i += 2
		case 'u':
			if r.i+6 > r.n || !isHex4(r.buf[r.i+2:r.i+6]) {
				return r.errorf(`bad \u escape in a string`)
			}
			r.i += 6
		default:
			return r.errorf("bad escape %q in a string", r.buf[r.i:r.i+2])
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// literal consumes a number, true, false, null, NaN, Infinity or
// -Infinity.
func (r *reader) literal() error {
	var lit []byte
	at, line := r.pos(), r.line
	for {
		j := r.i
		for j < r.n && isLiteralByte(r.buf[j]) {
			j++
		}
		if len(lit)+j-r.i > 4096 {
			return r.errorf("a number or literal longer than 4096 bytes")
		}
		if j < r.n && len(lit) == 0 {
			// The whole literal is in the buffer: no copy.
			lit = r.buf[r.i:j]
			r.i = j
			break
		}
		lit = append(lit, r.buf[r.i:j]...)
		r.i = j
		if j < r.n || !r.fill() {
			break
		}
	}
	switch string(lit) {
	case "true", "false", "null", "NaN", "Infinity", "-Infinity":
		return nil
	}
	if !isJSONNumber(lit) {
		return &InputError{File: r.name, Line: line, Offset: at, Msg: fmt.Sprintf("%q is not a JSON value", lit)}
	}
	return nil
}

func isLiteralByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isJSONNumber reports whether b is a number in JSON's grammar.
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(b)
}

// key reads an object key and its colon; the key is returned unescaped
// and as written.
func (r *reader) key() (string, []byte, error) {
	if r.peek() != '"' {
		return "", nil, r.errorf("expected an object key, found %s", describe(r.cur()))
	}
	var s sink
	if err := r.value(&s); err != nil {
		return "", nil, err
	}
	k, ok := unquote(s.b)
	if !ok {
		return "", nil, r.errorf("bad object key %s", s.b)
	}
	if err := r.expect(':', "':' after an object key"); err != nil {
		return "", nil, err
	}
	return k, s.b, nil
}

// eventAt says where an event starts, for errors about it.
type eventAt struct {
	line int
	off  int64
}

// errorAt is an InputError about the event at at.
func (r *reader) errorAt(at eventAt, format string, args ...any) error {
	return &InputError{File: r.name, Line: at.line, Offset: at.off, Msg: fmt.Sprintf(format, args...)}
}

// array reads a JSON array of values, calling fn with each one's raw
// bytes (valid until the next call). With open set, the input may end
// before the closing bracket, as Chrome's JSON Array Format allows.
func (r *reader) array(open bool, fn func(raw []byte, at eventAt) error) error {
	if err := r.expect('[', "'['"); err != nil {
		return err
	}
	var s sink
	if r.peek() == ']' {
		r.i++
		return nil
	}
	for {
		c := r.peek()
		if c == 0 && open {
			return r.ioErr()
		}
		at := eventAt{r.line, r.pos()}
		s.b = s.b[:0]
		if err := r.value(&s); err != nil {
			return err
		}
		if err := fn(s.b, at); err != nil {
			return err
		}
		switch c := r.peek(); {
		case c == ',':
			r.i++
		case c == ']':
			r.i++
			return nil
		case c == 0 && open:
			return r.ioErr()
		default:
			return r.errorf("expected ',' or ']' after a trace event, found %s", describe(c))
		}
	}
}

// ioErr returns the read error that ended the input, if any.
// A failure to read the file is an I/O error; a broken gzip stream is
// a broken input.
func (r *reader) ioErr() error {
	if r.err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(r.err, &pe) {
		return fmt.Errorf("%s: %w", r.name, r.err)
	}
	return &InputError{File: r.name, Line: r.line, Offset: r.pos(), Msg: "reading the gzip stream: " + r.err.Error()}
}
