package chromejson

import (
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	wait    = abi.RuntimeStageWaitDependency
	trigger = abi.RuntimeStageTriggerEvent
	noOwner = abi.InvalidOwnerID
)

func taskType(t abi.TaskType) uint32 { return abi.TaskTypeBase + uint32(t) }

// namingCapture exercises every naming rule of docs/decode.md: task-stage
// prefixes on WaitDependency and TriggerEvent (and not on TerminateTask),
// named and unnamed task types, named and unnamed graph stages, user
// stages overriding the schema and naming runtime ids, the DescId
// fallback inside and outside the namespaces, owners and no owners; plus
// a slot out of start order, equal starts on AIC and AIV, a core that
// never recorded anything but dropped records, a core with no entry cycle,
// and an unused slot.
func namingCapture() (*capturetest.Builder, *kernelnames.Names) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	rec := func(t abi.CoreType, block uint32, start, end uint64, desc, task, index, owner uint32) {
		b.Write(t, block, abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: desc, TaskID: task, StageTaskIndex: index, OwnerID: owner})
	}
	const aic, aiv = abi.CoreTypeAIC, abi.CoreTypeAIV
	b.Enter(aic, 0, 1000)
	rec(aic, 0, 1000, 1050, wait, 1, 0, 3)                                // Gate_WaitDependency, owner 3
	rec(aic, 0, 1050, 1600, taskType(abi.TaskTypeMatMul), 1, 0, 3)        // TaskType_MatMul
	rec(aic, 0, 1600, 1610, trigger, 1, 0, 3)                             // Gate_TriggerEvent
	rec(aic, 0, 1700, 1720, wait, 9, 4, noOwner)                          // task 9 has no stage: WaitDependency
	rec(aic, 0, 1720, 1800, abi.TaskTypeBase+250, 9, 4, noOwner)          // TaskType_250
	rec(aic, 0, 1800, 1805, trigger, 9, 4, noOwner)                       // TriggerEvent
	rec(aic, 0, 1805, 1900, taskType(abi.TaskTypeGroupedMatMul), 4, 7, 0) // user override: GroupedGEMM, owner 0
	b.Enter(aic, 2, 0)                                                    // no entry cycle
	rec(aic, 2, 2000, 2010, abi.RuntimeStageTerminateTask, 1, 0, noOwner) // TerminateTask: never prefixed
	b.Enter(aiv, 0, 900)
	rec(aiv, 0, 1050, 1100, abi.GraphStageBase, 4, 0, 1)           // Dispatch (named graph stage), same start as AIC/0
	rec(aiv, 0, 1100, 1300, abi.GraphStageBase+5, 4, 1, 1)         // GraphStage_5
	rec(aiv, 0, 1300, 1310, abi.RuntimeStageBase+1, 4, 2, noOwner) // Prefetch (user-named runtime id)
	rec(aiv, 0, 1310, 1320, abi.RuntimeStageBase+2, 4, 3, noOwner) // DescId_65538
	rec(aiv, 0, 1320, 1330, 7, 4, 4, noOwner)                      // DescId_7
	rec(aiv, 0, 1330, 1340, 0x40000, 4, 5, noOwner)                // DescId_262144 (past every namespace)
	rec(aiv, 0, 1340, 1400, trigger, 4, 5, noOwner)                // Combine_TriggerEvent
	b.Enter(aiv, 5, 950)                                           // out of start order: sorted before merging, ties in record order
	rec(aiv, 5, 1500, 1520, taskType(abi.TaskTypeSwiGLU), 6, 0, noOwner)
	rec(aiv, 5, 1200, 1210, wait, 6, 0, noOwner)
	rec(aiv, 5, 1500, 1501, trigger, 6, 0, noOwner)
	b.SetHeader32(aiv, 5, abi.CoreHeaderDroppedCountOffset, 2)
	b.Enter(aiv, 7, 800) // entered, wrote nothing, dropped 5: no thread, entry not the anchor
	b.SetHeader32(aiv, 7, abi.CoreHeaderDroppedCountOffset, 5)
	names := &kernelnames.Names{
		Stages: map[uint32]string{
			abi.GraphStageBase:                  "Dispatch",
			abi.RuntimeStageBase + 1:            "Prefetch",
			taskType(abi.TaskTypeGroupedMatMul): "GroupedGEMM",
		},
		Tasks: kernelnames.TaskNamesOf(map[uint32]string{1: "Gate", 4: "Combine", 6: "SwiGLU"}),
	}
	return b, names
}

type goldenCase struct {
	name   string
	inputs func(t *testing.T) []render.Input
}

func goldenCases() []goldenCase {
	planned16 := capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}}
	decodeT := func(t *testing.T, name string, buf []byte, o capture.Request) *decode.Decoded {
		t.Helper()
		d, err := decodetest.Decode(name, buf, o)
		require.NoError(t, err)
		return d
	}
	return []goldenCase{
		{"naming", func(t *testing.T) []render.Input {
			b, names := namingCapture()
			cfg := decodetest.DefaultConfig()
			cfg.Names = names
			return []render.Input{{Decoded: decodeT(t, "naming.bin", b.Bytes(), planned16), Config: cfg}}
		}},
		{"naming-detailed", func(t *testing.T) []render.Input {
			b, names := namingCapture()
			cfg := decodetest.DefaultConfig()
			cfg.Names, cfg.DetailedNames, cfg.OwnerLabel = names, true, "Expert"
			return []render.Input{{Decoded: decodeT(t, "naming.bin", b.Bytes(), planned16), Config: cfg}}
		}},
		{"no-names", func(t *testing.T) []render.Input {
			b, _ := namingCapture()
			return []render.Input{{Decoded: decodeT(t, "naming.bin", b.Bytes(), planned16), Config: decodetest.DefaultConfig()}}
		}},
		{"anchor-from-start-3mhz", func(t *testing.T) []render.Input {
			// No core has an entry cycle: time 0 is the earliest start.
			// 3 MHz does not divide 1e9: ns are rounded (333.33 -> 333).
			b := capturetest.New(abi.MinCubeSlots, 16, 16)
			b.Enter(abi.CoreTypeAIC, 0, 0).Span(abi.CoreTypeAIC, 0, 5001, 5002, taskType(abi.TaskTypeMatMul), 1)
			b.Enter(abi.CoreTypeAIV, 0, 0).Span(abi.CoreTypeAIV, 0, 5000, 5003, wait, 1)
			cfg := decodetest.DefaultConfig()
			cfg.FrequencyMHz, cfg.SoCName, cfg.KernelName = 3, "unknown", "Mega\"Kernel µ\t"
			return []render.Input{{Decoded: decodeT(t, "anchor.bin", b.Bytes(), capture.Request{}), Config: cfg}}
		}},
		{"negative-ts-950", func(t *testing.T) []render.Input {
			// A record that starts before the earliest entry cycle.
			b := capturetest.New(abi.MinCubeSlots, 16, 0)
			b.Enter(abi.CoreTypeAIC, 3, 10_000)
			b.Span(abi.CoreTypeAIC, 3, 9_990, 10_500, taskType(abi.TaskTypeMatMul), 1)
			cfg := decodetest.DefaultConfig()
			cfg.SoCName, cfg.FrequencyMHz = "Ascend950PR", 1000
			return []render.Input{{Decoded: decodeT(t, "neg.bin", b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16}}), Config: cfg}}
		}},
		{"multi-rank", func(t *testing.T) []render.Input {
			b, names := namingCapture()
			b2 := capturetest.New(abi.MinCubeSlots+1, 0, 16)
			b2.Enter(abi.CoreTypeAIV, 49, 70).Span(abi.CoreTypeAIV, 49, 75, 95, taskType(abi.TaskTypeShmemGetMem), 2)
			c1, c2 := decodetest.DefaultConfig(), decodetest.DefaultConfig()
			c1.Rank, c1.DeviceID, c1.Names = 2, 5, names
			c2.Rank, c2.DeviceID = 0, 6
			return []render.Input{
				{Decoded: decodeT(t, "rank2.bin", b.Bytes(), planned16), Config: c1},
				{Decoded: decodeT(t, "rank0.bin", b2.Bytes(), capture.Request{CubeSlots: abi.MinCubeSlots + 1, Capacities: &abi.Capacities{AIV: 16}}), Config: c2},
			}
		}},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := traceOf(tc.inputs(t)...)
			require.NoError(t, err)
			checkGolden(t, filepath.Join("testdata", "golden", tc.name+".json"), got)
		})
	}
}

// The shipped example: examples/moe_layer.bin decoded with its names file
// (golden gzipped: a few thousand events).
func TestGoldenExample(t *testing.T) {
	const bin, namesFile = "../../examples/moe_layer.bin", "../../examples/moe_layer.names.yaml"
	c, err := capture.Open(bin)
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	names, err := kernelnames.Load(namesFile)
	require.NoError(t, err)
	cfg := decodetest.DefaultConfig()
	cfg.Names = names
	got, err := traceOf(render.Input{Decoded: d, Config: cfg})
	require.NoError(t, err)
	assert.NotZero(t, d.Summary.Dropped, "the example should show drops over many cores: dropped")
	assert.GreaterOrEqual(t, len(d.Summary.Active), 10, "the example should show drops over many cores: cores")
	checkGolden(t, filepath.Join("testdata", "golden", "moe_layer.json.gz"), got)
}

// checkGolden compares a trace with its golden file (gzipped when the
// name ends in .gz) through package golden. Every golden trace also passes
// the Perfetto check.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	assert.NoError(t, checkPerfetto(got), "Perfetto check")
	_, err := decodetest.ParseTrace(got)
	assert.NoError(t, err, "trace does not parse")
	golden.Check(t, path, got)
}
