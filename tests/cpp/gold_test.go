package cpp_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/cppgen/cxxtest"
)

var update = flag.Bool("update", false, "rewrite testdata/gold_buffer.bin and gold_buffer.txt from layout_check")

// The gold buffer: a whole profiling buffer written by the C++ writer
// helpers (layout_check built from gen/cpp), committed so that decoder tests
// can read real device-written bytes (FlatBuffers' monsterdata_test.mon).
// gold_buffer.txt is its readable form: the layout and every writer call, in
// order, with what the writer answered.
const (
	goldBin = "testdata/gold_buffer.bin"
	goldTxt = "testdata/gold_buffer.txt"
)

// goldOp is one writer call: an InitSlot (init) or an AppendRecord.
type goldOp struct {
	init  bool
	core  abi.CoreType
	block uint32
	entry uint64            // init
	rec   abi.ProfileRecord // append
}

// goldLayout: the smallest buffer, AIC and AIV capacities different.
var goldLayout = abi.Layout{CubeSlots: abi.MinCubeSlots, Capacities: abi.Capacities{AIC: 16, AIV: 32}}

// goldScenario is what the cores of one kernel launch write. Unlisted slots
// are never entered (all zero).
func goldScenario() []goldOp {
	const none = abi.InvalidOwnerID
	task := func(t abi.TaskType) uint32 { return abi.TaskTypeBase + uint32(t) }
	rec := func(core abi.CoreType, block uint32, start, end uint64, desc, taskID, index, owner uint32) goldOp {
		return goldOp{core: core, block: block, rec: abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: desc, TaskID: taskID, StageTaskIndex: index, OwnerID: owner}}
	}
	ops := []goldOp{
		// AIC/0: a MatMul that waits on an event and triggers one.
		{init: true, core: abi.CoreTypeAIC, block: 0, entry: 1_000_000},
		rec(abi.CoreTypeAIC, 0, 1_000_100, 1_000_150, abi.RuntimeStageWaitDependency, 1, 0, none),
		rec(abi.CoreTypeAIC, 0, 1_000_150, 1_004_000, task(abi.TaskTypeMatMul), 1, 0, none),
		rec(abi.CoreTypeAIC, 0, 1_004_000, 1_004_010, abi.RuntimeStageTriggerEvent, 1, 0, none),
		// AIC/3: more GroupedMatMul records than its 16: 4 are dropped.
		{init: true, core: abi.CoreTypeAIC, block: 3, entry: 1_000_020},
	}
	for i := uint32(0); i < 20; i++ {
		start := 1_000_200 + 1000*uint64(i)
		ops = append(ops, rec(abi.CoreTypeAIC, 3, start, start+900, task(abi.TaskTypeGroupedMatMul), 10+i, i, i%4))
	}
	ops = append(ops,
		// AIV/0 enters first (the anchor): a graph stage, an unknown
		// descriptor, a zero-length record and a Terminate.
		goldOp{init: true, core: abi.CoreTypeAIV, block: 0, entry: 999_990},
		rec(abi.CoreTypeAIV, 0, 1_000_000, 1_000_300, abi.GraphStageBase+5, 2, 0, 7),
		rec(abi.CoreTypeAIV, 0, 1_000_300, 1_000_600, task(abi.TaskTypeSwiGLU), 3, 1, 7),
		rec(abi.CoreTypeAIV, 0, 1_000_600, 1_000_600, 0x50000, 4, 0, none),
		rec(abi.CoreTypeAIV, 0, 1_000_700, 1_000_710, abi.RuntimeStageTerminateTask, 5, 0, none),
		// AIV/10 enters but records nothing.
		goldOp{init: true, core: abi.CoreTypeAIV, block: 10, entry: 1_000_500},
		// The last AIV slot: a remote put, which emits no trigger record.
		goldOp{init: true, core: abi.CoreTypeAIV, block: 2*abi.MinCubeSlots - 1, entry: 1_001_000},
		rec(abi.CoreTypeAIV, 2*abi.MinCubeSlots-1, 1_001_100, 1_002_100, task(abi.TaskTypeShmemPutMemSignal), 6, 0, none),
		// A core with no slot: the writer refuses it and writes nothing.
		goldOp{init: true, core: abi.CoreTypeAIV, block: 2 * abi.MinCubeSlots, entry: 1},
	)
	return ops
}

// args is the layout_check command that makes op's writer call.
func (op goldOp) args() []string {
	if op.init {
		return []string{"init", fmt.Sprint(uint32(op.core)), fmt.Sprint(op.block), fmt.Sprint(op.entry)}
	}
	r := op.rec
	return []string{"append", fmt.Sprint(uint32(op.core)), fmt.Sprint(op.block), fmt.Sprint(r.StartCycle), fmt.Sprint(r.EndCycle),
		fmt.Sprint(r.DescID), fmt.Sprint(r.TaskID), fmt.Sprint(r.StageTaskIndex), fmt.Sprint(r.OwnerID)}
}

// goldGo builds the gold buffer with gen/go/abi's writer and returns it with
// the line layout_check prints for each op.
func goldGo(t *testing.T, ops []goldOp) ([]byte, []string) {
	t.Helper()
	lay, err := abi.NewLayout(goldLayout.CubeSlots, goldLayout.Capacities)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, lay.Size())
	var lines []string
	for _, op := range ops {
		answer := "none"
		if op.block < lay.SlotCount(op.core) {
			off := lay.SlotOffset(op.core, op.block)
			slot := buf[off : off+abi.SlotStride(lay.Capacities.For(op.core))]
			if op.init {
				if err := abi.InitSlot(slot, op.entry, op.core, op.block, lay.Capacities.For(op.core)); err != nil {
					t.Fatal(err)
				}
				answer = "ok"
			} else {
				written, err := abi.WriteRecord(slot, &op.rec)
				if err != nil {
					t.Fatal(err)
				}
				answer = map[bool]string{true: "written", false: "dropped"}[written]
			}
		}
		lines = append(lines, strings.Join(op.args(), " ")+" = "+answer)
	}
	return buf, lines
}

// TestGoldBuffer writes the gold buffer through the C++ helpers and checks
// it equals, byte for byte, the same calls made through gen/go/abi's writer,
// and the committed testdata/gold_buffer.bin (refreshed with -update).
func TestGoldBuffer(t *testing.T) {
	ops := goldScenario()
	want, wantLines := goldGo(t, ops)
	layoutLine, text := goldText(wantLines)

	for _, cxx := range cxxtest.Compilers(t) {
		t.Run(cxx.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "gold.bin")
			args := strings.Fields(layoutLine)
			for _, op := range ops {
				args = append(args, op.args()...)
			}
			args = append(args, "save", out)
			lines := runLayoutCheck(t, buildLayoutCheck(t, cxx), args)
			expect := append(append([]string{layoutLine + " = ok"}, wantLines...), fmt.Sprintf("save %s = %d", out, len(want)))
			if strings.Join(lines, "\n") != strings.Join(expect, "\n") {
				t.Errorf("layout_check answered:\n%s\nthe Go writer:\n%s", strings.Join(lines, "\n"), strings.Join(expect, "\n"))
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if i := firstDifference(got, want); i >= 0 {
				t.Fatalf("the C++ gold buffer (%d bytes) differs from the Go writer's (%d bytes) first at byte 0x%x", len(got), len(want), i)
			}
			if *update {
				if err := os.WriteFile(goldBin, got, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldTxt, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

}

// goldText is layout_check's buffer command for the gold layout and the
// readable form of the gold buffer.
func goldText(lines []string) (layoutLine, text string) {
	caps := goldLayout.Capacities
	layoutLine = fmt.Sprintf("buffer %d %d %d", goldLayout.CubeSlots, caps.AIC, caps.AIV)
	text = "# tests/cpp/" + goldBin + ": written by tests/cpp/testdata/layout_check.cpp through gen/cpp/cycleabi_abi.h.\n" +
		"# One layout_check command per line with its answer (init = InitSlot, append = AppendRecord:\n" +
		"# core type, block id, start_cycle, end_cycle, desc_id, task_id, stage_task_index, owner_id).\n" +
		"# Regenerate with go test ./tests/cpp -update.\n" +
		layoutLine + " = ok\n" + strings.Join(lines, "\n") + "\n"
	return layoutLine, text
}

// TestGoldBufferCommitted checks the committed gold buffer and its text
// against gen/go/abi's writer, with or without a C++ compiler.
func TestGoldBufferCommitted(t *testing.T) {
	want, lines := goldGo(t, goldScenario())
	_, text := goldText(lines)
	committed, err := os.ReadFile(goldBin)
	if err != nil {
		t.Fatalf("%v (run go test ./tests/cpp -update)", err)
	}
	if i := firstDifference(committed, want); i >= 0 {
		t.Errorf("%s is stale: differs from the Go writer's buffer first at byte 0x%x (run go test ./tests/cpp -update)", goldBin, i)
	}
	if committedText, err := os.ReadFile(goldTxt); err != nil || string(committedText) != text {
		t.Errorf("%s is stale or missing (run go test ./tests/cpp -update): %v", goldTxt, err)
	}
}

// firstDifference is the first index where a and b differ, or -1.
func firstDifference(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
