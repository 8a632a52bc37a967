package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/infile"
	"go.yaml.in/yaml/v3"
)

// The size caps on the YAML and JSON files cycleabi reads (the ABI
// schema, task schedules and names files). go-yaml's node tree takes about
// 30 times the bytes of its text (a 100 MB schedule needs 3 GB), so text
// read as YAML nodes has a cap of its own, far below the cap on reading a
// file at all: plain JSON schedules and names files of the usual shapes
// take fast paths that need little more memory than the file.
const (
	// DefaultMaxInputBytes caps the size of any input file (1 GiB).
	DefaultMaxInputBytes = 1 << 30
	// DefaultMaxYAMLBytes caps the text read as a YAML node tree (8 MiB:
	// an 8 MB schedule of 150k tasks peaks at 260 MB and plans under a
	// 2 GB address-space limit, where 16 MB runs out of memory).
	DefaultMaxYAMLBytes = 8 << 20
	// MaxInputBytesEnv names the environment variable that sets the cap
	// on input files, in bytes.
	MaxInputBytesEnv = "CYCLEABI_MAX_INPUT_BYTES"
	// MaxYAMLBytesEnv names the environment variable that sets the cap on
	// text read as YAML nodes, in bytes.
	MaxYAMLBytesEnv = "CYCLEABI_MAX_YAML_BYTES"
)

// Limits are the size caps in effect.
type Limits struct {
	// Input caps the bytes of an input file.
	Input int64
	// YAML caps the bytes read as a YAML node tree.
	YAML int64
}

// CurrentLimits returns the caps the environment sets (MaxInputBytesEnv,
// MaxYAMLBytesEnv), or the defaults. A value that is not a positive
// decimal number of bytes is an error naming the variable.
func CurrentLimits() (Limits, error) {
	l := Limits{Input: DefaultMaxInputBytes, YAML: DefaultMaxYAMLBytes}
	for _, v := range []struct {
		env string
		dst *int64
	}{{MaxInputBytesEnv, &l.Input}, {MaxYAMLBytesEnv, &l.YAML}} {
		s, ok := os.LookupEnv(v.env)
		if !ok || s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return l, fmt.Errorf("%s=%q: want a positive number of bytes", v.env, s)
		}
		*v.dst = n
	}
	return l, nil
}

// LimitError is an input larger than a size cap.
type LimitError struct {
	File string
	// Size is the input's size in bytes, or -1 when only "more than
	// Limit" is known (a stream).
	Size  int64
	Limit int64
	// Env is the environment variable that raises the cap.
	Env string
	// What the cap is on ("input file", "YAML text"); Note, when set, is
	// a sentence on what else the user can do.
	What string
	Note string
}

func (e *LimitError) Error() string {
	size := fmt.Sprintf("%d bytes", e.Size)
	if e.Size < 0 {
		size = "more bytes"
	}
	limit := fmt.Sprintf("%d bytes", e.Limit)
	if h := humanBytes(e.Limit); h != limit {
		limit += " (" + h + ")"
	}
	msg := fmt.Sprintf("%s: %s is more than the cap of %s on %s; set %s to raise it",
		e.File, size, limit, e.What, e.Env)
	if e.Note != "" {
		msg += "; " + e.Note
	}
	return msg
}

// humanBytes renders n in binary units ("16 MiB").
func humanBytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && n%1024 == 0 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%d %s", n, units[i])
}

// notFoundError is a missing input file; errors.Is finds fs.ErrNotExist in it.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return fs.ErrNotExist }

// ReadDocumentFile reads the regular file at path (see Open), at most
// lim.Input bytes, for a reader that takes it as a YAML node tree
// (Document) unless it takes a fast path: a file larger than lim.YAML is
// refused from its size, read no further than its first 4 KiB, unless
// fast (nil: none) says that opening may take a fast path. note is the
// *LimitError's note, as for Document.
func ReadDocumentFile(path, what string, lim Limits, fast func(head []byte) bool, note string) ([]byte, error) {
	return readFile(path, what, lim, func(size int64, head []byte) error {
		if size <= lim.YAML || fast != nil && fast(head) {
			return nil
		}
		return &LimitError{File: path, Size: size, Limit: lim.YAML, Env: MaxYAMLBytesEnv, What: "text read as YAML", Note: note}
	})
}

// Open opens the input file at path (what it is: "names file") as
// package infile does, refusing one larger than lim.Input from its size.
// A missing file is an error saying "what not found" that matches
// fs.ErrNotExist.
func Open(path, what string, lim Limits) (*os.File, fs.FileInfo, error) {
	f, st, err := infile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &notFoundError{path + ": " + what + " not found"}
		}
		return nil, nil, err
	}
	if st.Size() > lim.Input {
		f.Close()
		return nil, nil, &LimitError{File: path, Size: st.Size(), Limit: lim.Input, Env: MaxInputBytesEnv, What: what + "s"}
	}
	return f, st, nil
}

// readFile reads the file at path after check accepts its size and its
// first 4 KiB.
func readFile(path, what string, lim Limits, check func(size int64, head []byte) error) ([]byte, error) {
	f, st, err := Open(path, what, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, min(st.Size(), 4096))
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := check(st.Size(), head[:n]); err != nil {
		return nil, err
	}
	// The file may grow between the stat and the read: the read is
	// bounded too.
	var b bytes.Buffer
	// ReadFrom wants bytes.MinRead bytes of room before each read, the one
	// that finds the end too: without them the buffer doubles at the end.
	b.Grow(int(st.Size()) + bytes.MinRead)
	n64, err := b.ReadFrom(io.LimitReader(f, lim.Input+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n64 > lim.Input {
		return nil, &LimitError{File: path, Size: -1, Limit: lim.Input, Env: MaxInputBytesEnv, What: what + "s"}
	}
	return b.Bytes(), nil
}

// Document reads data as one YAML document (what names the format in a
// syntax error: "YAML", "YAML or JSON") and returns its root node, alias
// resolved, or nil for a file with no document (empty, or only
// comments). Text longer than lim.YAML is refused with a *LimitError
// (note says what else the user can do). Text that opens with '{' or '['
// is read as JSON when it is JSON (see parseJSON), else as YAML (flow
// YAML is not always JSON); when it is neither, the error further into
// the file is reported. A character YAML does not allow (a
// control character, a byte that is not UTF-8) is an *Error at its line
// and column, and so is anything after the document: a second document
// ("---"), or text that is no document (`{...} {...}`, `{...} garbage [`).
func Document(file, what string, data []byte, lim Limits, note string) (*yaml.Node, error) {
	if int64(len(data)) > lim.YAML {
		return nil, &LimitError{File: file, Size: int64(len(data)), Limit: lim.YAML, Env: MaxYAMLBytesEnv, What: "text read as YAML", Note: note}
	}
	if !looksLikeJSON(data) {
		return yamlDocument(file, what, data)
	}
	root, jerr := parseJSON(data)
	if jerr == nil {
		return root, nil
	}
	root, yerr := yamlDocument(file, what, data)
	if yerr == nil {
		return root, nil
	}
	// Neither reads it: report the reader that got further, JSON's when
	// the file is JSON with a mistake late in it, YAML's when it is flow
	// YAML (unquoted keys, comments) with a mistake.
	line, col := positionOf(data, jerr.Off)
	var ye *Error
	if errors.As(yerr, &ye) && (ye.Line > line || ye.Line == line && ye.Col >= col) {
		return nil, yerr
	}
	msg := jerr.Msg
	if !jerr.Trailing {
		msg = "invalid JSON: " + msg
	}
	return nil, &Error{File: file, Line: line, Col: col, Msg: msg}
}

// Root returns the root node of data as Document reads it, without caps
// and errors: nil when it does not parse (for placing a problem found
// after parsing).
func Root(data []byte) *yaml.Node {
	if looksLikeJSON(data) {
		if root, err := parseJSON(data); err == nil {
			return root
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return Resolve(doc.Content[0])
}

// yamlDocument is Document for YAML, read by go-yaml.
func yamlDocument(file, what string, data []byte) (*yaml.Node, error) {
	if off, msg := unreadable(data); off >= 0 {
		// go-yaml names no place for these.
		line, col := positionOf(data, off)
		return nil, &Error{File: file, Line: line, Col: col, Msg: "invalid " + what + ": " + msg}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		e := Syntax(file, what, err)
		if off := surrogateEscape(data); off >= 0 && strings.Contains(err.Error(), "invalid Unicode character escape code") {
			e.Line, e.Col = positionOf(data, off)
			e.Msg = "invalid " + what + ": " + string(data[off:off+6]) + " is half of a UTF-16 surrogate pair, which YAML does not read outside JSON; write the character itself, or \\U and 8 hex digits"
		}
		return nil, e
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = Resolve(doc.Content[0])
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return root, nil
	case err == nil:
		return nil, &Error{File: file, Line: next.Line, Col: next.Column, Msg: "a second document starts here; the file must hold one"}
	default:
		line, col := trailingAt(data, doc.Content)
		if line == 0 {
			line, col = Syntax(file, what, err).Line, 1
		}
		return nil, &Error{File: file, Line: line, Col: col, Msg: "text after the end of the document"}
	}
}

// unreadable returns the offset of the first character go-yaml's reader
// refuses, and what it is, or -1: a byte that is not UTF-8, or a character
// outside YAML's printable set (C0 controls but tab, line feed and
// carriage return; DEL; C1 controls but U+0085; U+FFFE and U+FFFF). Text
// with a UTF-16 byte order mark is left to go-yaml, which reads UTF-16.
func unreadable(data []byte) (int, string) {
	if len(data) >= 2 && (data[0] == 0xFE && data[1] == 0xFF || data[0] == 0xFF && data[1] == 0xFE) {
		return -1, ""
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
				return i, fmt.Sprintf("control character %U is not allowed", c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return i, fmt.Sprintf("byte %#02x is not valid UTF-8", c)
		case r < 0xA0 && r != 0x85 || r == 0xFFFE || r == 0xFFFF:
			return i, fmt.Sprintf("control character %U is not allowed", r)
		}
		i += size
	}
	return -1, ""
}

// surrogateEscape returns the offset of the first \u escape of a UTF-16
// surrogate (\uD800 to \uDFFF) that is not itself escaped, or -1.
func surrogateEscape(data []byte) int {
	for i := 0; i+6 <= len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] == 'u' && data[i+2]|0x20 == 'd' && strings.ContainsRune("89abAB", rune(data[i+3])) {
			if _, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16); err == nil {
				return i
			}
		}
		i++ // the escaped character, which may be a backslash
	}
	return -1
}

// trailingAt finds where text follows the document whose content is
// content: after a flow collection's closing bracket or a quoted
// scalar's closing quote, or after a "..." end marker, the first text
// that is not white space or a comment; 0, 0 when it cannot tell.
func trailingAt(data []byte, content []*yaml.Node) (line, col int) {
	off := 0
	if len(content) > 0 {
		n := content[0]
		start := offsetOf(data, n.Line, n.Column)
		if start < 0 {
			return 0, 0
		}
		if end := flowEnd(data, start); end > 0 {
			off = end
		} else {
			off = start
		}
	}
	// Past a "..." marker line, if the document ends with one.
	if i := endMarker(data, off); i >= 0 {
		off = i
	}
	for off < len(data) {
		switch c := data[off]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			off++
		case c == '#':
			for off < len(data) && data[off] != '\n' {
				off++
			}
		default:
			return positionOf(data, off)
		}
	}
	return 0, 0
}

// endMarker returns the offset just past the first "..." line at or after
// off, or -1.
func endMarker(data []byte, off int) int {
	for i := off; i < len(data); {
		lineStart := i == 0 || data[i-1] == '\n'
		if lineStart && bytes.HasPrefix(data[i:], []byte("...")) {
			rest := data[i+3:]
			if len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n' {
				return i + 3
			}
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	return -1
}

// flowEnd returns the offset just past the flow collection or quoted
// scalar that starts at start, or 0 when none does (a block node).
func flowEnd(data []byte, start int) int {
	depth := 0
	for i := start; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			j := quoteEnd(data, i)
			if j < 0 {
				return 0
			}
			if depth == 0 {
				return j
			}
			i = j - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '#':
			if i > 0 && (data[i-1] == ' ' || data[i-1] == '\n') {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			}
		default:
			if depth == 0 {
				return 0
			}
		}
	}
	return 0
}

// quoteEnd returns the offset just past the quoted scalar at i, or -1.
func quoteEnd(data []byte, i int) int {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q && q == '\'' && j+1 < len(data) && data[j+1] == '\'':
			j++
		case data[j] == q:
			return j + 1
		}
	}
	return -1
}

// offsetOf returns the byte offset of a 1-based line and column (go-yaml
// counts columns in characters), or -1.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(data) {
			return -1
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

// positionOf returns the 1-based line and column (in characters) of
// byte offset off.
func positionOf(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(data[lineStart:off])
}

// PositionOf returns the 1-based line and column of byte offset off in
// data, clamped to its end: where a fast path stopped.
func PositionOf(data []byte, off int) (line, col int) {
	return positionOf(data, min(max(off, 0), len(data)))
}
