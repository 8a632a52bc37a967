package abi

import "testing"

// TestFamilyForKernel checks the matching rule: upstream's kernel names,
// compared ignoring case and '_'; no partial matches.
func TestFamilyForKernel(t *testing.T) {
	cases := map[string]Family{
		"MegaMoe": FamilyMegaMoe, "megamoe": FamilyMegaMoe, "Mega_Moe": FamilyMegaMoe, " MEGA_MOE ": FamilyMegaMoe,
		"MegaMoeGrad": FamilyMegaMoeGrad, "mega_moe_grad": FamilyMegaMoeGrad,
		"HyperMegaMhc": FamilyMegaMhc, "hyper_mega_mhc_grad": FamilyMegaMhcGrad,
		"HyperMegaGateRoute": FamilyMegaGateRoute, "HyperMegaGateRouteGrad": FamilyMegaGateRouteGrad,
		"MegaMoeX": FamilyNone, "Mega": FamilyNone, "": FamilyNone, "MegaKernel": FamilyNone, "HyperMegaMoe": FamilyNone,
	}
	for kernel, want := range cases {
		got, ok := FamilyForKernel(kernel)
		if got != want || ok != (want != FamilyNone) {
			t.Errorf("FamilyForKernel(%q) = %v, %v; want %v", kernel, got, ok, want)
		}
	}
	if f, ok := FamilyByName("megagateroutegradk1"); !ok || f != FamilyMegaGateRouteGradK1 {
		t.Errorf("FamilyByName(megagateroutegradk1) = %v, %v", f, ok)
	}
	if _, ok := FamilyByName("MoE"); ok {
		t.Error("FamilyByName matches a partial name")
	}
	for _, f := range Families() {
		if g, ok := FamilyByName(f.String()); !ok || g != f {
			t.Errorf("%v does not round-trip through FamilyByName", f)
		}
	}
}

// TestFamilyNames checks display names under families against upstream's
// rules: a stage id by its stage name, a task type by the family's table
// only (107 is ShmemGetMem in MoE, MhcPost in MHC, GateSoftplus in Gate,
// and 141 is nameless outside the seed), runtime stages as everywhere.
func TestFamilyNames(t *testing.T) {
	cases := []struct {
		f    Family
		id   uint32
		want string
	}{
		{FamilyNone, 0x2006B, "TaskType_MhcPost"},
		{FamilyNone, 0x2008D, "TaskType_ShmemGetMem"},
		{FamilyNone, 0x10001, "DescId_65537"},
		{FamilyMegaMoe, 0x2006B, "TaskType_ShmemGetMem"},
		{FamilyMegaMoe, 0x2008D, "TaskType_141"},
		{FamilyMegaMoe, 0x2006C, "TaskType_108"},
		{FamilyMegaMoe, 0x10001, "Dispatch"},
		{FamilyMegaMoe, 0x10005, "Combine"},
		{FamilyMegaMoe, 0x11001, "DescId_69633"},
		{FamilyMegaMoeGrad, 0x11007, "CombineGrad"},
		{FamilyMegaMoe, 0x10000, "WaitDependency"},
		{FamilyMegaMoe, 0x10006, "TerminateTask"},
		{FamilyMegaMoe, 0x10007, "TriggerEvent"},
		{FamilyMegaMhc, 0x2006B, "TaskType_MhcPost"},
		{FamilyMegaMhc, 0x30000, "GraphStage_0"},
		{FamilyMegaGateRoute, 0x2006B, "TaskType_GateSoftplus"},
		{FamilyMegaGateRoute, 0x2007F, "TaskType_GateGradZeros"},
		{FamilyMegaGateRoute, 0x30003, "TopK"},
		{FamilyMegaGateRoute, 0x3000A, "GraphStage_10"},
		{FamilyMegaGateRouteGrad, 0x3000A, "ZerosLike"},
		{FamilyMegaGateRouteGradK1, 0x30001, "ZerosLike"},
	}
	for _, c := range cases {
		if got := c.f.DescName(c.id); got != c.want {
			t.Errorf("%v.DescName(%#x) = %q, want %q", c.f, c.id, got, c.want)
		}
	}
	st, ok := FamilyMegaMoe.Stage(0x10002)
	if !ok || st.Name != "GMM1" || st.Class != StageCompute || !st.HasTaskType || st.TaskType != uint32(TaskTypeGroupedMatMul) {
		t.Errorf("MegaMoe stage 0x10002 = %+v, %v", st, ok)
	}
	if _, ok := FamilyNone.Stage(0x10002); ok {
		t.Error("FamilyNone has a stage")
	}
	if FamilyMegaMoe.OwnerLabel() != "Expert" || FamilyMegaGateRoute.OwnerLabel() != "TokenRowShard" {
		t.Error("owner labels")
	}
	if Family(200).String() != "Family(200)" || Family(200).Valid() || FamilyNone.Valid() {
		t.Error("an unnamed family")
	}
}

// TestFamilyParseTaskType: a task-type name is looked up in the family's
// table (ShmemGetMem is 107 under the MoE families, upstream's
// TASK_SHMEM_GET_MEM; 141 in the schema's own enum), and a name the table
// lacks is none.
func TestFamilyParseTaskType(t *testing.T) {
	cases := []struct {
		f    Family
		name string
		want uint32
		ok   bool
	}{
		{FamilyMegaMoe, "ShmemGetMem", 107, true},
		{FamilyMegaMoeGrad, "ShmemGetMem", 107, true},
		{FamilyNone, "ShmemGetMem", 141, true},
		{FamilyMegaMhc, "ShmemGetMem", 0, false},
		{FamilyMegaMhc, "MhcPost", 107, true},
		{FamilyMegaGateRoute, "GateSoftplus", 107, true},
		{FamilyMegaGateRouteGen, "GateSoftplus", 108, true},
		{FamilyMegaMoe, "RmsNorm", 0, false},
		{FamilyNone, "RmsNorm", 111, true},
		{Family(200), "MatMul", 0, false},
	}
	for _, c := range cases {
		got, ok := c.f.ParseTaskType(c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("%v.ParseTaskType(%q) = %d, %v; want %d, %v", c.f, c.name, got, ok, c.want, c.ok)
		}
	}
	names := FamilyMegaMoe.TaskTypeNames()
	if len(names) != 9 || names[0] != "Terminate" || names[8] != "ShmemGetMem" {
		t.Errorf("FamilyMegaMoe.TaskTypeNames() = %v", names)
	}
	for _, f := range append(Families(), FamilyNone) {
		for _, name := range f.TaskTypeNames() {
			v, ok := f.ParseTaskType(name)
			if back, _ := f.TaskTypeName(v); !ok || back != name {
				t.Errorf("%v: %q parses to %d (%v), which is named %q", f, name, v, ok, back)
			}
		}
	}
}
