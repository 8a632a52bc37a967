package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
	if err := os.WriteFile(names, []byte("graph_stages:\n  2: Combine\ntasks:\n  1: Gate\n  4: Expert\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	plain, stderr, code := runMain(t, "dump", path, "--slot", "AIC/0")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if strings.Contains(plain, "task stage") {
		t.Errorf("plain = %q, want no %q", plain, "task stage")
	}
	if want := "desc_id           u32  0x30002 GraphStage_2\n"; !strings.Contains(plain, want) {
		t.Errorf("plain = %q, want it to contain %q", plain, want)
	}

	out, stderr, code := runMain(t, "dump", path, "--slot", "AIC/0", "--names", names)
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "task_id           u32  1 (task stage Gate)\n"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	// a task the file does not name
	if !strings.Contains(out, "task_id           u32  7\n") {
		t.Errorf("out = %q, want it to contain %q", out, "task_id           u32  7\n")
	}

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
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var decoded []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			decoded = append(decoded, e.Name)
		}
	}
	if !reflect.DeepEqual(shown, decoded) {
		t.Errorf("shown = %v, want %v", shown, decoded)
	}
	if got := strings.Join(shown, " "); got != "TaskType_MatMul Gate_TriggerEvent Combine WaitDependency" {
		t.Errorf("strings.Join(shown, \" \") = %q, want %q", got, "TaskType_MatMul Gate_TriggerEvent Combine WaitDependency")
	}

	_, stderr, code = runMain(t, "dump", path, "--names", filepath.Join(t.TempDir(), "missing.yaml"))
	if code != ExitUsage {
		t.Errorf("%s: code = %v, want %v", stderr, code, ExitUsage)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []struct {
				Ph string      `json:"ph"`
				Ts json.Number `json:"ts"`
			} `json:"traceEvents"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
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
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if got, want := ts(shifted), []string{"0", "4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ts(shifted) = %v, want %v", got, want)
	}
	if want := "1 record starts before the trace's anchor cycle; every timestamp is moved later by the same time, so that none is negative"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	kept := filepath.Join(dir, "kept.json")
	_, stderr, code = runMain(t, "decode", path, "-o", kept, "--negative-ts", "keep")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if got, want := ts(kept), []string{"-2", "2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ts(kept) = %v, want %v", got, want)
	}
	if want := "so their ts is negative (Perfetto drops them)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	_, stderr, code = runMain(t, "decode", path, "-o", filepath.Join(dir, "t.pftrace"), "--negative-ts", "keep")
	if code != ExitUsage {
		t.Errorf("code = %v, want %v", code, ExitUsage)
	}
	if !strings.Contains(stderr, "--negative-ts keep") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "--negative-ts keep")
	}
	_, _, code = runMain(t, "decode", path, "-o", filepath.Join(dir, "t.json"), "--negative-ts", "drop")
	if code != ExitUsage {
		t.Errorf("code = %v, want %v", code, ExitUsage)
	}
}

// decode refuses a truncated capture, pointing at --partial, which
// decodes what the file holds and names what is missing by offset: here
// the example cut inside AIV/4's records (offsets worked out from the
// layout and AIV/4's header), then every slot after it.
func TestDecodePartial(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile(moeCapture)
	if err != nil {
		t.Fatal(err)
	}
	const cut = 60000
	path := writeCapture(t, "cut.bin", whole[:cut])
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", path, "-o", out)
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if want := "(decode --partial decodes what the file holds and lists what is missing)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

	_, stderr, code = runMain(t, "decode", path, "-o", out, "--partial")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	l, err := abi.NewLayout(24, abi.Capacities{AIC: 64, AIV: 64})
	if err != nil {
		t.Fatal(err)
	}
	aiv4, _ := l.SlotOf(abi.CoreTypeAIV, 4)
	aiv5, _ := l.SlotOf(abi.CoreTypeAIV, 5)
	count := int(binary.LittleEndian.Uint32(whole[aiv4.Offset+abi.CoreHeaderRecordCountOffset:]))
	first := int(aiv4.Offset) + abi.CoreHeaderSize
	held := (cut - first) / abi.ProfileRecordSize
	if !strings.Contains(stderr, fmt.Sprintf("cycleabi: warning: %s: truncated AIV/4 record %d @%#x: missing, not decoded: AIV/4 records %d..%d of its record_count %d @%#x..%#x\n",
		path, held, first+held*32, held, count-1, count, first+held*32, first+count*32)) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, fmt.Sprintf("cycleabi: warning: %s: truncated AIV/4 record %d @%#x: missing, not decoded: AIV/4 records %d..%d of its record_count %d @%#x..%#x\n",
			path, held, first+held*32, held, count-1, count, first+held*32, first+count*32))
	}
	if want := fmt.Sprintf("cycleabi: warning: %s: truncated @%#x: missing, not decoded: the slots AIV/5..AIV/47 @%#x..%#x", path, aiv5.Offset, aiv5.Offset, l.Size()); !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}

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
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), `"ph":"X"`); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A .npy file cut short (np.save interrupted) decodes with --partial too:
// its header's payload size is then a warning, and the buffer what the
// file holds.
func TestDecodePartialNPY(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile("../../../examples/aiv_pipeline.npy")
	if err != nil {
		t.Fatal(err)
	}
	path := writeCapture(t, "cut.npy", whole[:30000])
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", path, "-o", out)
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if !strings.Contains(stderr, "truncated .npy file") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "truncated .npy file")
	}
	if !strings.Contains(stderr, "decode --partial") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "decode --partial")
	}
	_, stderr, code = runMain(t, "decode", path, "-o", out, "--partial")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	if want := "cycleabi: warning: " + path + ": truncated @0x7530: truncated .npy file: its header declares"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
	if !strings.Contains(stderr, ": missing, not decoded: the slots ") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, ": missing, not decoded: the slots ")
	}
}
