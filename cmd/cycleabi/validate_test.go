package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validCapture is AIC/0 and AIV/0 entered, AIC/0 with two records.
func validCapture() *capturetest.Builder {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIV, 0, 1000)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1200, 1300, abi.RuntimeStageTriggerEvent, 1)
	return b
}

func writeCapture(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

func TestValidateCommandText(t *testing.T) {
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())

	bad := validCapture()
	bad.Enter(abi.CoreTypeAIV, 17, 1000).Span(abi.CoreTypeAIV, 17, 1100, 1200, abi.RuntimeStageWaitDependency, 2)
	bad.SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC))
	bad.SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderBlockIDOffset, 5)
	invalid := writeCapture(t, "bad.bin", bad.Bytes())

	warned := validCapture()
	warned.Put64(warned.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordStartCycleOffset), 1150)
	warnings := writeCapture(t, "warn.bin", warned.Bytes())

	out, code, err := runCaptured("validate", valid)
	assert.Equal(t, exitOK, code, err)
	assert.Equal(t, valid+": 2 records, 0 dropped; 0 errors; 0 warnings; layout: 24 cube slots, AIC capacity 16, AIV capacity 16 (found: 24 cube slots from the AIV/0 header at @0x3600); ABI v1 fingerprint "+abi.FingerprintHex+"\n", out)

	out, code, _ = runCaptured("validate", invalid)
	assert.Equal(t, exitInvalid, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	off := bad.HeaderOffset(abi.CoreTypeAIV, 17, abi.CoreHeaderCoreTypeOffset)
	assert.Equal(t, fmt.Sprintf("error slot-identity AIV/17 @%#x", off)+": core_type=1 block_id=5, expected AIV/17", lines[0])
	assert.Contains(t, lines[1], invalid+": 3 records, 0 dropped; 1 error (slot-identity 1); 0 warnings; ")

	out, code, _ = runCaptured("validate", warnings)
	assert.Equal(t, exitOK, code, "warnings alone pass")
	assert.Contains(t, out, "warning overlap AIC/0 record 1 @0x60: start_cycle=1150 before end_cycle=1200 of record 0")
	_, code, _ = runCaptured("validate", warnings, "--strict")
	assert.Equal(t, exitInvalid, code, "--strict fails on warnings")
	_, code, _ = runCaptured("validate", valid, "--strict")
	assert.Equal(t, exitOK, code)

	// Several captures: each gets its findings and summary; a missing one
	// is an I/O error (exit 2) that does not stop the others.
	out, code, _ = runCaptured("validate", valid, filepath.Join(t.TempDir(), "missing.bin"), invalid)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, out, "missing.bin: no such file or directory")
	assert.Contains(t, out, valid+": 2 records")
	assert.Contains(t, out, "\n\nerror slot-identity AIV/17")
}

func TestValidateCommandJSON(t *testing.T) {
	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset, 9)
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderDroppedCountOffset, 3)
	path := writeCapture(t, "rank0.npy", capturetest.NPY(b.Bytes()))
	out, code, _ := runCaptured("validate", path, "--format", "json", "--max-findings", "1")
	assert.Equal(t, exitInvalid, code)
	var doc validate.Document
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Equal(t, validate.JSONVersion, doc.Version)
	assert.Equal(t, abi.FingerprintHex, doc.ABI.Fingerprint)
	assert.Equal(t, 1, doc.MaxFindings)
	assert.False(t, doc.OK)
	require.Len(t, doc.Captures, 1)
	c := doc.Captures[0]
	assert.Equal(t, path, c.File)
	require.NotNil(t, c.Format)
	assert.Equal(t, "npy", *c.Format)
	assert.EqualValues(t, 128, c.BufferOffset)
	require.NotNil(t, c.Layout)
	assert.Equal(t, map[string]uint32{"AIC": 16, "AIV": 16}, c.Layout.Capacities)
	assert.Equal(t, validate.FromHeaders, c.Layout.Source)
	assert.EqualValues(t, 2, c.Records)
	assert.EqualValues(t, 3, c.Dropped)
	assert.Equal(t, 1, c.Errors)
	assert.Equal(t, 2, c.Warnings)
	assert.Equal(t, validate.CodeJSON{Severity: "error", Count: 1, Shown: 1}, c.Codes["reserved-nonzero"])
	require.Len(t, c.Findings, 3)
	f := c.Findings[0]
	assert.Equal(t, "dropped-total", string(f.Code))
	assert.Nil(t, f.Slot)
	assert.Nil(t, f.Record)
	assert.EqualValues(t, 128, f.Offset, "offsets are file offsets")
	f = c.Findings[2]
	assert.Equal(t, "reserved-nonzero", string(f.Code))
	require.NotNil(t, f.Slot)
	assert.Equal(t, "AIC/0", *f.Slot)
	assert.Equal(t, "0x9c", f.OffsetHex)
	assert.Equal(t, "reserved=0x9", f.Value)
	assert.Equal(t, "0", f.Expected)

	// The raw JSON spells severities as words and absent slots as null.
	assert.Contains(t, out, `"severity": "error"`)
	assert.Contains(t, out, `"slot": null`)

	// An unreadable capture is in the document with its I/O error.
	out, code, _ = runCaptured("validate", filepath.Join(t.TempDir(), "gone.bin"), "--format", "json")
	assert.Equal(t, exitUsage, code)
	doc = validate.Document{}
	require.NoError(t, json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &doc))
	require.Len(t, doc.Captures, 1)
	assert.Contains(t, doc.Captures[0].IOError, "no such file")
	assert.Nil(t, doc.Captures[0].Layout)
}

func TestValidateCommandTruncated(t *testing.T) {
	b := validCapture().Bytes()
	path := writeCapture(t, "cut.bin", b[:len(b)-100])
	out, code, _ := runCaptured("validate", path)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, out, "error truncated @")
	assert.Contains(t, out, "(100 missing)")
	assert.Contains(t, out, "layout: not resolved")
}

func TestValidateCommandPlan(t *testing.T) {
	const schedule = "../../examples/moe_layer.yaml"
	capture := "../../examples/moe_layer.bin" // synthesised with --capacity-scale 0.8: capacities 64, the plan's 80
	out, code, err := runCaptured("validate", capture, "--plan", schedule)
	assert.Equal(t, exitOK, code, err)
	assert.Contains(t, out, "warning plan-mismatch AIC/0 @0x18: record_capacity=64 (and 23 more live AIC headers), expected 80 (the AIC capacity of host plan "+schedule+")")
	assert.Contains(t, out, "plan-mismatch 2")
	_, code, _ = runCaptured("validate", capture, "--plan", schedule, "--strict")
	assert.Equal(t, exitInvalid, code)

	// --cube-slots the headers contradict: an error naming both counts.
	out, code, _ = runCaptured("validate", capture, "--plan", schedule, "--cube-slots", "25")
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, out, "error layout-mismatch @0xc600: the AIV/0 header at @0xc600 says 24 cube slots; the flags say 25")

	// The recipe of docs/capture-to-trace.md: the plan's flags (80) against a capture written
	// with --capacity-scale 0.8 (64): both values, not "truncated".
	out, code, _ = runCaptured("validate", capture, "--cube-slots", "24", "--aic-capacity", "80", "--aiv-capacity", "80")
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, out, "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80")
	assert.NotContains(t, out, "truncated")

	bad := writeSchedule(t, "num_workers: 3\ntasks: []\n")
	_, code, err = runCaptured("validate", capture, "--plan", bad)
	assert.Equal(t, exitUsage, code, "a schedule that does not plan is a usage error: %v", err)
	_, code, _ = runCaptured("validate", capture, "--plan", filepath.Join(t.TempDir(), "none.yaml"))
	assert.Equal(t, exitUsage, code)
}

func TestValidateCommandUsage(t *testing.T) {
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())
	for _, args := range [][]string{
		{"validate"},
		{"validate", valid, "--format", "yaml"},
		{"validate", valid, "--max-findings", "-1"},
		{"validate", valid, "--aic-capacity", "16"},
		{"validate", valid, "--cube-slots", "3"},
		append([]string{"validate", valid}, capacityArgs(map[abi.CoreType]uint32{abi.CoreTypeAIC: 17}, 16)...),
		{"validate", valid, "--no-such-flag"},
	} {
		_, code, err := runCaptured(args...)
		assert.Equal(t, exitUsage, code, "%v: %v", args, err)
	}
	// Host capacities that differ from the headers: an error naming both, exit 1.
	out, code, _ := runCaptured("validate", valid, "--aic-capacity", "0", "--aiv-capacity", "16")
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, out, "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 16 and 16; the flags say 0 and 16")
	assert.Contains(t, out, "layout: not resolved")
	// --max-findings 0 shows every finding.
	b := validCapture()
	for i := range 16 {
		b.Enter(abi.CoreTypeAIV, uint32(i+1), 1000).SetHeader32(abi.CoreTypeAIV, uint32(i+1), abi.CoreHeaderDroppedCountOffset, 1)
	}
	many := writeCapture(t, "many.bin", b.Bytes())
	out, _, _ = runCaptured("validate", many, "--max-findings", "0")
	assert.Equal(t, 16, strings.Count(out, "warning dropped-records"))
	out, _, _ = runCaptured("validate", many, "--max-findings", "5")
	assert.Equal(t, 5, strings.Count(out, "warning dropped-records"))
	assert.Contains(t, out, "dropped-records 16 (5 shown)")
}

// validate walks with one P more than its walkers while it runs and gives
// GOMAXPROCS back as it found it; a GOMAXPROCS the user set is left alone.
func TestValidateRestoresGOMAXPROCS(t *testing.T) {
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())
	before := runtime.GOMAXPROCS(0)
	for _, env := range []string{"", "1"} {
		t.Setenv("GOMAXPROCS", env)
		_, code, err := runCaptured("validate", valid, valid)
		require.Equal(t, exitOK, code, err)
		assert.Equal(t, before, runtime.GOMAXPROCS(0), "GOMAXPROCS=%q", env)
	}
}
