// Package jsonread is the one JSON reader of cycleabi: every JSON input
// (framework and MegaKernel traces of gigabytes, schedules, names files,
// manifests read as JSON) goes through its tokenizer.
//
// It streams: it holds a buffer of the input, never the whole of it, and
// one value read whole is bounded (MaxValueBytes), so memory stays bounded
// whatever the file holds. Every error is an *Error naming the file, the
// line and the byte offset (in the decompressed text) of the byte at
// fault. Strings decode as encoding/json decodes them: escapes, a UTF-16
// surrogate pair as the one character it encodes, a lone surrogate as
// U+FFFD; a raw DEL (0x7F) is a character like any other. Numbers are
// kept as the text the file holds, so callers that need them exact
// (trace times of 19 digits) parse them themselves.
package jsonread

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/megakernel/cycleabi/internal/infile"
)

// Error is JSON that cannot be read: malformed, a value of the wrong kind,
// a value too large. Line and Offset (1-based line, 0-based byte offset
// in the decompressed text) say where, when known (Line 0: the error
// concerns the file as a whole).
type Error struct {
	File   string
	Line   int
	Offset int64
	Msg    string
	// Err is the error's kind when callers need to tell it (ErrTooLong).
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// ErrTooLong is the kind of the error of a value past Reader.MaxValue.
var ErrTooLong = errors.New("a value too long")

// Error returns "file:line: byte offset: message", or "file: message".
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: byte %d: %s", e.File, e.Line, e.Offset, e.Msg)
}

// Limits that keep a hostile or broken input from taking unbounded
// memory: one value read whole (a trace event, a key, a string), or one
// nesting, past these is an error.
const (
	MaxValueBytes = 16 << 20
	// DefaultMaxDepth is Reader.MaxDepth unless the caller sets it.
	DefaultMaxDepth = 512
	// maxLiteral bounds a number or literal.
	maxLiteral = 4096
)

// Pos is where a value starts: 1-based line, 0-based byte offset.
type Pos struct {
	Line   int
	Offset int64
}

// Reader is a streaming JSON tokenizer over a (possibly gzip-compressed)
// input. It reads values whole as raw bytes, checked against the JSON
// grammar, or token by token (Peek, Advance, Str, Literal).
type Reader struct {
	// MaxDepth bounds the nesting of arrays and objects.
	MaxDepth int
	// NonFinite accepts the NaN, Infinity and -Infinity literals Python's
	// json module writes, so that a caller can give a non-finite time a
	// clear error rather than a syntax error.
	NonFinite bool
	// CheckUTF8 refuses a string holding bytes that are not UTF-8 (at the
	// first such byte). Without it such bytes are kept as they are in raw
	// values and decode as U+FFFD, as encoding/json reads them.
	CheckUTF8 bool
	// Columns keeps what Col needs; it costs a count of the text's
	// characters, so only readers that report columns set it.
	Columns bool
	// MaxValue bounds a value read whole (Value without a writer, Str);
	// 0 is MaxValueBytes. Past it Value fails with an error that wraps
	// ErrTooLong.
	MaxValue int

	name string
	src  io.Reader
	buf  []byte
	i, n int
	eof  bool
	err  error // a read error, reported once the buffer is drained
	off  int64 // offset of buf[0] in the stream
	line int
	// lineStart is the offset after the last line break consumed. With
	// Columns, colIdx and colVal are a buffer index on the line of colLine
	// and the characters of that line before it; colBefore holds the
	// characters of the line before buf[0].
	lineStart                          int64
	colIdx, colVal, colLine, colBefore int
	// closers close the file and the gzip reader.
	closers []io.Closer
	// rec, when set, receives the bytes from buf[mark:] as they are
	// consumed (see Value); recErr is its first error.
	rec    *Sink
	mark   int
	recErr error
	recAt  Pos // where the value being recorded starts
	// lit and str hold a literal or string cut by a refill, and a decoded
	// string.
	lit, str []byte
	strSink  Sink
	// raw is the last string Str read, as written; inBuf says it is a
	// slice of buf. keyRaw holds a key's copy.
	raw, keyRaw []byte
	inBuf       bool
}

// Open opens the file at path for reading, decompressing it when it
// starts with gzip's magic bytes (whatever its name). Special files
// (a FIFO, a directory) are refused before they are read.
func Open(path string) (*Reader, error) {
	f, _, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	return NewFile(path, f)
}

// NewFile reads f, named path in errors, as Open does; the Reader closes
// it.
func NewFile(path string, f io.ReadSeekCloser) (*Reader, error) {
	r := NewSize(path, f, 256<<10)
	r.closers = []io.Closer{f}
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.src = gz
		r.closers = append(r.closers, gz)
	}
	// A UTF-8 byte order mark (which some editors write) is not part of
	// the JSON; whitespace after it is skipped as anywhere.
	r.SkipBOM()
	return r, nil
}

// NewSize reads src, named name in errors, through a buffer of size bytes
// (at least 8).
func NewSize(name string, src io.Reader, size int) *Reader {
	return &Reader{MaxDepth: DefaultMaxDepth, name: name, src: src, buf: make([]byte, max(size, 8)), line: 1, colLine: 1}
}

// NewBytes reads data in place: no copy, no refill.
func NewBytes(name string, data []byte) *Reader {
	return &Reader{MaxDepth: DefaultMaxDepth, name: name, src: bytes.NewReader(nil), buf: data, n: len(data), eof: true, line: 1, colLine: 1}
}

// Close releases the file and the gzip reader.
func (r *Reader) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i].Close()
	}
	r.closers = nil
}

// fill reads more input; it reports false at the end of the input or on a
// read error (kept in r.err).
func (r *Reader) fill() bool {
	if r.eof {
		return false
	}
	if r.rec != nil {
		r.record()
		r.mark = 0
	}
	if r.i > 0 {
		if r.Columns {
			r.colBefore = r.Col() - 1
			r.colIdx = 0
		}
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

// Offset is the offset of the next byte.
func (r *Reader) Offset() int64 { return r.off + int64(r.i) }

// Pos is where the next byte is.
func (r *Reader) Pos() Pos { return Pos{r.line, r.Offset()} }

// Col is the column of the next byte on its line, in characters (UTF-8
// sequences; a tab is one), 1-based. Reader.Columns must be set.
func (r *Reader) Col() int {
	start := int(r.lineStart - r.off) // may be before buf[0]
	if r.colLine != r.line {
		r.colLine, r.colIdx, r.colVal = r.line, max(start, 0), 0
		if start < 0 {
			r.colVal = r.colBefore
		}
	}
	for _, c := range r.buf[r.colIdx:r.i] {
		if c&0xC0 != 0x80 {
			r.colVal++
		}
	}
	r.colIdx = r.i
	return r.colVal + 1
}

// Errorf returns an *Error at the next byte (or the read error that ended
// the input, which is the better explanation).
func (r *Reader) Errorf(format string, args ...any) error {
	if r.err != nil {
		return r.IOErr()
	}
	return &Error{File: r.name, Line: r.line, Offset: r.Offset(), Msg: fmt.Sprintf(format, args...)}
}

// ErrorAt returns an *Error about the value at at.
func (r *Reader) ErrorAt(at Pos, format string, args ...any) error {
	return &Error{File: r.name, Line: at.Line, Offset: at.Offset, Msg: fmt.Sprintf(format, args...)}
}

// SkipBOM skips a UTF-8 byte order mark at the start of the input.
func (r *Reader) SkipBOM() {
	for r.n-r.i < 3 && r.fill() {
	}
	if r.Offset() == 0 && r.n-r.i >= 3 && r.buf[r.i] == 0xEF && r.buf[r.i+1] == 0xBB && r.buf[r.i+2] == 0xBF {
		r.i += 3
	}
}

// Peek skips whitespace and returns the next byte, 0 at the end (AtEnd
// tells the end from a NUL byte).
func (r *Reader) Peek() byte {
	// Inlined: most calls find the next token at once.
	if r.i < r.n && r.buf[r.i] > ' ' {
		return r.buf[r.i]
	}
	return r.peekSlow()
}

func (r *Reader) peekSlow() byte {
	for {
		for r.i < r.n {
			switch c := r.buf[r.i]; c {
			case '\n':
				r.line++
				r.i++
				r.lineStart = r.off + int64(r.i)
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

// AtEnd skips whitespace and reports whether the input has ended.
func (r *Reader) AtEnd() bool {
	r.Peek()
	return r.i >= r.n
}

// Advance consumes the byte Peek returned.
func (r *Reader) Advance() {
	if r.i < r.n {
		r.i++
	}
}

// Found describes the next byte for a message: "'x'", "byte 0x00", or
// "the end of the input".
func (r *Reader) Found() string {
	if r.i >= r.n && !r.fill() {
		return "the end of the input"
	}
	return describe(r.buf[r.i])
}

// describe names byte c for a message.
func describe(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", c)
}

// Expect consumes c after whitespace; what names it in the error.
func (r *Reader) Expect(c byte, what string) error {
	if got := r.Peek(); got != c || r.i >= r.n {
		return r.Errorf("expected %s, found %s", what, r.Found())
	}
	r.i++
	return nil
}

// IOErr returns the read error that ended the input, if any. A failure to
// read the file is an I/O error; a broken gzip stream is a broken input.
func (r *Reader) IOErr() error {
	if r.err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(r.err, &pe) {
		return fmt.Errorf("%s: %w", r.name, r.err)
	}
	return &Error{File: r.name, Line: r.line, Offset: r.Offset(), Msg: "reading the gzip stream: " + r.err.Error()}
}
