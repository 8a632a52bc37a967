package plan

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrorAt returns an *Error about the value at a YAML path in s
// ("tasks[3].dependent_event"), with the line and column of
// the value there when s was parsed from text. Finding the position parses
// the text again: the node tree of a large schedule is too big to keep for
// the rare error that needs it.
func (s *Schedule) ErrorAt(path, format string, args ...any) *Error {
	e := &Error{File: s.File, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n := s.locate(path); n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// locate returns the node at path ("tasks[3].dependent_event"), or the
// nearest ancestor present (a default has no node of its own), or nil when
// s has no text.
func (s *Schedule) locate(path string) *yaml.Node {
	if s.src == nil {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(s.src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	n := resolveAlias(doc.Content[0])
	for _, seg := range splitPath(path) {
		next := child(n, seg)
		if next == nil {
			break
		}
		n = resolveAlias(next)
	}
	return n
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
