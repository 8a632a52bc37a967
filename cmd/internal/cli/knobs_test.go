package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dump --names shows the names decode gives: every record's name in the
// dump (its event name where it differs from its descriptor's) is the
// name of its event in decode's trace with the same names file.
func TestDumpNames(t *testing.T) {
	t.Parallel()
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1200, 1210, abi.RuntimeStageTriggerEvent, 1).
		Span(abi.CoreTypeAIC, 0, 1300, 1400, abi.GraphStageBase+2, 4).
		Span(abi.CoreTypeAIC, 0, 1400, 1410, abi.RuntimeStageWaitDependency, 7)
	path := writeCapture(t, "c.bin", b.Bytes())
	names := filepath.Join(t.TempDir(), "n.yaml")
	require.NoError(t, os.WriteFile(names, []byte("graph_stages:\n  2: Combine\ntasks:\n  1: Gate\n  4: Expert\n"), 0o644))

	plain, stderr, code := runMain(t, "dump", path, "--slot", "AIC/0")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.NotContainsf(t, plain, "task stage", "plain = %q, want no %q", plain, "task stage")
	assert.Contains(t, plain, "desc_id           u32  0x30002 GraphStage_2\n", "plain")

	out, stderr, code := runMain(t, "dump", path, "--slot", "AIC/0", "--names", names)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, out, "task_id           u32  1 (task stage Gate)\n", "out")
	// a task the file does not name
	assert.Contains(t, out, "task_id           u32  7\n", "out")

	descLine := regexp.MustCompile(`desc_id +u32  0x[0-9a-f]+ (\S+)(?: \(event (\S+)\))?`)
	var shown []string
	for _, m := range descLine.FindAllStringSubmatch(out, -1) {
		name := m[1]
		if m[2] != "" {
			name = m[2]
		}
		shown = append(shown, name)
	}

	trace := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code = runMain(t, "decode", path, "--names", names, "-o", trace)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	var decoded []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			decoded = append(decoded, e.Name)
		}
	}
	assert.Equal(t, decoded, shown, "shown")
	assert.Equal(t, "TaskType_MatMul Gate_TriggerEvent Combine WaitDependency", strings.Join(shown, " "), "strings.Join(shown, \" \")")

	_, stderr, code = runMain(t, "dump", path, "--names", filepath.Join(t.TempDir(), "missing.yaml"))
	assert.Equalf(t, ExitUsage, code, "%s: code", stderr)
}

// decode shifts negative timestamps by default (Perfetto's JSON importer
// drops events with a negative ts) and says so; --negative-ts keep
// writes the reference's negative ones, with a warning; keep is refused
// for a Perfetto trace, which cannot hold them.
func TestDecodeNegativeTS(t *testing.T) {
	t.Parallel()
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 900, 950, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 2)
	path := writeCapture(t, "early.bin", b.Bytes())
	dir := t.TempDir()
	ts := func(trace string) []string {
		data, err := os.ReadFile(trace)
		require.NoError(t, err)
		var doc struct {
			TraceEvents []struct {
				Ph string      `json:"ph"`
				Ts json.Number `json:"ts"`
			} `json:"traceEvents"`
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		var out []string
		for _, e := range doc.TraceEvents {
			if e.Ph == "X" {
				out = append(out, e.Ts.String())
			}
		}
		return out
	}
	// 50 MHz: the first record starts 100 cycles (2 µs) before time 0.
	shifted := filepath.Join(dir, "shifted.json")
	_, stderr, code := runMain(t, "decode", path, "-o", shifted)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Equal(t, []string{"0", "4"}, ts(shifted), "ts(shifted)")
	assert.Contains(t, stderr, "1 record starts before the trace's anchor cycle; every timestamp is moved later by the same time, so that none is negative", "stderr")

	kept := filepath.Join(dir, "kept.json")
	_, stderr, code = runMain(t, "decode", path, "-o", kept, "--negative-ts", "keep")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Equal(t, []string{"-2", "2"}, ts(kept), "ts(kept)")
	assert.Contains(t, stderr, "so their ts is negative (Perfetto drops them)", "stderr")

	_, stderr, code = runMain(t, "decode", path, "-o", filepath.Join(dir, "t.pftrace"), "--negative-ts", "keep")
	assert.Equal(t, ExitUsage, code, "code")
	assert.Contains(t, stderr, "--negative-ts keep", "stderr")
	_, _, code = runMain(t, "decode", path, "-o", filepath.Join(dir, "t.json"), "--negative-ts", "drop")
	assert.Equal(t, ExitUsage, code, "code")
}

// decode refuses a truncated capture, pointing at --partial, which
// decodes what the file holds and names what is missing by offset: here
// the example cut inside AIV/4's records (offsets worked out from the
// layout and AIV/4's header), then every slot after it.
func TestDecodePartial(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile(moeCapture)
	require.NoError(t, err)
	const cut = 60000
	path := writeCapture(t, "cut.bin", whole[:cut])
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", path, "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, stderr, "(decode --partial decodes what the file holds and lists what is missing)", "stderr")

	_, stderr, code = runMain(t, "decode", path, "-o", out, "--partial")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	l, err := abi.NewLayout(24, abi.Capacities{AIC: 64, AIV: 64})
	require.NoError(t, err)
	aiv4, _ := l.SlotOf(abi.CoreTypeAIV, 4)
	aiv5, _ := l.SlotOf(abi.CoreTypeAIV, 5)
	count := int(binary.LittleEndian.Uint32(whole[aiv4.Offset+abi.CoreHeaderRecordCountOffset:]))
	first := int(aiv4.Offset) + abi.CoreHeaderSize
	held := (cut - first) / abi.ProfileRecordSize
	assert.Contains(t, stderr, fmt.Sprintf("cycleabi: warning: %s: truncated AIV/4 record %d @%#x: missing, not decoded: AIV/4 records %d..%d of its record_count %d @%#x..%#x\n",
		path, held, first+held*32, held, count-1, count, first+held*32, first+count*32), "stderr")
	assert.Contains(t, stderr, fmt.Sprintf("cycleabi: warning: %s: truncated @%#x: missing, not decoded: the slots AIV/5..AIV/47 @%#x..%#x", path, aiv5.Offset, aiv5.Offset, l.Size()), "stderr")

	// Every record the file holds whole, and no other.
	var want int
	for i := range l.NumSlots() {
		s := l.Slot(i)
		if int(s.Offset)+abi.CoreHeaderSize > cut {
			break
		}
		n := int(binary.LittleEndian.Uint32(whole[s.Offset+abi.CoreHeaderRecordCountOffset:]))
		want += min(n, max(0, (cut-int(s.Offset)-abi.CoreHeaderSize)/abi.ProfileRecordSize))
	}
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, want, strings.Count(string(data), `"ph":"X"`))
}

// A .npy file cut short (np.save interrupted) decodes with --partial too:
// its header's payload size is then a warning, and the buffer what the
// file holds.
func TestDecodePartialNPY(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile("../../../examples/aiv_pipeline.npy")
	require.NoError(t, err)
	path := writeCapture(t, "cut.npy", whole[:30000])
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", path, "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, stderr, "truncated .npy file", "stderr")
	assert.Contains(t, stderr, "decode --partial", "stderr")
	_, stderr, code = runMain(t, "decode", path, "-o", out, "--partial")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: "+path+": truncated @0x7530: truncated .npy file: its header declares", "stderr")
	assert.Contains(t, stderr, ": missing, not decoded: the slots ", "stderr")
}
