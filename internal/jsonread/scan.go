package jsonread

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Sink receives the raw bytes of a value. With W set, bytes past flushAt
// are written out as they come (a top-level value of any size streams);
// without, a value longer than MaxValueBytes is an error. B holds what is
// not written yet.
type Sink struct {
	B []byte
	W interface{ Write([]byte) (int, error) }
}

// FlushAt is the size past which a Sink with W set writes what it holds.
const FlushAt = 64 << 10

func (s *Sink) write(p []byte) error {
	s.B = append(s.B, p...)
	if s.W != nil && len(s.B) >= FlushAt {
		if _, err := s.W.Write(s.B); err != nil {
			return err
		}
		s.B = s.B[:0]
	}
	return nil
}

// discard is a Sink's W that drops what it is given.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// record passes buf[mark:i] to the sink being recorded into; fill calls
// it before it moves the buffer.
func (r *Reader) record() {
	if r.rec == nil || r.recErr != nil {
		return
	}
	p := r.buf[r.mark:r.i]
	limit := cmp.Or(r.MaxValue, MaxValueBytes)
	if r.rec.W == nil && len(r.rec.B)+len(p) > limit {
		// Refused before the bytes past the cap are kept: what is held
		// never exceeds the cap. The error names where the value starts.
		r.recErr = &Error{File: r.name, Line: r.recAt.Line, Offset: r.recAt.Offset, Msg: fmt.Sprintf("a value longer than %s bytes (the cap on one value read whole: a trace event, a key, a string)", groupDigits(int64(limit))), Err: ErrTooLong}
	} else if r.rec.W == nil && cap(r.rec.B)-len(r.rec.B) < len(p) {
		// Doubling, and never past the cap: refusing a hostile value
		// allocates at most twice the cap in all (append's growth of
		// 1.25 allocated five times it).
		b := make([]byte, len(r.rec.B), min(max(2*cap(r.rec.B), len(r.rec.B)+len(p), 4096), limit))
		copy(b, r.rec.B)
		r.rec.B = append(b, p...)
	} else if err := r.rec.write(p); err != nil {
		r.recErr = err
	}
	r.mark = r.i
}

// Value reads one JSON value after whitespace into s (without the leading
// whitespace; whitespace inside the value is kept). The bytes are not
// copied token by token: the reader records the span it consumed and
// hands it to s when it refills its buffer and at the end.
func (r *Reader) Value(s *Sink) error {
	if r.Peek(); r.i >= r.n {
		return r.Errorf("expected a JSON value, found %s", r.Found())
	}
	r.rec, r.mark, r.recErr, r.recAt = s, r.i, nil, r.Pos()
	err := r.scanValue()
	if err == nil {
		r.record()
		err = r.recErr
	}
	r.rec = nil
	return err
}

// Skip reads past the next value, of any size.
func (r *Reader) Skip() error { return r.Value(&Sink{W: discard{}}) }

// ws skips whitespace inside a value, counting lines.
func (r *Reader) ws() {
	for {
		for r.i < r.n {
			switch r.buf[r.i] {
			case '\n':
				r.line++
				r.lineStart = r.off + int64(r.i) + 1
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

// cur is the next byte without skipping whitespace, 0 at the end.
func (r *Reader) cur() byte {
	if r.i >= r.n && !r.fill() {
		return 0
	}
	return r.buf[r.i]
}

// enter checks the depth of one more array or object.
func (r *Reader) enter(depth int) error {
	if depth >= r.MaxDepth {
		return r.Errorf("arrays and objects nested more than %d deep", r.MaxDepth)
	}
	return nil
}

func (r *Reader) scanValue() error {
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
			// At the end cur is 0, which no case takes.
			switch c := r.cur(); {
			case c == '{' || c == '[':
				if err := r.enter(len(stack)); err != nil {
					return err
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
				if err := r.scanStr(); err != nil {
					return err
				}
				state = stAfter
			case isLiteralByte(c):
				if _, err := r.literal(); err != nil {
					return err
				}
				state = stAfter
			default:
				return r.Errorf("expected a JSON value, found %s", r.Found())
			}
		case stKey:
			r.ws()
			if r.cur() != '"' {
				return r.Errorf("expected an object key, found %s", r.Found())
			}
			if err := r.scanStr(); err != nil {
				return err
			}
			r.ws()
			if r.cur() != ':' {
				return r.Errorf("expected ':' after an object key, found %s", r.Found())
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
				continue
			case c == '}' && top == '{' || c == ']' && top == '[':
				r.i++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '[' {
				return r.Errorf("expected ',' or ']' in an array, found %s", r.Found())
			}
			return r.Errorf("expected ',' or '}' in an object, found %s", r.Found())
		}
	}
}

// scanStr consumes a string starting at its opening quote, checking its
// escapes, that it holds no control characters and (with CheckUTF8) that
// it is UTF-8.
func (r *Reader) scanStr() error {
	start := r.Pos()
	r.i++
	for {
		j := r.i
		if r.CheckUTF8 {
			for j < r.n {
				c := r.buf[j]
				if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
					break
				}
				j++
			}
		} else {
			for j < r.n {
				c := r.buf[j]
				if c == '"' || c == '\\' || c < 0x20 {
					break
				}
				j++
			}
		}
		r.i = j
		if j == r.n {
			// The buffer ends inside the string.
			if !r.fill() {
				return r.ErrorAt(start, "a string has no closing quote")
			}
			if r.recErr != nil {
				return r.recErr // past the cap: read no further
			}
			continue
		}
		switch c := r.buf[j]; {
		case c == '"':
			r.i = j + 1
			return nil
		case c < 0x20:
			return r.Errorf("control character 0x%02x in a string; write it as an escape", c)
		case c >= utf8.RuneSelf:
			if !utf8.FullRune(r.buf[j:r.n]) && !r.eof {
				r.fill()
				continue
			}
			ch, size := utf8.DecodeRune(r.buf[j:r.n])
			if ch == utf8.RuneError && size == 1 {
				return r.Errorf("byte 0x%02x is not valid UTF-8", c)
			}
			r.i += size
			continue
		}
		// A backslash: have the whole escape in the buffer.
		if j+6 > r.n && !r.eof {
			r.fill()
			continue
		}
		if r.i+1 >= r.n {
			return r.ErrorAt(start, "a string has no closing quote")
		}
		switch r.buf[r.i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			r.i += 2
		case 'u':
			if r.i+6 > r.n || !isHex4(r.buf[r.i+2:r.i+6]) {
				return r.Errorf(`\u must be followed by 4 hex digits`)
			}
			r.i += 6
		default:
			return r.Errorf(`invalid escape \%c`, r.buf[r.i+1])
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

// literal consumes a number, true, false or null (and NaN, Infinity or
// -Infinity with NonFinite) and returns its text, valid until the next
// read.
func (r *Reader) literal() ([]byte, error) {
	var lit []byte
	at := r.Pos()
	cut := false
	for {
		j := r.i
		for j < r.n && isLiteralByte(r.buf[j]) {
			j++
		}
		if len(lit)+j-r.i > maxLiteral {
			return nil, r.Errorf("a number or literal longer than %d bytes", maxLiteral)
		}
		if (j < r.n || r.eof) && !cut {
			// The whole literal is in the buffer: no copy.
			lit = r.buf[r.i:j]
			r.i = j
			break
		}
		if !cut {
			lit, cut = r.lit[:0], true
		}
		lit = append(lit, r.buf[r.i:j]...)
		r.i = j
		if j < r.n || !r.fill() {
			break
		}
	}
	if cut {
		r.lit = lit
	}
	switch string(lit) {
	case "true", "false", "null":
		return lit, nil
	case "NaN", "Infinity", "-Infinity":
		if r.NonFinite {
			return lit, nil
		}
	}
	if !IsNumber(lit) {
		return nil, r.ErrorAt(at, "%q is not a JSON value", lit)
	}
	return lit, nil
}

func isLiteralByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// IsNumber reports whether b is a number in JSON's grammar.
func IsNumber(b []byte) bool {
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

// Literal reads a number, true, false or null after whitespace and
// returns its text (valid until the next read).
func (r *Reader) Literal() ([]byte, error) {
	if c := r.Peek(); r.i >= r.n || !isLiteralByte(c) {
		return nil, r.Errorf("expected a JSON value, found %s", r.Found())
	}
	return r.literal()
}

// Str reads a string after whitespace and returns its value decoded
// (valid until the next read): escapes, a surrogate pair as the one
// character it encodes, a lone surrogate (and, without CheckUTF8, a byte
// that is not UTF-8) as U+FFFD.
func (r *Reader) Str() ([]byte, error) {
	if c := r.Peek(); c != '"' || r.i >= r.n {
		return nil, r.Errorf("expected a string, found %s", r.Found())
	}
	// The common case, a string of ASCII without escapes in the buffer:
	// a slice of it.
	for j := r.i + 1; j < r.n; j++ {
		c := r.buf[j]
		if c == '"' {
			s := r.buf[r.i+1 : j]
			r.raw, r.inBuf = r.buf[r.i:j+1], true
			r.i = j + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	s := &r.strSink
	s.B = s.B[:0]
	r.rec, r.mark, r.recErr, r.recAt = s, r.i, nil, r.Pos()
	err := r.scanStr()
	if err == nil {
		r.record()
		err = r.recErr
	}
	r.rec = nil
	if err != nil {
		return nil, err
	}
	r.raw, r.inBuf = s.B, false
	raw := s.B[1 : len(s.B)-1]
	if !needsDecoding(raw) {
		return raw, nil
	}
	r.str = appendUnquoted(r.str[:0], raw)
	return r.str, nil
}

// Key reads an object key and its colon; the key is returned decoded
// (valid until the next read) and as written.
func (r *Reader) Key() (key, raw []byte, err error) {
	if c := r.Peek(); c != '"' || r.i >= r.n {
		return nil, nil, r.Errorf("expected an object key, found %s", r.Found())
	}
	key, err = r.Str()
	if err != nil {
		return nil, nil, err
	}
	raw = r.raw
	if r.inBuf && !r.eof {
		// A slice of the buffer, which Expect may refill: keep a copy.
		r.keyRaw = append(r.keyRaw[:0], raw...)
		raw = r.keyRaw
		key = raw[1 : len(raw)-1]
	}
	if err := r.Expect(':', "':' after an object key"); err != nil {
		return nil, nil, err
	}
	return key, raw, nil
}

// Array reads a JSON array of values, calling fn with each one's raw
// bytes (valid until the next call) and where it starts; what names an
// element in errors. With open set, the input may end before the closing
// bracket, as Chrome's JSON Array Format allows.
func (r *Reader) Array(open bool, what string, fn func(raw []byte, at Pos) error) error {
	if err := r.Expect('[', "'['"); err != nil {
		return err
	}
	var s Sink
	if r.Peek() == ']' {
		r.i++
		return nil
	}
	for {
		if r.AtEnd() && open {
			return r.IOErr()
		}
		at := r.Pos()
		s.B = s.B[:0]
		if err := r.Value(&s); err != nil {
			return err
		}
		if err := fn(s.B, at); err != nil {
			return err
		}
		switch c := r.Peek(); {
		case r.i >= r.n && open:
			return r.IOErr()
		case r.i >= r.n:
		case c == ',':
			r.i++
			continue
		case c == ']':
			r.i++
			return nil
		}
		return r.Errorf("expected ',' or ']' after %s, found %s", what, r.Found())
	}
}

// Object reads an object, calling member with each key (decoded, valid
// until the member returns) and where its value starts; member must
// consume the value (Value, Skip, Array, Str, ...). what names the
// object in the error when the input holds something else.
func (r *Reader) Object(what string, member func(key []byte, at Pos) error) error {
	if r.Peek() != '{' || r.i >= r.n {
		if err := r.IOErr(); err != nil {
			return err
		}
		return r.Errorf("%s is a JSON object, found %s", what, r.Found())
	}
	r.i++
	for first := true; ; first = false {
		if r.Peek() == '}' {
			r.i++
			return nil
		}
		if !first {
			if err := r.Expect(',', "',' or '}'"); err != nil {
				return err
			}
		}
		key, _, err := r.Key()
		if err != nil {
			return err
		}
		r.Peek()
		if err := member(key, r.Pos()); err != nil {
			return err
		}
	}
}

// End checks that only whitespace is left; what names the value read.
func (r *Reader) End(what string) error {
	if !r.AtEnd() {
		return r.Errorf("data after the %s: %s", what, r.Found())
	}
	return r.IOErr()
}

// Escaped reports whether the last string Str read was written with an
// escape.
func (r *Reader) Escaped() bool { return !r.inBuf && bytes.IndexByte(r.raw, '\\') >= 0 }

// groupDigits writes n with a comma every three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
