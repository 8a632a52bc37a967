package abi_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestDescName(t *testing.T) {
	for id, want := range map[uint32]string{
		0x10000: "WaitDependency",
		0x10006: "TerminateTask",
		0x10007: "TriggerEvent",
		0x10001: "DescId_65537",
		0x20000: "TaskType_Terminate",
		0x20067: "TaskType_MatMul",
		0x2008D: "TaskType_ShmemGetMem",
		0x2FFFF: "TaskType_65535",
		0x20002: "TaskType_2",
		// Deliberate change from the reference: graph stages are their own range.
		0x30005:    "GraphStage_5",
		0x3FFFF:    "GraphStage_65535",
		0x50000:    "DescId_327680",
		0x0FFFF:    "DescId_65535",
		0:          "DescId_0",
		0xFFFFFFFF: "DescId_4294967295",
	} {
		assert.Equalf(t, want, abi.DescName(id), "DescName(%#x)", id)
	}
}

func TestDescSchemaName(t *testing.T) {
	name, ok := abi.DescSchemaName(abi.TaskTypeBase + uint32(abi.TaskTypeShmemPutMemSignal))
	assert.Truef(t, ok, "ShmemPutMemSignal, %v", ok)
	assert.Equalf(t, "TaskType_ShmemPutMemSignal", name, "ShmemPutMemSignal, %v", ok)
	for _, id := range []uint32{0x10001, 0x30005, 0x2FFFF, 0x50000} {
		name, ok := abi.DescSchemaName(id)
		assert.Falsef(t, ok, "DescSchemaName(%#x) = %q: the schema does not name it", id, name)
	}
	// Every task type is named in the task-type range.
	for _, tt := range abi.TaskTypes() {
		name, ok := abi.DescSchemaName(abi.TaskTypeBase + uint32(tt))
		require.Truef(t, ok, "task type %s, %v", tt, ok)
		assert.Equalf(t, "TaskType_"+tt.String(), name, "task type %s, %v", tt, ok)
	}
}

func TestLookupDesc(t *testing.T) {
	for id, want := range map[uint32]struct {
		ns    abi.Namespace
		index uint32
	}{
		0x10000: {abi.NamespaceRuntimeStage, 0},
		0x1FFFF: {abi.NamespaceRuntimeStage, 0xFFFF},
		0x20067: {abi.NamespaceTaskType, 103},
		0x30005: {abi.NamespaceGraphStage, 5},
		0xFFFF:  {abi.NamespaceNone, 0xFFFF},
		0x40000: {abi.NamespaceNone, 0x40000},
	} {
		ns, index := abi.LookupDesc(id)
		assert.Equalf(t, want.ns, ns, "LookupDesc(%#x)", id)
		assert.Equalf(t, want.index, index, "LookupDesc(%#x)", id)
	}
}

// TestLookupDescProperty: an id is in a namespace exactly when it lies in
// [Base, Base+Count), and its index is the distance from Base.
func TestLookupDescProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.OneOf(rapid.Uint32(), rapid.Uint32Range(0xFFF0, 0x40010)).Draw(t, "id")
		ns, index := abi.LookupDesc(id)
		var in abi.Namespace
		for _, n := range abi.Namespaces() {
			if uint64(id) >= uint64(n.Base()) && uint64(id) < uint64(n.Base())+uint64(n.Count()) {
				in = n
			}
		}
		require.Equalf(t, in, ns, "LookupDesc(%#x)", id)
		require.Falsef(t, ns != abi.NamespaceNone && index != id-ns.Base(), "index %d of %#x in %v", index, id, ns)
		require.NotEmptyf(t, abi.DescName(id), "DescName(%#x) is empty", id)
	})
}

func TestNamespaces(t *testing.T) {
	for _, c := range []struct {
		ns          abi.Namespace
		name, arg   string
		base, count uint32
	}{
		{abi.NamespaceNone, "None", "", 0, 0},
		{abi.NamespaceRuntimeStage, "RuntimeStage", "", 0x10000, 0x10000},
		{abi.NamespaceTaskType, "TaskType", "task_type", 0x20000, 0x10000},
		{abi.NamespaceGraphStage, "GraphStage", "graph_stage", 0x30000, 0x10000},
	} {
		assert.Equalf(t, c.name, c.ns.String(), "%s: String", c.name)
		assert.Equalf(t, c.arg, c.ns.Arg(), "%s: Arg", c.name)
		assert.Equalf(t, c.base, c.ns.Base(), "%s: Base", c.name)
		assert.Equalf(t, c.count, c.ns.Count(), "%s: Count", c.name)

	}
	assert.Equal(t, "Namespace(9)", abi.Namespace(9).String(), "Namespace(9).String()")
	got := abi.Namespaces()
	require.Len(t, got, 3, "Namespaces()")
	assert.Equal(t, abi.Namespace(abi.NamespaceRuntimeStage), got[0], "Namespaces()")
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{abi.FormatFallback(abi.NamespaceGraphStage, 0x30005), "GraphStage_5"},
		{abi.FormatFallback(abi.NamespaceTaskType, 0x2FFFF), "TaskType_65535"},
		{abi.FormatFallback(abi.NamespaceRuntimeStage, 0x10001), "DescId_65537"},
		{abi.FormatFallback(abi.NamespaceNone, 0x50000), "DescId_327680"},
		// An id outside the namespace given is an unknown id, not a wrapped index.
		{abi.FormatFallback(abi.NamespaceGraphStage, 0x20005), "DescId_131077"},
		{abi.FormatFallback(abi.NamespaceTaskType, 0x5), "DescId_5"},
		{abi.FormatDisplay(abi.NamespaceGraphStage, 0x30005, "Attention"), "Attention"},
		{abi.FormatDisplay(abi.NamespaceTaskType, 0x20067, "MatMul"), "TaskType_MatMul"},
		{abi.FormatDisplay(abi.NamespaceGraphStage, 0x40000, "X"), "DescId_262144"},
	} {
		assert.Equal(t, c.want, c.got)
	}
}

func TestTaskStagePrefixed(t *testing.T) {
	for id, want := range map[uint32]bool{
		abi.RuntimeStageWaitDependency: true,
		abi.RuntimeStageTriggerEvent:   true,
		abi.RuntimeStageTerminateTask:  false,
		0x20067:                        false,
		0x30000:                        false,
	} {
		assert.Equalf(t, want, abi.TaskStagePrefixed(id), "TaskStagePrefixed(%#x)", id)
	}
	assert.Equal(t, abi.RuntimeStageWaitDependency, uint32(0x10000), "runtime stage ids differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, abi.RuntimeStageTerminateTask, uint32(0x10006), "runtime stage ids differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
	assert.Equal(t, abi.RuntimeStageTriggerEvent, uint32(0x10007), "runtime stage ids differ from the reference decoder (decode/testdata/reference/cycle_trace.py)")
}
