package docgen

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// families documents the kernel families: how one is chosen, then per
// family its kernel names, owner label, upstream sources, the task types
// that differ from the enum's, and its stage ids with their classes.
func (g *gen) families() {
	fams := g.s.Families
	if len(fams) == 0 {
		return
	}
	tt := g.s.Descriptors.TaskTypeNamespace()
	g.p("")
	g.p("## Kernel families")
	g.p("")
	g.p("Task types and kernel-specific stage ids mean different things per family of")
	g.p("kernels. A capture is read under at most one family: `--kernel-family NAME`, or")
	g.p("else the family whose kernel names include `--kernel-name` (or a trace's")
	g.p("kernelName), compared ignoring case and `_`. Without one, the enum and the")
	g.p("namespaces above apply. Under a family its task types replace the enum's names")
	g.p("entirely (a value it does not list displays with the fallback), and its stages")
	g.p("name descriptor ids the namespaces leave unnamed; a stage's class (compute,")
	g.p("wait or trigger) is what analysis counts its cycles as. A names file still")
	g.p("names first.")
	g.p("")
	g.p("| family | kernel names | owner label | task types | stages | upstream |")
	g.p("|---|---|---|---:|---:|---|")
	for _, f := range fams {
		g.p("| [%s](#family-%s) | %s | %s | %d | %d | %s |", f.Name, strings.ToLower(f.Name), codes(f.KernelNames), code(f.OwnerLabel),
			len(f.TaskTypes), len(f.Stages), cell(f.Upstream))
	}
	for _, f := range fams {
		g.p("")
		g.p("### Family %s", f.Name)
		g.p("")
		g.p("%s", cell(f.Doc))
		if tt != nil {
			g.p("")
			g.p("Task types: %s.", g.familyTaskTypes(f, tt))
		}
		if len(f.Stages) == 0 {
			continue
		}
		g.p("")
		g.p("| desc_id | namespace | name | displays as | class | task type | doc |")
		g.p("|---|---|---|---|---|---|---|")
		for _, st := range f.Stages {
			task := ""
			if st.TaskType != nil {
				task = fmt.Sprintf("`%s` (%d)", st.TaskType.Name, st.TaskType.Value)
			}
			id := uint64(st.DescID)
			g.p("| 0x%x | %s | `%s` | %s | %s | %s | %s |", id, st.Namespace.Name, st.Name,
				code(display(st.Namespace.Display, st.Name, uint32(id-uint64(st.Namespace.Base)), id)), st.Class, task, cell(st.Doc))
		}
	}
}

// familyTaskTypes lists a family's task types as "value Name", marking
// those that differ from the enum's member of that value.
func (g *gen) familyTaskTypes(f *schema.Family, tt *schema.Namespace) string {
	enum := map[uint32]string{}
	for _, v := range tt.Enum.Values {
		enum[v.Value] = v.Name
	}
	var items []string
	for _, t := range f.TaskTypes {
		item := fmt.Sprintf("%d `%s`", t.Value, t.Name)
		if e, ok := enum[t.Value]; ok && e != t.Name {
			item += fmt.Sprintf(" (enum: `%s`)", e)
		} else if !ok {
			item += " (not in the enum)"
		}
		items = append(items, item)
	}
	listed := map[uint32]bool{}
	for _, t := range f.TaskTypes {
		listed[t.Value] = true
	}
	var dropped []string
	for _, v := range tt.Enum.Values {
		if !listed[v.Value] {
			dropped = append(dropped, fmt.Sprintf("%d", v.Value))
		}
	}
	s := strings.Join(items, ", ")
	if len(dropped) > 0 {
		s += "; unnamed under this family: " + strings.Join(dropped, ", ")
	}
	return s
}

// codes quotes each of names as inline code, comma-separated ("" for none).
func codes(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, code(n))
	}
	return strings.Join(out, ", ")
}
