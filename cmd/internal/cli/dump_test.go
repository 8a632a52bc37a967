package cli

import (
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
)

func TestDumpCommand(t *testing.T) {
	t.Parallel()
	path := writeCapture(t, "ok.bin", validCapture().Bytes())
	out, code, errOut := runOut(t, "dump", path, "--records", "1")
	assert.Equalf(t, ExitOK, code, "%v: code", errOut)
	assert.Contains(t, out, "0x20067 TaskType_MatMul", "out")
	assert.Contains(t, out, "... 1 more record (", "out")
	assert.Contains(t, out, "AIC/1..AIC/23 idle (23 slots", "out")

	out, code, _ = runOut(t, "dump", path, "--slot", "AIV/9")
	assert.Equal(t, ExitOK, code, "code")
	assert.Contains(t, out, "AIV/9 @", "out")

	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 20)
	bad := writeCapture(t, "bad.bin", b.Bytes())
	out, code, _ = runOut(t, "dump", bad)
	assert.Equal(t, ExitInvalid, code, "a capture without a layout is shown as far as it goes, exit 1: code")
	assert.Contains(t, out, "error bad-capacity AIC/0 @0x18: record_capacity=20", "out")
	assert.Contains(t, out, "record_capacity   u32  20", "out")

	for _, args := range [][]string{
		{"dump"},
		{"dump", path, path},
		{"dump", path, "--slot", "AIV/99"},
		{"dump", path, "--slot", "XYZ"},
		{"dump", filepath.Join(t.TempDir(), "missing.bin")},
		{"dump", path, "--aiv-capacity", "16"},
	} {
		_, code, errOut := runOut(t, args...)
		assert.Equalf(t, ExitUsage, code, "%v: %v: code", args, errOut)
	}
}

// dump finds the layout as decode and validate do, --plan included.
func TestDumpCommandPlan(t *testing.T) {
	t.Parallel()
	idle, schedule := idleFirstSlot(t)
	out, code, _ := runOut(t, "dump", idle)
	assert.Equal(t, ExitOK, code, "code")
	assert.Contains(t, out, "(found: 24 cube slots from the AIV/0 header at @0x3600, AIC capacity 16 from the AIC/1 header at @0x240 (AIC/0 is unused))", "out")
	assert.NotContainsf(t, out, "hint:", "out = %q, want no %q", out, "hint:")
	out, code, errOut := runOut(t, "dump", idle, "--plan", schedule)
	assert.Equalf(t, ExitOK, code, "%v: code", errOut)
	assert.NotContainsf(t, out, "plan-mismatch", "the headers agree with the plan: out = %q, want no %q", out, "plan-mismatch")
}
