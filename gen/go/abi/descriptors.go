package abi

// This file is hand-written: descriptor-ID lookup and display over the
// schema's namespace table (namespaces, in descriptors_gen.go).

import (
	"strconv"
	"strings"
)

// Namespace is a descriptor-ID namespace: a range of desc_id values that
// share a meaning and a display format. The ranges are disjoint.
type Namespace uint8

// namespaceSpec is one row of the generated namespace table.
type namespaceSpec struct {
	name        string // schema name ("TaskType")
	base, count uint32 // the range [base, base+count)
	// display formats a named index ({name}, {index}, {desc_id}); fallback
	// an unnamed one ({index}, {desc_id}).
	display, fallback string
	arg               string     // trace-event argument carrying the index; "" = none
	names             []descName // the named indexes, from names: or an enum
}

// descName is a named index of a namespace.
type descName struct {
	index           uint32
	name            string
	taskStagePrefix bool // the display name is prefixed with the task's stage name
}

// spec returns n's row of the table; nil for NamespaceNone and values the
// schema does not name.
func (n Namespace) spec() *namespaceSpec {
	if n == NamespaceNone || int(n) > len(namespaces) {
		return nil
	}
	return &namespaces[n-1]
}

// Namespaces returns every namespace in schema order (not NamespaceNone).
func Namespaces() []Namespace {
	out := make([]Namespace, len(namespaces))
	for i := range namespaces {
		out[i] = Namespace(i + 1)
	}
	return out
}

// String returns the namespace's schema name ("RuntimeStage"), "None" for
// NamespaceNone and "Namespace(9)" for a value the schema does not name.
func (n Namespace) String() string {
	if n == NamespaceNone {
		return "None"
	}
	if s := n.spec(); s != nil {
		return s.name
	}
	return "Namespace(" + strconv.Itoa(int(n)) + ")"
}

// Base returns the first desc_id of the namespace, 0 for NamespaceNone.
func (n Namespace) Base() uint32 {
	if s := n.spec(); s != nil {
		return s.base
	}
	return 0
}

// Count returns the number of desc_ids in the namespace, 0 for NamespaceNone.
func (n Namespace) Count() uint32 {
	if s := n.spec(); s != nil {
		return s.count
	}
	return 0
}

// Arg returns the name of the trace-event argument that carries an id's index
// within the namespace ("task_type" for TaskType, "graph_stage" for
// GraphStage); "" when the namespace has none.
func (n Namespace) Arg() string {
	if s := n.spec(); s != nil {
		return s.arg
	}
	return ""
}

// LookupDesc returns the namespace of desc_id id and id's index within it;
// NamespaceNone and id itself when no namespace contains id.
func LookupDesc(id uint32) (Namespace, uint32) {
	for i := range namespaces {
		// id-base wraps past count when id < base: one comparison checks both ends.
		if s := &namespaces[i]; id-s.base < s.count {
			return Namespace(i + 1), id - s.base
		}
	}
	return NamespaceNone, id
}

// schemaDesc is what the schema says of a desc_id it names.
type schemaDesc struct {
	display         string
	taskStagePrefix bool
}

// schemaDescs holds every desc_id the schema names, by id.
var schemaDescs = func() map[uint32]schemaDesc {
	m := map[uint32]schemaDesc{}
	for i := range namespaces {
		s := &namespaces[i]
		for _, d := range s.names {
			id := s.base + d.index
			m[id] = schemaDesc{display: expandDesc(s.display, d.name, d.index, id), taskStagePrefix: d.taskStagePrefix}
		}
	}
	return m
}()

// DescSchemaName returns the display name of desc_id id when the schema names
// it ("WaitDependency", "TaskType_Terminate"), and whether it does. Names that
// come from elsewhere, such as graph-stage names from a kernel's names file,
// are the caller's to look up first.
func DescSchemaName(id uint32) (string, bool) {
	d, ok := schemaDescs[id]
	return d.display, ok
}

// DescName returns the display name of desc_id id from the schema alone: the
// schema's name for it if there is one, else its namespace's fallback
// format, else the format for ids outside every namespace ("DescId_{desc_id}").
func DescName(id uint32) string {
	if name, ok := DescSchemaName(id); ok {
		return name
	}
	ns, _ := LookupDesc(id)
	return FormatFallback(ns, id)
}

// TaskStagePrefixed reports whether the display name of desc_id id is prefixed
// with the task's stage name when the task has one ("<TaskStage>_WaitDependency").
func TaskStagePrefixed(id uint32) bool {
	return schemaDescs[id].taskStagePrefix
}

// FormatFallback returns the display name the namespace ns gives an id it does
// not name ("TaskType_5", "GraphStage_5"). For NamespaceNone, or an id outside
// ns, it is the unknown-id format ("DescId_{desc_id}").
func FormatFallback(ns Namespace, id uint32) string {
	s := ns.spec()
	if s == nil || id-s.base >= s.count {
		return expandDesc(unknownDescFormat, "", 0, id)
	}
	return expandDesc(s.fallback, "", id-s.base, id)
}

// FormatDisplay returns the display name of id in namespace ns for a name that
// comes from outside the schema, such as a graph-stage name from a kernel's
// names file: the namespace's display format with {name} = name. For
// NamespaceNone, or an id outside ns, it is the unknown-id format
// ("DescId_{desc_id}").
func FormatDisplay(ns Namespace, id uint32, name string) string {
	s := ns.spec()
	if s == nil || id-s.base >= s.count {
		return expandDesc(unknownDescFormat, "", 0, id)
	}
	return expandDesc(s.display, name, id-s.base, id)
}

// expandDesc fills a display format's placeholders: {name}, {index} (decimal)
// and {desc_id} (decimal). The schema loader allows no others. A name is
// inserted as it is, even when it holds a placeholder's text.
func expandDesc(format, name string, index, id uint32) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(format, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(format[open:], '}')
		if end < 0 {
			break
		}
		b.WriteString(format[:open])
		switch format[open : open+end+1] {
		case "{name}":
			b.WriteString(name)
		case "{index}":
			b.WriteString(strconv.FormatUint(uint64(index), 10))
		case "{desc_id}":
			b.WriteString(strconv.FormatUint(uint64(id), 10))
		default:
			b.WriteString(format[open : open+end+1])
		}
		format = format[open+end+1:]
	}
	b.WriteString(format)
	return b.String()
}
