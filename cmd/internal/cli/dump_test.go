package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

func TestDumpCommand(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "ok.bin", validCapture().Bytes())
	out, code, errOut := runOut(t, "dump", path, "--records", "1")
	if code != ExitOK {
		t.Errorf("%v: code = %v, want %v", errOut, code, ExitOK)
	}
	if !strings.Contains(out, "0x20067 TaskType_MatMul") {
		t.Errorf("out = %q, want it to contain %q", out, "0x20067 TaskType_MatMul")
	}
	if !strings.Contains(out, "... 1 more record (") {
		t.Errorf("out = %q, want it to contain %q", out, "... 1 more record (")
	}
	if !strings.Contains(out, "AIC/1..AIC/23 idle (23 slots") {
		t.Errorf("out = %q, want it to contain %q", out, "AIC/1..AIC/23 idle (23 slots")
	}

	out, code, _ = runOut(t, "dump", path, "--slot", "AIV/9")
	if code != ExitOK {
		t.Errorf("code = %v, want %v", code, ExitOK)
	}
	if !strings.Contains(out, "AIV/9 @") {
		t.Errorf("out = %q, want it to contain %q", out, "AIV/9 @")
	}

	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 20)
	bad := writeCapture(t, "bad.bin", b.Bytes())
	out, code, _ = runOut(t, "dump", bad)
	if code != ExitInvalid {
		t.Errorf("a capture without a layout is shown as far as it goes, exit 1: code = %v, want %v", code, ExitInvalid)
	}
	if want := "error bad-capacity AIC/0 @0x18: record_capacity=20"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.Contains(out, "record_capacity   u32  20") {
		t.Errorf("out = %q, want it to contain %q", out, "record_capacity   u32  20")
	}

	for _, args := range [][]string{
		{"dump"},
		{"dump", path, path},
		{"dump", path, "--slot", "AIV/99"},
		{"dump", path, "--slot", "XYZ"},
		{"dump", filepath.Join(t.TempDir(), "missing.bin")},
		{"dump", path, "--aiv-capacity", "16"},
	} {
		_, code, errOut := runOut(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: %v: code = %v, want %v", args, errOut, code, ExitUsage)
		}
	}
}

// dump finds the layout as decode and validate do, --plan included.
func TestDumpCommandPlan(t *testing.T) {
	t.Parallel()
	idle, schedule := idleFirstSlot(t)
	out, code, _ := runOut(t, "dump", idle)
	if code != ExitOK {
		t.Errorf("code = %v, want %v", code, ExitOK)
	}
	if want := "(found: 24 cube slots from the AIV/0 header at @0x3600, AIC capacity 16 from the AIC/1 header at @0x240 (AIC/0 is unused))"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if strings.Contains(out, "hint:") {
		t.Errorf("out = %q, want no %q", out, "hint:")
	}
	out, code, errOut := runOut(t, "dump", idle, "--plan", schedule)
	if code != ExitOK {
		t.Errorf("%v: code = %v, want %v", errOut, code, ExitOK)
	}
	if strings.Contains(out, "plan-mismatch") {
		t.Errorf("the headers agree with the plan: out = %q, want no %q", out, "plan-mismatch")
	}
}
