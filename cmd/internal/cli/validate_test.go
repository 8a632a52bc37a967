package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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
	t.Parallel()
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())

	bad := validCapture()
	bad.Enter(abi.CoreTypeAIV, 17, 1000).Span(abi.CoreTypeAIV, 17, 1100, 1200, abi.RuntimeStageWaitDependency, 2)
	bad.SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderCoreTypeOffset, uint32(abi.CoreTypeAIC))
	bad.SetHeader32(abi.CoreTypeAIV, 17, abi.CoreHeaderBlockIDOffset, 5)
	invalid := writeCapture(t, "bad.bin", bad.Bytes())

	warned := validCapture()
	warned.Put64(warned.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordStartCycleOffset), 1150)
	warnings := writeCapture(t, "warn.bin", warned.Bytes())

	out, code, errOut := runOut(t, "validate", valid)
	assert.Equalf(t, ExitOK, code, "%v: code", errOut)
	assert.Equal(t, valid+": 2 records, 0 dropped; 0 errors; 0 warnings; layout: 24 cube slots, AIC capacity 16, AIV capacity 16 (found: 24 cube slots from the AIV/0 header at @0x3600); ABI v2 fingerprint "+abi.FingerprintHex+"\n", out, "out")

	out, code, _ = runOut(t, "validate", invalid)
	assert.Equal(t, ExitInvalid, code, "code")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Lenf(t, lines, 2, "%s: len(lines)", out)
	off := bad.HeaderOffset(abi.CoreTypeAIV, 17, abi.CoreHeaderCoreTypeOffset)
	assert.Equal(t, fmt.Sprintf("error slot-identity AIV/17 @%#x", off)+": core_type=1 block_id=5, expected AIV/17", lines[0], "lines[0]")
	assert.Contains(t, lines[1], invalid+": 3 records, 0 dropped; 1 error (slot-identity 1); 0 warnings; ", "lines[1]")

	out, code, _ = runOut(t, "validate", warnings)
	assert.Equal(t, ExitOK, code, "warnings alone pass: code")
	assert.Contains(t, out, "warning overlap AIC/0 record 1 @0x60: start_cycle=1150 before end_cycle=1200 of record 0", "out")
	_, code, _ = runOut(t, "validate", warnings, "--strict")
	assert.Equal(t, ExitInvalid, code, "strict fails on warnings: code")
	_, code, _ = runOut(t, "validate", valid, "--strict")
	assert.Equal(t, ExitOK, code, "code")

	// Several captures: each gets its findings and summary; a missing one
	// is an I/O error (exit 2) that does not stop the others.
	out, code, _ = runOut(t, "validate", valid, filepath.Join(t.TempDir(), "missing.bin"), invalid)
	assert.Equal(t, ExitUsage, code, "code")
	assert.Contains(t, out, "missing.bin: no such file or directory", "out")
	assert.Contains(t, out, valid+": 2 records", "out")
	assert.Contains(t, out, "\n\nerror slot-identity AIV/17", "out")
}

func TestValidateCommandJSON(t *testing.T) {
	t.Parallel()
	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset, 9)
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderDroppedCountOffset, 3)
	path := writeCapture(t, "rank0.npy", capturetest.NPY(b.Bytes()))
	out, code, _ := runOut(t, "validate", path, "--format", "json", "--max-findings", "1")
	assert.Equal(t, ExitInvalid, code, "code")
	var doc validate.Document
	require.NoErrorf(t, json.Unmarshal([]byte(out), &doc), "%s", out)
	assert.Equal(t, validate.JSONVersion, doc.Version, "doc.Version")
	assert.Equal(t, abi.FingerprintHex, doc.ABI.Fingerprint, "doc.ABI.Fingerprint")
	assert.Equal(t, 1, doc.MaxFindings, "doc.MaxFindings")
	assert.False(t, doc.OK, "doc.OK = true, want false")
	require.Len(t, doc.Captures, 1, "len(doc.Captures)")
	c := doc.Captures[0]
	assert.Equal(t, path, c.File, "c.File")
	require.NotNil(t, c.Format, "c.Format is nil, want non-nil")
	assert.Equalf(t, "npy", *c.Format, "*c.Format = %q, want %q", *c.Format, "npy")
	assert.Equal(t, int64(128), c.BufferOffset, "c.BufferOffset")
	require.NotNil(t, c.Layout, "c.Layout is nil, want non-nil")
	assert.Equal(t, map[string]uint32{"AIC": 16, "AIV": 16}, c.Layout.Capacities, "c.Layout.Capacities")
	assert.Equal(t, validate.FromHeaders, c.Layout.Source, "c.Layout.Source")
	assert.Equal(t, uint64(2), c.Records, "c.Records")
	assert.Equal(t, uint64(3), c.Dropped, "c.Dropped")
	assert.Equal(t, 1, c.Errors, "c.Errors")
	assert.Equal(t, 2, c.Warnings, "c.Warnings")
	assert.Equal(t, (validate.CodeJSON{Severity: "error", Count: 1, Shown: 1}), c.Codes["reserved-nonzero"], "c.Codes[\"reserved-nonzero\"]")
	require.Len(t, c.Findings, 3, "len(c.Findings)")
	f := c.Findings[0]
	assert.Equal(t, "dropped-total", string(f.Code), "string(f.Code)")
	assert.Nil(t, f.Slot, "f.Slot")
	assert.Nil(t, f.Record, "f.Record")
	assert.Equal(t, int64(128), f.Offset, "offsets are file offsets: f.Offset")
	f = c.Findings[2]
	assert.Equal(t, "reserved-nonzero", string(f.Code), "string(f.Code)")
	require.NotNil(t, f.Slot, "f.Slot is nil, want non-nil")
	assert.Equalf(t, "AIC/0", *f.Slot, "*f.Slot = %q, want %q", *f.Slot, "AIC/0")
	assert.Equal(t, "0x9c", f.OffsetHex, "f.OffsetHex")
	assert.Equal(t, "reserved=0x9", f.Value, "f.Value")
	assert.Equal(t, "0", f.Expected, "f.")

	// The raw JSON spells severities as words and absent slots as null.
	assert.Contains(t, out, `"severity": "error"`, "out")
	assert.Contains(t, out, `"slot": null`, "out")

	// An unreadable capture is in the document with its I/O error.
	out, _, code = runMain(t, "validate", filepath.Join(t.TempDir(), "gone.bin"), "--format", "json")
	assert.Equal(t, ExitUsage, code, "code")
	doc = validate.Document{}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Captures, 1, "len(doc.Captures)")
	assert.Contains(t, doc.Captures[0].IOError, "no such file", "doc.Captures[0].IOError")
	assert.Nil(t, doc.Captures[0].Layout, "doc.Captures[0].Layout")
}

func TestValidateCommandTruncated(t *testing.T) {
	t.Parallel()
	b := validCapture().Bytes()
	path := writeCapture(t, "cut.bin", b[:len(b)-100])
	out, code, _ := runOut(t, "validate", path)
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, out, "error truncated @", "out")
	assert.Contains(t, out, "(100 missing)", "out")
	assert.Contains(t, out, "layout: not resolved", "out")
}

func TestValidateCommandPlan(t *testing.T) {
	t.Parallel()
	const schedule = "../../../examples/moe_layer.yaml"
	capture := "../../../examples/moe_layer.bin" // synthesised with --capacity-scale 0.8: capacities 64, the plan's 80
	out, code, errOut := runOut(t, "validate", capture, "--plan", schedule)
	assert.Equalf(t, ExitOK, code, "%v: code", errOut)
	assert.Contains(t, out, "warning plan-mismatch AIC/0 @0x18: record_capacity=64 (and 23 more live AIC headers), expected 80 (the AIC capacity of host plan "+schedule+")", "out")
	assert.Contains(t, out, "plan-mismatch 2", "out")
	_, code, _ = runOut(t, "validate", capture, "--plan", schedule, "--strict")
	assert.Equal(t, ExitInvalid, code, "code")

	// --cube-slots the headers contradict: an error naming both counts.
	out, code, _ = runOut(t, "validate", capture, "--plan", schedule, "--cube-slots", "25")
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, out, "error layout-mismatch @0xc600: the AIV/0 header at @0xc600 says 24 cube slots; the flags say 25", "out")

	// The recipe of docs/capture-to-trace.md: the plan's flags (80) against a capture written
	// with --capacity-scale 0.8 (64): both values, not "truncated".
	out, code, _ = runOut(t, "validate", capture, "--cube-slots", "24", "--aic-capacity", "80", "--aiv-capacity", "80")
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, out, "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80", "out")
	assert.NotContainsf(t, out, "truncated", "out = %q, want no %q", out, "truncated")

	bad := writeSchedule(t, "num_workers: 3\ntasks: []\n")
	_, code, errOut = runOut(t, "validate", capture, "--plan", bad)
	assert.Equalf(t, ExitUsage, code, "a schedule that does not plan is a usage error: %v: code", errOut)
	_, code, _ = runOut(t, "validate", capture, "--plan", filepath.Join(t.TempDir(), "none.yaml"))
	assert.Equal(t, ExitUsage, code, "code")
}

func TestValidateCommandUsage(t *testing.T) {
	t.Parallel()
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
		_, code, errOut := runOut(t, args...)
		assert.Equalf(t, ExitUsage, code, "%v: %v: code", args, errOut)
	}
	// Host capacities that differ from the headers: an error naming both, exit 1.
	out, code, _ := runOut(t, "validate", valid, "--aic-capacity", "0", "--aiv-capacity", "16")
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, out, "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 16 and 16; the flags say 0 and 16", "out")
	assert.Contains(t, out, "layout: not resolved", "out")
	// --max-findings 0 shows every finding.
	b := validCapture()
	for i := range 16 {
		b.Enter(abi.CoreTypeAIV, uint32(i+1), 1000).SetHeader32(abi.CoreTypeAIV, uint32(i+1), abi.CoreHeaderDroppedCountOffset, 1)
	}
	many := writeCapture(t, "many.bin", b.Bytes())
	out, _, _ = runOut(t, "validate", many, "--max-findings", "0")
	assert.Equal(t, 16, strings.Count(out, "warning dropped-records"), "strings.Count(out, \"warning dropped-records\")")
	out, _, _ = runOut(t, "validate", many, "--max-findings", "5")
	assert.Equal(t, 5, strings.Count(out, "warning dropped-records"), "strings.Count(out, \"warning dropped-records\")")
	assert.Contains(t, out, "dropped-records 16 (5 shown)", "out")
}

// validate walks with one P more than its walkers while it runs and gives
// GOMAXPROCS back as it found it; a GOMAXPROCS the user set is left alone.
func TestValidateRestoresGOMAXPROCS(t *testing.T) {
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())
	before := runtime.GOMAXPROCS(0)
	for _, env := range []string{"", "1"} {
		t.Setenv("GOMAXPROCS", env)
		_, code, errOut := runOut(t, "validate", valid, valid)
		require.Equalf(t, ExitOK, code, "%v: code", errOut)
		assert.Equalf(t, before, runtime.GOMAXPROCS(0), "GOMAXPROCS=%q: runtime.GOMAXPROCS(0)", env)
	}
}

// TestValidateStrictReadsOnce: validate --strict infers the kernel family
// a capture's ids need from the ids its walk read, where it opened and
// decoded the capture a second time: a 9 MiB MegaMoe capture read under
// no family is read about once (the bytes this process reads, which
// /proc/self/io counts), and still refused, naming --kernel-family.
func TestValidateStrictReadsOnce(t *testing.T) {
	rchar := func() int64 {
		b, err := os.ReadFile("/proc/self/io")
		if err != nil {
			t.Skipf("no /proc/self/io to count the bytes read: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "rchar: "); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				require.NoError(t, err)
				return n
			}
		}
		t.Skip("/proc/self/io has no rchar")
		return 0
	}
	var stages []uint32
	for _, f := range abi.Families() {
		if f.String() == "MegaMoe" {
			for _, st := range f.Stages() {
				stages = append(stages, st.DescID)
			}
		}
	}
	require.NotEmpty(t, stages, "the schema has no MegaMoe stages")
	b := capturetest.New(abi.MinCubeSlots, 4096, 4096)
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		b.Enter(s.CoreType, s.BlockID, 1000)
		for j := range s.Capacity {
			at := 1000 + 10*uint64(j)
			b.Span(s.CoreType, s.BlockID, at, at+5, stages[int(j)%len(stages)], j)
		}
	}
	path := filepath.Join(t.TempDir(), "c.bin")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	size := int64(len(b.Bytes()))
	before := rchar()
	_, stderr, code := runMain(t, "validate", path, "--strict")
	read := rchar() - before
	require.Equal(t, ExitInvalid, code, "validate --strict: code")
	require.Contains(t, stderr, "kernel family MegaMoe's", "validate --strict: code")
	assert.Contains(t, stderr, "--kernel-family MegaMoe", "validate --strict: code")
	assert.GreaterOrEqualf(t, read, size/2, "validate --strict read bytes of a %d-byte capture; want it read once", size)
	assert.LessOrEqualf(t, read, size*3/2, "validate --strict read bytes of a %d-byte capture; want it read once", size)
}
