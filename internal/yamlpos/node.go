package yamlpos

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Reader reads the nodes of one YAML file, the same way for every file
// cycleabi reads, and collects every problem in Errs:
//
//   - Aliases are followed to the node they name, everywhere.
//   - Null (~, null, or nothing) is a value of its own: a required value
//     given as null is a problem ("expected a string, got null"); callers
//     decide where null means "absent".
//   - A string is any scalar but null, taken as written: `name: 123` is
//     "123", `doc: yes` is "yes", `mode: 1` is the mode named "1". Only a
//     mapping, a list or null is "not a string".
//   - An integer is a scalar YAML resolves as !!int (decimal, 0x hex, 0o
//     octal, 0b binary, with _ separators); `"3"` and 3.0 are not.
//   - A boolean is true or false (!!bool).
//   - A mapping's keys are compared as written; unknown and duplicate keys
//     are problems at the key, missing required ones at the mapping.
//
// Methods take a node that may be nil (an absent key) and then report
// nothing and return the zero value, false: absence is reported once, by
// Mapping.
type Reader struct {
	File string
	Errs List
}

// Errorf records the problem msg at node n and YAML path.
func (r *Reader) Errorf(n *yaml.Node, path, format string, args ...any) {
	r.Errs.Add(At(r.File, n, path, format, args...))
}

// listIndexRE matches the list indices of a YAML path.
var listIndexRE = regexp.MustCompile(`\[\d+\]`)

// Unknown records the problem of a name that is none of the known ones (a
// misspelt key, task type or mode), what it is naming it: `unknown WHAT
// "name"`, with the closest known name suggested (Suggest), and the known
// names as the problem's note, which its List says once.
func (r *Reader) Unknown(n *yaml.Node, path, what, name string, known []string) {
	e := At(r.File, n, path, "unknown %s %q%s", what, name, Suggest(name, known))
	e.Note = "known " + what + "s"
	if what == "key" {
		// The keys known depend on the mapping: say which, its list
		// indices dropped (an entry of tasks[] for tasks[3]), as the note
		// is one for every entry.
		m := listIndexRE.ReplaceAllString(strings.TrimSuffix(strings.TrimSuffix(path, name), "."), "[]")
		switch {
		case m == "[]":
			e.Note += " of an entry"
		case strings.HasSuffix(m, "[]"):
			e.Note += " of an entry of " + m
		case m != "":
			e.Note += " of " + m
		}
	}
	e.Note += ": " + strings.Join(known, ", ")
	r.Errs.Add(e)
}

// Join appends key to a YAML path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Mapping reads a mapping node: the value under each key in known,
// aliases resolved. Unknown and duplicate keys are reported at the key
// (path "path.key"), keys in required that are absent at the mapping. A
// node that is not a mapping is reported and gives nil.
func (r *Reader) Mapping(n *yaml.Node, path string, known, required []string) map[string]*yaml.Node {
	if n == nil {
		return nil
	}
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, path, "expected a mapping, got %s", KindName(n))
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Resolve(n.Content[i]), n.Content[i+1]
		if !contains(known, k.Value) {
			r.Unknown(k, Join(path, k.Value), "key", k.Value, known)
			continue
		}
		if _, dup := out[k.Value]; dup {
			r.Errorf(k, Join(path, k.Value), "duplicate key %q", k.Value)
			continue
		}
		out[k.Value] = Resolve(v)
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			r.Errorf(n, path, "missing required key %q", k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Seq reads a list node's items (aliases not yet resolved).
func (r *Reader) Seq(n *yaml.Node, path string) []*yaml.Node {
	if n == nil {
		return nil
	}
	n = Resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.Errorf(n, path, "expected a list, got %s", KindName(n))
		return nil
	}
	return n.Content
}

// IsString reports whether n is a string by the Reader's rule: a scalar
// other than null.
func IsString(n *yaml.Node) bool {
	n = Resolve(n)
	return n.Kind == yaml.ScalarNode && n.Tag != "!!null"
}

// Str reads a string: any scalar but null, as written.
func (r *Reader) Str(n *yaml.Node, path string) (string, bool) {
	if n == nil {
		return "", false
	}
	n = Resolve(n)
	if !IsString(n) {
		r.Errorf(n, path, "expected a string, got %s", KindName(n))
		return "", false
	}
	return n.Value, true
}

// Int reads an integer in [min, max].
func (r *Reader) Int(n *yaml.Node, path string, min, max int64) (int64, bool) {
	if n == nil {
		return 0, false
	}
	n = Resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		r.Errorf(n, path, "expected an integer, got %s", KindName(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	switch {
	case err != nil:
		r.Errorf(n, path, "integer %s does not fit in 64 bits", n.Value)
	case v < min:
		r.Errorf(n, path, "%d is below the minimum %d", v, min)
	case v > max:
		r.Errorf(n, path, "%d exceeds the maximum %d", v, max)
	default:
		return v, true
	}
	return 0, false
}

// Uint reads a non-negative integer of at most max (up to 2^64-1).
func (r *Reader) Uint(n *yaml.Node, path string, max uint64) (uint64, bool) {
	if n == nil {
		return 0, false
	}
	n = Resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		r.Errorf(n, path, "expected a non-negative integer, got %s", KindName(n))
		return 0, false
	}
	v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil {
		r.Errorf(n, path, "expected a non-negative integer that fits in 64 bits, got %s", n.Value)
		return 0, false
	}
	if v > max {
		r.Errorf(n, path, "%d exceeds the maximum %d", v, max)
		return 0, false
	}
	return v, true
}

// Bool reads true or false.
func (r *Reader) Bool(n *yaml.Node, path string) (bool, bool) {
	if n == nil {
		return false, false
	}
	n = Resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		r.Errorf(n, path, "expected true or false, got %s", KindName(n))
		return false, false
	}
	// go-yaml resolves true, True, TRUE and the same of false as !!bool.
	return strings.EqualFold(n.Value, "true"), true
}
