package main

import (
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
)

func TestDumpCommand(t *testing.T) {
	path := writeCapture(t, "ok.bin", validCapture().Bytes())
	out, code, err := runCaptured("dump", path, "--records", "1")
	assert.Equal(t, exitOK, code, err)
	assert.Contains(t, out, "0x20067 TaskType_MatMul")
	assert.Contains(t, out, "... 1 more record (")
	assert.Contains(t, out, "AIC/1..AIC/23 idle (23 slots")

	out, code, _ = runCaptured("dump", path, "--slot", "AIV/9")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "AIV/9 @")

	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCapacityOffset, 20)
	bad := writeCapture(t, "bad.bin", b.Bytes())
	out, code, _ = runCaptured("dump", bad)
	assert.Equal(t, exitInvalid, code, "a capture without a layout is shown as far as it goes, exit 1")
	assert.Contains(t, out, "error bad-capacity AIC/0 @0x18: record_capacity=20")
	assert.Contains(t, out, "record_capacity   u32  20")

	for _, args := range [][]string{
		{"dump"},
		{"dump", path, path},
		{"dump", path, "--slot", "AIV/99"},
		{"dump", path, "--slot", "XYZ"},
		{"dump", filepath.Join(t.TempDir(), "missing.bin")},
		{"dump", path, "--aiv-capacity", "16"},
	} {
		_, code, err := runCaptured(args...)
		assert.Equal(t, exitUsage, code, "%v: %v", args, err)
	}
}

// dump finds the layout as decode and validate do, --plan included.
func TestDumpCommandPlan(t *testing.T) {
	idle, schedule := idleFirstSlot(t)
	out, code, _ := runCaptured("dump", idle)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "(found: 24 cube slots from the AIV/0 header at @0x3600, AIC capacity 16 from the AIC/1 header at @0x240 (AIC/0 is unused))")
	assert.NotContains(t, out, "hint:")
	out, code, err := runCaptured("dump", idle, "--plan", schedule)
	assert.Equal(t, exitOK, code, err)
	assert.NotContains(t, out, "plan-mismatch", "the headers agree with the plan")
}
