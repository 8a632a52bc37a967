package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// DropText frees the schedule's text, which ErrorAt reads again to place
// an error, for a caller done checking the schedule that keeps it for
// long (the text of a large schedule is larger than its tables). Errors
// made after carry no line and column.
func (s *Schedule) DropText() { s.src = nil }

// ErrorAt returns an *Error about the value at a YAML path in s
// ("tasks[3].dependent_event"), with the line and column of the value there
// (or of its nearest ancestor, for a default) when s was parsed from text.
// The position is found by reading the text again: the node tree of a
// large schedule is too big to keep for the rare error that needs it, and
// a schedule that took the JSON fast path is walked by the same scanner,
// so that an error costs no more than parsing did.
func (s *Schedule) ErrorAt(path, format string, args ...any) *Error {
	e := &Error{File: s.File, Path: path, Msg: fmt.Sprintf(format, args...)}
	switch {
	case s.src == nil:
	case s.fromJSON:
		e.Line, e.Col = jsonPosition(s.src, path)
	default:
		e.Line, e.Col = yamlPosition(s.src, path)
	}
	return e
}

// locate gives each problem of l its position, reading the text once for
// all of them.
func (s *Schedule) locate(l *ErrorList) {
	var root *yaml.Node
	if s.src != nil && !s.fromJSON {
		root = yamlpos.Root(s.src)
	}
	l.Each(func(e *Error) {
		switch {
		case s.src == nil:
		case s.fromJSON:
			e.Line, e.Col = jsonPosition(s.src, e.Path)
		case root != nil:
			e.Line, e.Col = nodePosition(root, e.Path)
		}
	})
}

// yamlPosition returns the line and column of the node at path in the YAML
// text src, or of the nearest ancestor present; 0, 0 if src does not parse.
func yamlPosition(src []byte, path string) (line, col int) {
	root := yamlpos.Root(src)
	if root == nil {
		return 0, 0
	}
	return nodePosition(root, path)
}

// nodePosition returns the line and column of the node at path under
// root, or of the nearest ancestor present.
func nodePosition(root *yaml.Node, path string) (line, col int) {
	n := yamlpos.Resolve(root)
	for _, seg := range splitPath(path) {
		next := child(n, seg)
		if next == nil {
			break
		}
		n = yamlpos.Resolve(next)
	}
	return n.Line, n.Column
}

// splitPath splits "tasks[3].task_type" into "tasks", "[3]", "task_type".
func splitPath(path string) []string {
	var segs []string
	for _, part := range strings.Split(path, ".") {
		for part != "" {
			i := strings.IndexByte(part[1:], '[')
			if i < 0 {
				segs = append(segs, part)
				break
			}
			segs = append(segs, part[:i+1])
			part = part[i+1:]
		}
	}
	return segs
}

// child returns the value under a key or the item at an "[i]" segment.
func child(n *yaml.Node, seg string) *yaml.Node {
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == seg {
			return n.Content[i+1]
		}
	}
	return nil
}
