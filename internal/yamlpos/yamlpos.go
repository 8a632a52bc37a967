// Package yamlpos is the one YAML reader of the YAML (and JSON) files
// cycleabi reads — the ABI schema, task schedules, names files and
// invocation manifests:
//
//   - ReadFile reads a file under a size cap checked before reading, and
//     Document parses one YAML document under a cap of its own (go-yaml's
//     nodes take about 30 times the text; see Limits), refusing anything
//     after the document at its line and column;
//   - Reader reads the nodes by one set of rules (aliases, null, what a
//     string and an integer are, unknown and duplicate keys);
//   - problems are reported the same way everywhere:
//     "file:line:col: yaml.path: message", every problem in one list, in
//     file order.
package yamlpos

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one problem at a place in a file, printed as
// "moe.yaml:12:7: tasks[3].task_type: unknown task type "MatMull"".
// Line and Col are 0 when the place is not known (the value was not read
// from text); File is "" when there is no file.
type Error struct {
	File string
	Line int
	Col  int
	// Path is the YAML path of the offending node ("tasks[3].task_type"),
	// or "" for the whole file.
	Path string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// At returns the problem msg at node n of file. A nil n (a key that is
// absent) gives a problem with no line and column rather than a panic.
func At(file string, n *yaml.Node, path, format string, args ...any) *Error {
	e := &Error{File: file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// List is every problem found in one file. When Max is positive it keeps
// the first Max and counts the rest in Omitted, so a million bad entries
// make one screenful rather than a million lines.
type List struct {
	Errs    []*Error
	Omitted int
	Max     int
}

// Add records e.
func (l *List) Add(e *Error) {
	if l.Max > 0 && len(l.Errs) >= l.Max {
		l.Omitted++
		return
	}
	l.Errs = append(l.Errs, e)
}

// Len is the number of problems found, kept or omitted.
func (l *List) Len() int { return len(l.Errs) + l.Omitted }

// Sort puts the kept problems in file order (line, then column), keeping
// the order they were found in within one place.
func (l *List) Sort() {
	sort.SliceStable(l.Errs, func(i, j int) bool {
		a, b := l.Errs[i], l.Errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns l when it holds a problem, else nil.
func (l *List) Err() error {
	if l.Len() == 0 {
		return nil
	}
	return l
}

// Error renders one problem per line.
func (l *List) Error() string {
	msgs := make([]string, len(l.Errs), len(l.Errs)+1)
	for i, e := range l.Errs {
		msgs[i] = e.Error()
	}
	if l.Omitted > 0 {
		msgs = append(msgs, fmt.Sprintf("(%d more errors)", l.Omitted))
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the kept problems, so errors.As finds the first *Error.
func (l *List) Unwrap() []error {
	errs := make([]error, len(l.Errs))
	for i, e := range l.Errs {
		errs[i] = e
	}
	return errs
}

var syntaxLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Syntax turns an error from yaml.Unmarshal into an Error with the line it
// names (line 1 when it names none); what says what was expected ("YAML",
// "YAML or JSON").
func Syntax(file, what string, err error) *Error {
	msg := err.Error()
	if m := syntaxLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Col: 1, Msg: "invalid " + what + ": " + m[2]}
	}
	return &Error{File: file, Line: 1, Col: 1, Msg: "invalid " + what + ": " + strings.TrimPrefix(msg, "yaml: ")}
}

// IsNull reports whether n is YAML null (~, null, or nothing).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// Resolve follows aliases to the node they name.
func Resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// KindName describes a node for a message: "a mapping", "a list", "null",
// or the quoted scalar.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}
