package yamlpos

import (
	"errors"

	"github.com/megakernel/cycleabi/internal/jsonread"
	"go.yaml.in/yaml/v3"
)

// JSON is read by jsonread, the one JSON reader, not by go-yaml: go-yaml
// refuses valid JSON (a surrogate pair escape such as "\ud83d\ude00",
// which Python's json.dump writes for every emoji; a raw DEL, 0x7F, in a
// string) and reports some of its errors with no place. jsonReader builds
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

// jsonReader builds the node tree of one JSON text from the tokens of
// jsonread, the reader every JSON input goes through.
type jsonReader struct {
	data []byte
	r    *jsonread.Reader
	// The line and column (in characters) of byte at, moved forward as
	// nodes are made: positions cost one pass over the text in all.
	at, line, col int
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
	r := &jsonReader{data: data, r: jsonread.NewBytes("", data), line: 1, col: 1}
	r.r.CheckUTF8 = true
	r.r.SkipBOM() // as go-yaml does
	r.at = int(r.r.Offset())
	n, err := r.value(0)
	if err != nil {
		var je *jsonread.Error
		if !errors.As(err, &je) {
			return nil, &jsonError{Off: int(r.r.Offset()), Msg: err.Error()}
		}
		return nil, &jsonError{Off: int(je.Offset), Msg: je.Msg}
	}
	if !r.r.AtEnd() {
		return nil, &jsonError{Off: int(r.r.Offset()), Msg: "text after the end of the document", Trailing: true}
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

func (r *jsonReader) node(kind yaml.Kind, tag string, style yaml.Style, value string, off int64) *yaml.Node {
	n := &yaml.Node{Kind: kind, Tag: tag, Style: style, Value: value}
	n.Line, n.Column = r.pos(int(off))
	return n
}

// value reads the value after white space, at depth arrays and objects.
func (r *jsonReader) value(depth int) (*yaml.Node, error) {
	t := r.r
	c := t.Peek()
	off := t.Offset()
	switch {
	case t.AtEnd():
		return nil, t.Errorf("expected a JSON value, found %s", t.Found())
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return nil, t.Errorf("arrays and objects nested more than %d deep", maxJSONDepth)
		}
		return r.container(c, depth+1)
	case c == '"':
		s, err := t.Str()
		if err != nil {
			return nil, err
		}
		return r.node(yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, string(s), off), nil
	default:
		lit, err := t.Literal()
		if err != nil {
			return nil, err
		}
		// A plain scalar, tagged as YAML resolves it.
		n := r.node(yaml.ScalarNode, "", 0, string(lit), off)
		n.Tag = n.ShortTag()
		return n, nil
	}
}

// container reads the object or array that opens with c.
func (r *jsonReader) container(c byte, depth int) (*yaml.Node, error) {
	t := r.r
	kind, tag, end, what := yaml.MappingNode, "!!map", byte('}'), "'}' in an object"
	if c == '[' {
		kind, tag, end, what = yaml.SequenceNode, "!!seq", ']', "']' in an array"
	}
	n := r.node(kind, tag, yaml.FlowStyle, "", t.Offset())
	t.Advance()
	if t.Peek() == end {
		t.Advance()
		return n, nil
	}
	for {
		if c == '{' {
			t.Peek()
			off := t.Offset()
			key, _, err := t.Key()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, r.node(yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, string(key), off))
		}
		v, err := r.value(depth)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
		switch next := t.Peek(); {
		case t.AtEnd():
		case next == end:
			t.Advance()
			return n, nil
		case next == ',':
			t.Advance()
			continue
		}
		return nil, t.Errorf("expected ',' or %s, found %s", what, t.Found())
	}
}
