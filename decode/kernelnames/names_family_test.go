package kernelnames

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamesFamily: a names file names first, then the family, then the
// schema; classes come from the family's stages, else the schema's rule
// (TerminateTask and unnamed runtime ids are no class: analyze's "other").
func TestNamesFamily(t *testing.T) {
	file := &Names{Stages: map[uint32]string{0x10002: "FirstGMM"}, Tasks: TaskNamesOf(map[uint32]string{4: "Dispatch"})}
	moe := file.WithFamily(abi.FamilyMegaMoe)
	require.NotSame(t, file, moe, "WithFamily")
	require.Equal(t, abi.Family(abi.FamilyMegaMoe), moe.Family, "WithFamily")
	require.Equal(t, abi.Family(abi.FamilyNone), file.Family, "WithFamily")
	require.Equal(t, "Dispatch", func() string { n, _ := moe.TaskStage(4); return n }(), "WithFamily")
	assert.Nil(t, (*Names)(nil).WithFamily(abi.FamilyNone), "nil names without a family should stay nil")
	for _, c := range []struct {
		n    *Names
		id   uint32
		name string
	}{
		{moe, 0x10002, "FirstGMM"},
		{moe, 0x10001, "Dispatch"},
		{moe, 0x2006B, "TaskType_ShmemGetMem"},
		{moe, 0x10000, "WaitDependency"},
		{file, 0x10001, "DescId_65537"},
		{file, 0x2006B, "TaskType_MhcPost"},
		{nil, 0x2006B, "TaskType_MhcPost"},
		{(*Names)(nil).WithFamily(abi.FamilyMegaGateRoute), 0x30003, "TopK"},
	} {
		assert.Equalf(t, c.name, c.n.StageName(c.id), "StageName(%#x)", c.id)
	}
	for _, c := range []struct {
		n     *Names
		id    uint32
		class abi.StageClass
	}{
		{moe, 0x10001, abi.StageCompute},
		{moe, 0x10000, abi.StageWait},
		{moe, 0x10007, abi.StageTrigger},
		{moe, 0x10006, 0},
		{moe, 0x11001, 0},
		{moe, 0x5, 0},
		{moe, 0x20068, abi.StageCompute},
		{nil, 0x10001, 0},
		{nil, 0x30001, abi.StageCompute},
	} {
		assert.Equalf(t, c.class, c.n.Class(c.id), "Class(%#x) under %v", c.id, c.n.family())
	}
	assert.Equal(t, "ShmemGetMem", moe.TaskTypeName(107), "TaskTypeName(107) under moe")
	assert.Equal(t, "TaskType_141", moe.TaskTypeName(141), "TaskTypeName(141) under moe")
	assert.Equal(t, "ShmemGetMem", file.TaskTypeName(141), "TaskTypeName(141) under file")
}
