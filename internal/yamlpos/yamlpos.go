// Package yamlpos is the one YAML reader of the YAML (and JSON) files
// cycleabi reads — the ABI schema, task schedules, names files and
// invocation manifests:
//
//   - Open and ReadDocumentFile open and read a regular file under size
//     caps checked from its size, before reading, and Document parses one
//     document under a cap of its own (go-yaml's nodes take about 30
//     times the text; see Limits), JSON by a JSON reader that builds the
//     same nodes, refusing anything after the document at its line and
//     column;
//   - Reader reads the nodes by one set of rules (aliases, null, what a
//     string and an integer are, unknown and duplicate keys);
//   - problems are reported the same way everywhere:
//     "file:line:col: yaml.path: message", every problem in one list, in
//     file order.
package yamlpos

import (
	"fmt"
	"regexp"
	"slices"
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
	// Note is said once after a List's problems however many of them have
	// it ("known task types: ..."), never with each; "" for none.
	Note string
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

// List is every problem found in one file. One mistake repeated (a
// misspelt task type in 450 tasks) shows as its first few places and a
// count of the rest: at most SameMax problems with one message are kept,
// the others counted per message. When Max is positive at most Max are
// kept in all, the rest counted in Omitted, so a million bad entries make
// one screenful rather than a million lines. Notes (the names a misspelt
// one could have been) are said once, after the problems.
type List struct {
	Errs []*Error
	// Omitted counts the problems found and not kept, for either cap.
	Omitted int
	Max     int
	// SameMax caps the problems kept with one message: 0 means
	// DefaultSameMax, negative no cap.
	SameMax int
	// What the problems are, in the count of those past Max ("(3 more
	// warnings)"); "" is "errors".
	What string

	same  map[string]*sameMsg // by message, each with a kept problem
	order []string            // the messages with omitted problems, in the order found
	notes []string            // distinct notes of kept problems, in the order found
}

// DefaultSameMax is how many problems with one message a List keeps.
const DefaultSameMax = 3

// sameMsg counts the problems of one message.
type sameMsg struct {
	kept, omitted int
	last          *Error // the last omitted one
}

// Add records e.
func (l *List) Add(e *Error) {
	limit := l.SameMax
	if limit == 0 {
		limit = DefaultSameMax
	}
	if m := l.same[e.Msg]; m != nil && limit > 0 && m.kept >= limit {
		if m.omitted == 0 {
			l.order = append(l.order, e.Msg)
		}
		m.omitted++
		m.last = e
		l.Omitted++
		return
	}
	if l.Max > 0 && len(l.Errs) >= l.Max {
		l.Omitted++
		return
	}
	l.Errs = append(l.Errs, e)
	if l.same == nil {
		l.same = map[string]*sameMsg{}
	}
	m := l.same[e.Msg]
	if m == nil {
		m = &sameMsg{}
		l.same[e.Msg] = m
	}
	m.kept++
	if e.Note != "" && !slices.Contains(l.notes, e.Note) {
		l.notes = append(l.notes, e.Note)
	}
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

// Error renders one problem per line; then, for a message with more
// problems than were kept, the last of them and how many more there are;
// then the count of the others left out; then each note once.
func (l *List) Error() string {
	msgs := make([]string, len(l.Errs), len(l.Errs)+len(l.order)+1+len(l.notes))
	for i, e := range l.Errs {
		msgs[i] = e.Error()
	}
	rest := l.Omitted
	for _, msg := range l.order {
		m := l.same[msg]
		rest -= m.omitted
		msgs = append(msgs, fmt.Sprintf("%v (the last of %d more like this)", m.last, m.omitted))
	}
	if rest > 0 {
		what := l.What
		if what == "" {
			what = "errors"
		}
		msgs = append(msgs, fmt.Sprintf("(%d more %s)", rest, what))
	}
	msgs = append(msgs, l.notes...)
	return strings.Join(msgs, "\n")
}

// Each calls f with every problem l holds: the kept ones and, for each
// message with more, the last of them (to give them a place found later).
func (l *List) Each(f func(*Error)) {
	for _, e := range l.Errs {
		f(e)
	}
	for _, msg := range l.order {
		f(l.same[msg].last)
	}
}

// Merge adds the problems of o to l: its kept ones one by one, and its
// counts of the others, under their message where l keeps that message.
func (l *List) Merge(o *List) {
	for _, e := range o.Errs {
		l.Add(e)
	}
	l.Omitted += o.Omitted
	for _, msg := range o.order {
		om := o.same[msg]
		if m := l.same[msg]; m != nil {
			if m.omitted == 0 {
				l.order = append(l.order, msg)
			}
			m.omitted += om.omitted
			m.last = om.last
		}
	}
}

// Unwrap returns the kept problems, so errors.As finds the first *Error.
func (l *List) Unwrap() []error {
	errs := make([]error, len(l.Errs))
	for i, e := range l.Errs {
		errs[i] = e
	}
	return errs
}

// Suggest returns "; did you mean X?" for the name in known that got is
// most likely a misspelling of, or "" when none is close: X differs from
// got only in case, starts with it (at least 2 characters), or is at most
// 1 + len(got)/4 edits (Levenshtein, ignoring case) away; the first in
// known of the closest.
func Suggest(got string, known []string) string {
	g := []rune(strings.ToLower(got))
	if len(g) == 0 {
		return ""
	}
	limit := 1 + len(g)/4
	best, bestD := "", limit+1
	for _, k := range known {
		kr := []rune(strings.ToLower(k))
		d := limit + 1
		switch {
		case string(kr) == string(g):
			d = 0
		case len(g) >= 2 && strings.HasPrefix(string(kr), string(g)):
			d = 1
		case abs(len(kr)-len(g)) <= limit:
			d = editDistance(g, kr)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || best == got {
		return ""
	}
	return "; did you mean " + best + "?"
}

func abs(x int) int { return max(x, -x) }

// editDistance is the Levenshtein distance of a and b, in two rows.
func editDistance(a, b []rune) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range a {
		cur[0] = i + 1
		for j := range b {
			sub := prev[j]
			if a[i] != b[j] {
				sub++
			}
			cur[j+1] = min(sub, prev[j+1]+1, cur[j]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
