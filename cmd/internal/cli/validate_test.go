package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
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
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
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
	if code != ExitOK {
		t.Errorf("%v: code = %v, want %v", errOut, code, ExitOK)
	}
	if out != valid+": 2 records, 0 dropped; 0 errors; 0 warnings; layout: 24 cube slots, AIC capacity 16, AIV capacity 16 (found: 24 cube slots from the AIV/0 header at @0x3600); ABI v2 fingerprint "+abi.FingerprintHex+"\n" {
		t.Errorf("out = %q, want %q", out, valid+": 2 records, 0 dropped; 0 errors; 0 warnings; layout: 24 cube slots, AIC capacity 16, AIV capacity 16 (found: 24 cube slots from the AIV/0 header at @0x3600); ABI v2 fingerprint "+abi.FingerprintHex+"\n")
	}

	out, code, _ = runOut(t, "validate", invalid)
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: len(lines) = %d, want 2: %v", out, len(lines), lines)
	}
	off := bad.HeaderOffset(abi.CoreTypeAIV, 17, abi.CoreHeaderCoreTypeOffset)
	if want := fmt.Sprintf("error slot-identity AIV/17 @%#x", off) + ": core_type=1 block_id=5, expected AIV/17"; lines[0] != want {
		t.Errorf("lines[0] = %q, want %q", lines[0], want)
	}
	if want := invalid + ": 3 records, 0 dropped; 1 error (slot-identity 1); 0 warnings; "; !strings.Contains(lines[1], want) {
		t.Errorf("lines[1] = %q, want it to contain %q", lines[1], want)
	}

	out, code, _ = runOut(t, "validate", warnings)
	if code != ExitOK {
		t.Errorf("warnings alone pass: code = %v, want %v", code, ExitOK)
	}
	if want := "warning overlap AIC/0 record 1 @0x60: start_cycle=1150 before end_cycle=1200 of record 0"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	_, code, _ = runOut(t, "validate", warnings, "--strict")
	if code != ExitInvalid {
		t.Errorf("--strict fails on warnings: code = %v, want %v", code, ExitInvalid)
	}
	_, code, _ = runOut(t, "validate", valid, "--strict")
	if code != ExitOK {
		t.Errorf("code = %v, want %v", code, ExitOK)
	}

	// Several captures: each gets its findings and summary; a missing one
	// is an I/O error (exit 2) that does not stop the others.
	out, code, _ = runOut(t, "validate", valid, filepath.Join(t.TempDir(), "missing.bin"), invalid)
	if code != ExitUsage {
		t.Errorf("code = %v, want %v", code, ExitUsage)
	}
	if want := "missing.bin: no such file or directory"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.Contains(out, valid+": 2 records") {
		t.Errorf("out = %q, want it to contain %q", out, valid+": 2 records")
	}
	if !strings.Contains(out, "\n\nerror slot-identity AIV/17") {
		t.Errorf("out = %q, want it to contain %q", out, "\n\nerror slot-identity AIV/17")
	}
}

func TestValidateCommandJSON(t *testing.T) {
	t.Parallel()
	b := validCapture()
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderReservedOffset, 9)
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderDroppedCountOffset, 3)
	path := writeCapture(t, "rank0.npy", capturetest.NPY(b.Bytes()))
	out, code, _ := runOut(t, "validate", path, "--format", "json", "--max-findings", "1")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	var doc validate.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if doc.Version != validate.JSONVersion {
		t.Errorf("doc.Version = %v, want %v", doc.Version, validate.JSONVersion)
	}
	if doc.ABI.Fingerprint != abi.FingerprintHex {
		t.Errorf("doc.ABI.Fingerprint = %q, want %q", doc.ABI.Fingerprint, abi.FingerprintHex)
	}
	if doc.MaxFindings != 1 {
		t.Errorf("doc.MaxFindings = %v, want 1", doc.MaxFindings)
	}
	if doc.OK {
		t.Errorf("doc.OK = true, want false")
	}
	if len(doc.Captures) != 1 {
		t.Fatalf("len(doc.Captures) = %d, want 1: %v", len(doc.Captures), doc.Captures)
	}
	c := doc.Captures[0]
	if c.File != path {
		t.Errorf("c.File = %q, want %q", c.File, path)
	}
	if c.Format == nil {
		t.Fatalf("c.Format is nil, want non-nil")
	}
	if *c.Format != "npy" {
		t.Errorf("*c.Format = %q, want %q", *c.Format, "npy")
	}
	if c.BufferOffset != 128 {
		t.Errorf("c.BufferOffset = %v, want 128", c.BufferOffset)
	}
	if c.Layout == nil {
		t.Fatalf("c.Layout is nil, want non-nil")
	}
	if want := map[string]uint32{"AIC": 16, "AIV": 16}; !reflect.DeepEqual(c.Layout.Capacities, want) {
		t.Errorf("c.Layout.Capacities = %v, want %v", c.Layout.Capacities, want)
	}
	if c.Layout.Source != validate.FromHeaders {
		t.Errorf("c.Layout.Source = %q, want %q", c.Layout.Source, validate.FromHeaders)
	}
	if c.Records != 2 {
		t.Errorf("c.Records = %v, want 2", c.Records)
	}
	if c.Dropped != 3 {
		t.Errorf("c.Dropped = %v, want 3", c.Dropped)
	}
	if c.Errors != 1 {
		t.Errorf("c.Errors = %v, want 1", c.Errors)
	}
	if c.Warnings != 2 {
		t.Errorf("c.Warnings = %v, want 2", c.Warnings)
	}
	if want := (validate.CodeJSON{Severity: "error", Count: 1, Shown: 1}); !reflect.DeepEqual(c.Codes["reserved-nonzero"], want) {
		t.Errorf("c.Codes[\"reserved-nonzero\"] = %v, want %v", c.Codes["reserved-nonzero"], want)
	}
	if len(c.Findings) != 3 {
		t.Fatalf("len(c.Findings) = %d, want 3: %v", len(c.Findings), c.Findings)
	}
	f := c.Findings[0]
	if got := string(f.Code); got != "dropped-total" {
		t.Errorf("string(f.Code) = %q, want %q", got, "dropped-total")
	}
	if f.Slot != nil {
		t.Errorf("f.Slot = %v, want nil", f.Slot)
	}
	if f.Record != nil {
		t.Errorf("f.Record = %v, want nil", f.Record)
	}
	if f.Offset != 128 {
		t.Errorf("offsets are file offsets: f.Offset = %v, want 128", f.Offset)
	}
	f = c.Findings[2]
	if got := string(f.Code); got != "reserved-nonzero" {
		t.Errorf("string(f.Code) = %q, want %q", got, "reserved-nonzero")
	}
	if f.Slot == nil {
		t.Fatalf("f.Slot is nil, want non-nil")
	}
	if *f.Slot != "AIC/0" {
		t.Errorf("*f.Slot = %q, want %q", *f.Slot, "AIC/0")
	}
	if f.OffsetHex != "0x9c" {
		t.Errorf("f.OffsetHex = %q, want %q", f.OffsetHex, "0x9c")
	}
	if f.Value != "reserved=0x9" {
		t.Errorf("f.Value = %q, want %q", f.Value, "reserved=0x9")
	}
	if f.Expected != "0" {
		t.Errorf("f.Expected = %q, want %q", f.Expected, "0")
	}

	// The raw JSON spells severities as words and absent slots as null.
	if !strings.Contains(out, `"severity": "error"`) {
		t.Errorf("out = %q, want it to contain %q", out, `"severity": "error"`)
	}
	if !strings.Contains(out, `"slot": null`) {
		t.Errorf("out = %q, want it to contain %q", out, `"slot": null`)
	}

	// An unreadable capture is in the document with its I/O error.
	out, _, code = runMain(t, "validate", filepath.Join(t.TempDir(), "gone.bin"), "--format", "json")
	if code != ExitUsage {
		t.Errorf("code = %v, want %v", code, ExitUsage)
	}
	doc = validate.Document{}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Captures) != 1 {
		t.Fatalf("len(doc.Captures) = %d, want 1: %v", len(doc.Captures), doc.Captures)
	}
	if !strings.Contains(doc.Captures[0].IOError, "no such file") {
		t.Errorf("doc.Captures[0].IOError = %q, want it to contain %q", doc.Captures[0].IOError, "no such file")
	}
	if doc.Captures[0].Layout != nil {
		t.Errorf("doc.Captures[0].Layout = %v, want nil", doc.Captures[0].Layout)
	}
}

func TestValidateCommandTruncated(t *testing.T) {
	t.Parallel()
	b := validCapture().Bytes()
	path := writeCapture(t, "cut.bin", b[:len(b)-100])
	out, code, _ := runOut(t, "validate", path)
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if !strings.Contains(out, "error truncated @") {
		t.Errorf("out = %q, want it to contain %q", out, "error truncated @")
	}
	if !strings.Contains(out, "(100 missing)") {
		t.Errorf("out = %q, want it to contain %q", out, "(100 missing)")
	}
	if !strings.Contains(out, "layout: not resolved") {
		t.Errorf("out = %q, want it to contain %q", out, "layout: not resolved")
	}
}

func TestValidateCommandPlan(t *testing.T) {
	t.Parallel()
	const schedule = "../../../examples/moe_layer.yaml"
	capture := "../../../examples/moe_layer.bin" // synthesised with --capacity-scale 0.8: capacities 64, the plan's 80
	out, code, errOut := runOut(t, "validate", capture, "--plan", schedule)
	if code != ExitOK {
		t.Errorf("%v: code = %v, want %v", errOut, code, ExitOK)
	}
	if want := "warning plan-mismatch AIC/0 @0x18: record_capacity=64 (and 23 more live AIC headers), expected 80 (the AIC capacity of host plan " + schedule + ")"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.Contains(out, "plan-mismatch 2") {
		t.Errorf("out = %q, want it to contain %q", out, "plan-mismatch 2")
	}
	_, code, _ = runOut(t, "validate", capture, "--plan", schedule, "--strict")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}

	// --cube-slots the headers contradict: an error naming both counts.
	out, code, _ = runOut(t, "validate", capture, "--plan", schedule, "--cube-slots", "25")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if want := "error layout-mismatch @0xc600: the AIV/0 header at @0xc600 says 24 cube slots; the flags say 25"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}

	// The recipe of docs/capture-to-trace.md: the plan's flags (80) against a capture written
	// with --capacity-scale 0.8 (64): both values, not "truncated".
	out, code, _ = runOut(t, "validate", capture, "--cube-slots", "24", "--aic-capacity", "80", "--aiv-capacity", "80")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if want := "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 64 and 64; the flags say 80 and 80"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if strings.Contains(out, "truncated") {
		t.Errorf("out = %q, want no %q", out, "truncated")
	}

	bad := writeSchedule(t, "num_workers: 3\ntasks: []\n")
	_, code, errOut = runOut(t, "validate", capture, "--plan", bad)
	if code != ExitUsage {
		t.Errorf("a schedule that does not plan is a usage error: %v: code = %v, want %v", errOut, code, ExitUsage)
	}
	_, code, _ = runOut(t, "validate", capture, "--plan", filepath.Join(t.TempDir(), "none.yaml"))
	if code != ExitUsage {
		t.Errorf("code = %v, want %v", code, ExitUsage)
	}
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
		if code != ExitUsage {
			t.Errorf("%v: %v: code = %v, want %v", args, errOut, code, ExitUsage)
		}
	}
	// Host capacities that differ from the headers: an error naming both, exit 1.
	out, code, _ := runOut(t, "validate", valid, "--aic-capacity", "0", "--aiv-capacity", "16")
	if code != ExitInvalid {
		t.Errorf("code = %v, want %v", code, ExitInvalid)
	}
	if want := "error layout-mismatch @0x18: the headers of AIC/0 and AIV/0 say capacities 16 and 16; the flags say 0 and 16"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.Contains(out, "layout: not resolved") {
		t.Errorf("out = %q, want it to contain %q", out, "layout: not resolved")
	}
	// --max-findings 0 shows every finding.
	b := validCapture()
	for i := range 16 {
		b.Enter(abi.CoreTypeAIV, uint32(i+1), 1000).SetHeader32(abi.CoreTypeAIV, uint32(i+1), abi.CoreHeaderDroppedCountOffset, 1)
	}
	many := writeCapture(t, "many.bin", b.Bytes())
	out, _, _ = runOut(t, "validate", many, "--max-findings", "0")
	if got := strings.Count(out, "warning dropped-records"); got != 16 {
		t.Errorf("strings.Count(out, \"warning dropped-records\") = %v, want 16", got)
	}
	out, _, _ = runOut(t, "validate", many, "--max-findings", "5")
	if got := strings.Count(out, "warning dropped-records"); got != 5 {
		t.Errorf("strings.Count(out, \"warning dropped-records\") = %v, want 5", got)
	}
	if !strings.Contains(out, "dropped-records 16 (5 shown)") {
		t.Errorf("out = %q, want it to contain %q", out, "dropped-records 16 (5 shown)")
	}
}

// validate walks with one P more than its walkers while it runs and gives
// GOMAXPROCS back as it found it; a GOMAXPROCS the user set is left alone.
func TestValidateRestoresGOMAXPROCS(t *testing.T) {
	valid := writeCapture(t, "ok.bin", validCapture().Bytes())
	before := runtime.GOMAXPROCS(0)
	for _, env := range []string{"", "1"} {
		t.Setenv("GOMAXPROCS", env)
		_, code, errOut := runOut(t, "validate", valid, valid)
		if code != ExitOK {
			t.Fatalf("%v: code = %v, want %v", errOut, code, ExitOK)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("GOMAXPROCS=%q: runtime.GOMAXPROCS(0) = %v, want %v", env, got, before)
		}
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
				if err != nil {
					t.Fatal(err)
				}
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
	if len(stages) == 0 {
		t.Fatal("the schema has no MegaMoe stages")
	}
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
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(len(b.Bytes()))
	before := rchar()
	_, stderr, code := runMain(t, "validate", path, "--strict")
	read := rchar() - before
	if code != ExitInvalid || !strings.Contains(stderr, "kernel family MegaMoe's") || !strings.Contains(stderr, "--kernel-family MegaMoe") {
		t.Errorf("validate --strict: code %v, stderr %q; want 1 naming --kernel-family MegaMoe", code, stderr)
	}
	if read < size/2 || read > size*3/2 {
		t.Errorf("validate --strict read %d bytes of a %d-byte capture; want it read once", read, size)
	}
}
