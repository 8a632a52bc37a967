package yamlpos

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// JSON is read by a JSON reader of its own, not by go-yaml: go-yaml
// refuses valid JSON (a surrogate pair escape such as "\ud83d\ude00",
// which Python's json.dump writes for every emoji; a raw DEL, 0x7F, in a
// string) and reports some of its errors with no place. The reader builds
// the node tree go-yaml builds for the same text, so every check of the
// nodes (and its line and column) is the same for JSON and YAML:
// mappings and lists in flow style, strings double-quoted with !!str,
// numbers, true, false and null plain with the tag YAML resolves for them.

// maxJSONDepth bounds the nesting of JSON arrays and objects (the reader
// recurses; go-yaml has a bound of its own for YAML).
const maxJSONDepth = 1000

// looksLikeJSON reports whether the first character of data that is not
// white space (after a UTF-8 byte order mark) opens a JSON object or array.
func looksLikeJSON(data []byte) bool {
	i := 0
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		i = 3
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// jsonReader reads one JSON text into yaml.Nodes.
type jsonReader struct {
	data []byte
	i    int
	// The line and column (in characters) of byte at, moved forward as
	// nodes are made: positions cost one pass over the text in all.
	at, line, col int
	depth         int
}

// jsonError is a JSON syntax error at byte Off; Trailing marks text
// after a complete document.
type jsonError struct {
	Off      int
	Msg      string
	Trailing bool
}

// parseJSON reads data as one JSON text and returns its root node, or the
// first error with its byte offset.
func parseJSON(data []byte) (*yaml.Node, *jsonError) {
	r := &jsonReader{data: data, line: 1, col: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		r.i, r.at = 3, 3 // a byte order mark, which go-yaml skips too
	}
	r.space()
	n, err := r.value()
	if err != nil {
		return nil, err
	}
	r.space()
	if r.i < len(r.data) {
		return nil, &jsonError{Off: r.i, Msg: "text after the end of the document", Trailing: true}
	}
	return n, nil
}

// pos returns the line and column of byte off, which is at or after
// every offset asked for before.
func (r *jsonReader) pos(off int) (line, col int) {
	for ; r.at < off; r.at++ {
		switch c := r.data[r.at]; {
		case c == '\n':
			r.line, r.col = r.line+1, 1
		case c&0xC0 != 0x80: // not a UTF-8 continuation byte
			r.col++
		}
	}
	return r.line, r.col
}

func (r *jsonReader) node(kind yaml.Kind, tag string, style yaml.Style, value string, off int) *yaml.Node {
	n := &yaml.Node{Kind: kind, Tag: tag, Style: style, Value: value}
	n.Line, n.Column = r.pos(off)
	return n
}

func (r *jsonReader) space() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		default:
			return
		}
	}
}

// describe names the byte at off for a message.
func (r *jsonReader) describe(off int) string {
	if off >= len(r.data) {
		return "the end of the file"
	}
	c := r.data[off]
	if c >= 0x20 && c < 0x7F {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte %#02x", c)
}

func (r *jsonReader) value() (*yaml.Node, *jsonError) {
	if r.i >= len(r.data) {
		return nil, &jsonError{Off: r.i, Msg: "expected a JSON value, found the end of the file"}
	}
	switch c := r.data[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		start := r.i
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		return r.node(yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, s, start), nil
	case c == '-' || '0' <= c && c <= '9':
		return r.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(r.data)-r.i >= len(lit) && string(r.data[r.i:r.i+len(lit)]) == lit {
				return r.plain(r.i, r.i+len(lit)), nil
			}
		}
		return nil, &jsonError{Off: r.i, Msg: "expected a JSON value, found " + r.describe(r.i)}
	}
}

// plain makes the plain scalar data[start:end], tagged as YAML resolves it.
func (r *jsonReader) plain(start, end int) *yaml.Node {
	n := r.node(yaml.ScalarNode, "", 0, string(r.data[start:end]), start)
	n.Tag = n.ShortTag()
	r.i = end
	return n
}

func (r *jsonReader) enter() *jsonError {
	if r.depth++; r.depth > maxJSONDepth {
		return &jsonError{Off: r.i, Msg: fmt.Sprintf("arrays and objects nested more than %d deep", maxJSONDepth)}
	}
	return nil
}

func (r *jsonReader) object() (*yaml.Node, *jsonError) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	n := r.node(yaml.MappingNode, "!!map", yaml.FlowStyle, "", r.i)
	r.i++
	r.space()
	if r.i < len(r.data) && r.data[r.i] == '}' {
		r.i++
		return n, nil
	}
	for {
		if r.i >= len(r.data) || r.data[r.i] != '"' {
			return nil, &jsonError{Off: r.i, Msg: "expected a string key, found " + r.describe(r.i)}
		}
		k, err := r.value()
		if err != nil {
			return nil, err
		}
		r.space()
		if r.i >= len(r.data) || r.data[r.i] != ':' {
			return nil, &jsonError{Off: r.i, Msg: "expected ':' after the key, found " + r.describe(r.i)}
		}
		r.i++
		r.space()
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, k, v)
		r.space()
		if r.i < len(r.data) && r.data[r.i] == '}' {
			r.i++
			return n, nil
		}
		if r.i >= len(r.data) || r.data[r.i] != ',' {
			return nil, &jsonError{Off: r.i, Msg: "expected ',' or '}' in an object, found " + r.describe(r.i)}
		}
		r.i++
		r.space()
	}
}

func (r *jsonReader) array() (*yaml.Node, *jsonError) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	n := r.node(yaml.SequenceNode, "!!seq", yaml.FlowStyle, "", r.i)
	r.i++
	r.space()
	if r.i < len(r.data) && r.data[r.i] == ']' {
		r.i++
		return n, nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
		r.space()
		if r.i < len(r.data) && r.data[r.i] == ']' {
			r.i++
			return n, nil
		}
		if r.i >= len(r.data) || r.data[r.i] != ',' {
			return nil, &jsonError{Off: r.i, Msg: "expected ',' or ']' in an array, found " + r.describe(r.i)}
		}
		r.i++
		r.space()
	}
}

// number reads a number as JSON writes it (RFC 8259 section 6).
func (r *jsonReader) number() (*yaml.Node, *jsonError) {
	start, i := r.i, r.i
	digits := func() int {
		n := 0
		for i < len(r.data) && '0' <= r.data[i] && r.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if r.data[i] == '-' {
		i++
	}
	intStart := i
	if n := digits(); n == 0 {
		return nil, &jsonError{Off: i, Msg: "expected a digit, found " + r.describe(i)}
	} else if n > 1 && r.data[intStart] == '0' {
		return nil, &jsonError{Off: intStart, Msg: "a number must not start with 0"}
	}
	if i < len(r.data) && r.data[i] == '.' {
		i++
		if digits() == 0 {
			return nil, &jsonError{Off: i, Msg: "expected a digit after '.', found " + r.describe(i)}
		}
	}
	if i < len(r.data) && r.data[i]|0x20 == 'e' {
		i++
		if i < len(r.data) && (r.data[i] == '+' || r.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, &jsonError{Off: i, Msg: "expected a digit in the exponent, found " + r.describe(i)}
		}
	}
	return r.plain(start, i), nil
}

// str reads a string at r.i (its opening quote) and returns its value:
// escapes decoded, a UTF-16 surrogate pair as the one character it
// encodes and a lone surrogate as U+FFFD (as encoding/json reads them).
// A raw control character (below 0x20) or a byte that is not UTF-8 is an
// error at its offset; DEL (0x7F) is a character like any other.
func (r *jsonReader) str() (string, *jsonError) {
	r.i++
	start := r.i
	// The common case, no escape: one slice of the text.
	for r.i < len(r.data) {
		c := r.data[r.i]
		if c == '"' {
			s := string(r.data[start:r.i])
			r.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		r.i++
	}
	buf := append([]byte(nil), r.data[start:r.i]...)
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			r.i++
			return string(buf), nil
		case c < 0x20:
			return "", &jsonError{Off: r.i, Msg: fmt.Sprintf("control character %#02x in a string; write it as an escape", c)}
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(r.data[r.i:])
			if ch == utf8.RuneError && size == 1 {
				return "", &jsonError{Off: r.i, Msg: fmt.Sprintf("byte %#02x is not valid UTF-8", c)}
			}
			buf = append(buf, r.data[r.i:r.i+size]...)
			r.i += size
		case c != '\\':
			buf = append(buf, c)
			r.i++
		default:
			if r.i+1 >= len(r.data) {
				return "", &jsonError{Off: r.i, Msg: "a string ends in the middle of an escape"}
			}
			esc := r.data[r.i+1]
			if e, ok := simpleEscapes[esc]; ok {
				buf = append(buf, e)
				r.i += 2
				continue
			}
			if esc != 'u' {
				return "", &jsonError{Off: r.i, Msg: fmt.Sprintf("invalid escape \\%c", esc)}
			}
			ch, ok := r.hex4(r.i + 2)
			if !ok {
				return "", &jsonError{Off: r.i, Msg: "\\u must be followed by 4 hex digits"}
			}
			r.i += 6
			if utf16.IsSurrogate(ch) {
				lo, ok := rune(-1), false
				if r.i+1 < len(r.data) && r.data[r.i] == '\\' && r.data[r.i+1] == 'u' {
					lo, ok = r.hex4(r.i + 2)
				}
				if pair := utf16.DecodeRune(ch, lo); ok && pair != utf8.RuneError {
					ch = pair
					r.i += 6
				} else {
					ch = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, ch)
		}
	}
	return "", &jsonError{Off: start - 1, Msg: "a string has no closing quote"}
}

var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads 4 hex digits at off.
func (r *jsonReader) hex4(off int) (rune, bool) {
	if off+4 > len(r.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(r.data[off:off+4]), 16, 32)
	return rune(v), err == nil
}
