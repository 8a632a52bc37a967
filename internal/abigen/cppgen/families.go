package cppgen

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

/*
// Kernel families: ...
namespace families {
// MegaMoe forward: ... Kernel names: MegaMoe. Owner label: Expert.
// Upstream: modules/mega_moe/profiling.py@206213f ...
namespace MegaMoe {
constexpr uint32_t kTaskTypeShmemGetMem = 107;
// Dispatch: compute of a ShmemPutMemSignal task. Tokens sent ...
constexpr uint32_t kStageDispatch = 0x10001;
static_assert(kStageDispatch - kRuntimeStageBase < kRuntimeStageCount, "...");
}  // namespace MegaMoe
}  // namespace families
*/

// genFamilies writes the kernel families: per family a namespace holding
// its task-type values and its stage ids, each stage id pinned to its
// namespace's range. Kernels write these ids; the host names them.
func (g *gen) genFamilies() {
	if len(g.s.Families) == 0 {
		return
	}
	g.P("")
	g.comment("", "Kernel families: the task types and kernel-specific stage ids of each family of kernels "+
		"(task types and stage ids mean different things per family). A family's task types replace the "+
		"TaskType enum's names for its kernels; its stages are descriptor ids its kernels write for a task's "+
		"compute, wait or trigger.")
	g.P("namespace %s {", g.Declare("families", "the kernel families' namespace", schema.Pos{}))
	for _, f := range g.s.Families {
		g.genFamily(f)
	}
	g.P("}  // namespace families")
}

// genFamily writes one family's namespace.
func (g *gen) genFamily(f *schema.Family) {
	g.P("")
	about := f.Doc
	if len(f.KernelNames) > 0 {
		about += " Kernel names: " + strings.Join(f.KernelNames, ", ") + "."
	}
	if f.OwnerLabel != "" {
		about += " Owner label: " + f.OwnerLabel + "."
	}
	about += " Upstream: " + f.Upstream + "."
	g.comment("", about)
	g.P("namespace %s {", f.Name)
	for _, t := range f.TaskTypes {
		g.P("constexpr uint32_t %s = %d;", constName("TaskType", t.Name), t.Value)
	}
	for _, st := range f.Stages {
		what := string(st.Class)
		if st.TaskType != nil {
			what += " of a " + st.TaskType.Name + " task"
		}
		g.comment("", fmt.Sprintf("%s: %s. %s", st.Name, what, st.Doc))
		// A name an earlier stage of the family has (in another
		// namespace) takes its namespace's: MegaMoe's kStageDispatch
		// (0x10001) and kGraphStageDispatch (0x30000).
		name := constName("Stage", st.Name)
		if f.EarlierNamed(st) {
			name = constName(st.Namespace.Name, st.Name)
		}
		g.P("constexpr uint32_t %s = %s;", name, hexLiteral(uint64(st.DescID)))
		base, count := constName(st.Namespace.Name, "Base"), constName(st.Namespace.Name, "Count")
		g.P("static_assert(%s - %s < %s, \"%s.%s must lie in %s (%s)\");", name, base, count, f.Name, st.Name, st.Namespace.Name, g.s.File)
	}
	g.P("}  // namespace %s", f.Name)
}
