package abi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		assert.Equalf(t, want, got, "FamilyForKernel(%q)", kernel)
		assert.Equalf(t, (want != FamilyNone), ok, "FamilyForKernel(%q)", kernel)
	}
	f, ok := FamilyByName("megagateroutegradk1")
	assert.Truef(t, ok, "FamilyByName(megagateroutegradk1), %v", ok)
	assert.Equalf(t, FamilyMegaGateRouteGradK1, f, "FamilyByName(megagateroutegradk1), %v", ok)
	_, ok = FamilyByName("MoE")
	assert.False(t, ok, "FamilyByName matches a partial name")
	for _, f := range Families() {
		g, ok := FamilyByName(f.String())
		assert.True(t, ok)
		assert.Equal(t, f, g)
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
		assert.Equalf(t, c.want, c.f.DescName(c.id), "%v.DescName(%#x)", c.f, c.id)
	}
	st, ok := FamilyMegaMoe.Stage(0x10002)
	assert.Truef(t, ok, "MegaMoe stage 0x10002 = %+v, %v", st, ok)
	assert.Equalf(t, "GMM1", st.Name, "MegaMoe stage 0x10002 = %+v, %v", st, ok)
	assert.Equalf(t, StageCompute, st.Class, "MegaMoe stage 0x10002 = %+v, %v", st, ok)
	assert.Truef(t, st.HasTaskType, "MegaMoe stage 0x10002 = %+v, %v", st, ok)
	assert.Equalf(t, uint32(TaskTypeGroupedMatMul), st.TaskType, "MegaMoe stage 0x10002 = %+v, %v", st, ok)
	_, ok = FamilyNone.Stage(0x10002)
	assert.False(t, ok, "FamilyNone has a stage")

	require.Equal(t, "Expert", FamilyMegaMoe.OwnerLabel(), "owner labels")
	assert.Equal(t, "TokenRowShard", FamilyMegaGateRoute.OwnerLabel(), "owner labels")
	require.Equal(t, "Family(200)", Family(200).String(), "an unnamed family")
	require.False(t, Family(200).Valid(), "an unnamed family")
	assert.False(t, FamilyNone.Valid(), "an unnamed family")
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
		assert.Equalf(t, c.want, got, "%v.ParseTaskType(%q)", c.f, c.name)
		assert.Equalf(t, c.ok, ok, "%v.ParseTaskType(%q)", c.f, c.name)
	}
	names := FamilyMegaMoe.TaskTypeNames()
	require.Len(t, names, 9, "FamilyMegaMoe.TaskTypeNames()")
	require.Equal(t, "Terminate", names[0], "FamilyMegaMoe.TaskTypeNames()")
	assert.Equal(t, "ShmemGetMem", names[8], "FamilyMegaMoe.TaskTypeNames()")
	for _, f := range append(Families(), FamilyNone) {
		for _, name := range f.TaskTypeNames() {
			v, ok := f.ParseTaskType(name)
			back, _ := f.TaskTypeName(v)
			assert.Truef(t, ok, "%v parses to %d (%v), which is named", f, v, ok)
			assert.Equalf(t, name, back, "%v parses to %d (%v), which is named", f, v, ok)
		}
	}
}
