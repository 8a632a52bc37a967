package pygen

import (
	"fmt"
	"strings"
)

// genFamilies writes FAMILIES, the kernel families in schema order: each a
// KernelFamily with its kernel names, owner label, upstream sources,
// task-type table and stages (desc_id -> FamilyStage).
func (g *gen) genFamilies() {
	g.P(``)
	g.P(`#: The kernel families in schema order (see KernelFamily).`)
	g.P(`FAMILIES = (`)
	for _, f := range g.s.Families {
		var kernels []string
		for _, k := range f.KernelNames {
			kernels = append(kernels, pyString(k)+",")
		}
		owner := "None"
		if f.OwnerLabel != "" {
			owner = pyString(f.OwnerLabel)
		}
		var tts []string
		for _, t := range f.TaskTypes {
			tts = append(tts, fmt.Sprintf("%d: %s", t.Value, pyString(t.Name)))
		}
		g.comment("    ", "#", f.Doc)
		g.P(`    KernelFamily(`)
		g.P(`        name=%s, kernel_names=(%s), owner_label=%s,`, pyString(f.Name), strings.Join(kernels, " "), owner)
		g.P(`        upstream=%s,`, pyString(f.Upstream))
		g.P(`        task_types={%s},`, strings.Join(tts, ", "))
		g.P(`        stages={`)
		for _, st := range f.Stages {
			tt := "None"
			if st.TaskType != nil {
				tt = fmt.Sprint(st.TaskType.Value)
			}
			g.P(`            0x%X: FamilyStage(%s, %s, %s),`, st.DescID, pyString(st.Name), pyString(string(st.Class)), tt)
		}
		g.P(`        },`)
		g.P(`    ),`)
	}
	g.P(`)`)
}
