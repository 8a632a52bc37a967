package abidiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// families compares the kernel families. Families pair by name; a removed
// and an added family that share a kernel name are one family renamed.
// Within a pair, kernel names pair by schema.KernelKey, task types by
// value and stages by desc_id.
func (c *comparer) families() {
	m := match(c.old.Families, c.new.Families, func(f *schema.Family) string { return f.Name })
	for _, p := range m.pairs {
		c.family(p[0], p[1])
	}
	var added []*schema.Family
	renamed := map[*schema.Family]bool{}
	for _, n := range m.added {
		if o := sharesKernel(m.removed, n, renamed); o != nil {
			renamed[o] = true
			c.add(FamilyRenamed, "families."+n.Name, o.Pos, n.Pos, "family %s renamed %s (kernel names %s): --kernel-family %s is refused",
				o.Name, n.Name, strings.Join(n.KernelNames, ", "), o.Name)
			c.family(o, n)
			continue
		}
		added = append(added, n)
	}
	for _, o := range m.removed {
		if !renamed[o] {
			c.add(FamilyRemoved, "families."+o.Name, o.Pos, none, "removed: %s now read with the schema's own tables", kernelsOf(o))
		}
	}
	for _, n := range added {
		c.add(FamilyAdded, "families."+n.Name, none, n.Pos, "added: %s, %d task types, %d stages", kernelsOf(n), len(n.TaskTypes), len(n.Stages))
	}
}

// sharesKernel returns the first family of old, not yet taken, that has a
// kernel name of n.
func sharesKernel(old []*schema.Family, n *schema.Family, taken map[*schema.Family]bool) *schema.Family {
	for _, o := range old {
		if taken[o] {
			continue
		}
		for _, k := range o.KernelNames {
			if slices.ContainsFunc(n.KernelNames, func(nk string) bool { return schema.KernelKey(nk) == schema.KernelKey(k) }) {
				return o
			}
		}
	}
	return nil
}

// kernelsOf says which captures read under f: "kernels MegaMoe" or
// "captures chosen by --kernel-family".
func kernelsOf(f *schema.Family) string {
	if len(f.KernelNames) == 0 {
		return "captures chosen by --kernel-family " + f.Name
	}
	return "kernels " + strings.Join(f.KernelNames, ", ")
}

func (c *comparer) family(o, n *schema.Family) {
	path := "families." + n.Name
	c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)
	c.doc(path+".upstream", o.Pos, n.Pos, o.Upstream, n.Upstream)
	if o.OwnerLabel != n.OwnerLabel {
		c.add(FamilyOwnerChanged, path+".owner_label", o.Pos, n.Pos, "owner label %q -> %q: detailed names change", o.OwnerLabel, n.OwnerLabel)
	}
	km := match(o.KernelNames, n.KernelNames, schema.KernelKey)
	for _, k := range km.removed {
		c.add(FamilyKernelRemoved, path+".kernel_names", o.Pos, n.Pos, "kernel %s no longer selects %s", k, n.Name)
	}
	for _, k := range km.added {
		c.add(FamilyKernelAdded, path+".kernel_names", o.Pos, n.Pos, "kernel %s selects %s", k, n.Name)
	}
	tkey := func(t *schema.FamilyTaskType) string { return fmt.Sprint(t.Value) }
	tm := match(o.TaskTypes, n.TaskTypes, tkey)
	for _, p := range tm.pairs {
		ot, nt := p[0], p[1]
		tpath := fmt.Sprintf("%s.task_types[%d]", path, nt.Value)
		if ot.Name != nt.Name {
			c.add(FamilyTaskTypeRenamed, tpath, ot.Pos, nt.Pos, "task type %d renamed %s -> %s", nt.Value, ot.Name, nt.Name)
		}
		c.doc(tpath, ot.Pos, nt.Pos, ot.Doc, nt.Doc)
	}
	for _, ot := range tm.removed {
		c.add(FamilyTaskTypeRemoved, fmt.Sprintf("%s.task_types[%d]", path, ot.Value), ot.Pos, none,
			"task type %d (%s) removed: it displays with the fallback", ot.Value, ot.Name)
	}
	for _, nt := range tm.added {
		c.add(FamilyTaskTypeAdded, fmt.Sprintf("%s.task_types[%d]", path, nt.Value), none, nt.Pos, "task type %d named %s", nt.Value, nt.Name)
	}
	skey := func(s *schema.FamilyStage) string { return fmt.Sprint(s.DescID) }
	sm := match(o.Stages, n.Stages, skey)
	for _, p := range sm.pairs {
		ost, nst := p[0], p[1]
		spath := fmt.Sprintf("%s.stages[0x%x]", path, nst.DescID)
		if ost.Name != nst.Name {
			c.add(FamilyStageRenamed, spath, ost.Pos, nst.Pos, "desc_id 0x%x renamed %s -> %s", nst.DescID, ost.Name, nst.Name)
		}
		if ost.Class != nst.Class {
			c.add(FamilyStageReclassed, spath, ost.Pos, nst.Pos, "desc_id 0x%x (%s) class %s -> %s: analysis counts its cycles as %s",
				nst.DescID, nst.Name, ost.Class, nst.Class, nst.Class)
		}
		if ot, nt := stageType(ost), stageType(nst); ot != nt {
			c.add(FamilyStageTypeChanged, spath, ost.Pos, nst.Pos, "desc_id 0x%x (%s) task type %s -> %s", nst.DescID, nst.Name, ot, nt)
		}
		c.doc(spath, ost.Pos, nst.Pos, ost.Doc, nst.Doc)
	}
	for _, ost := range sm.removed {
		c.add(FamilyStageRemoved, fmt.Sprintf("%s.stages[0x%x]", path, ost.DescID), ost.Pos, none,
			"desc_id 0x%x (%s, %s) removed: it displays as the schema names it", ost.DescID, ost.Name, ost.Class)
	}
	for _, nst := range sm.added {
		c.add(FamilyStageAdded, fmt.Sprintf("%s.stages[0x%x]", path, nst.DescID), none, nst.Pos, "desc_id 0x%x named %s (%s)", nst.DescID, nst.Name, nst.Class)
	}
}

// stageType is a stage's task type as "GroupedMatMul (104)", or "none".
func stageType(s *schema.FamilyStage) string {
	if s.TaskType == nil {
		return "none"
	}
	return fmt.Sprintf("%s (%d)", s.TaskType.Name, s.TaskType.Value)
}
