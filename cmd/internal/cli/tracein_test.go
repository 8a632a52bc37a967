package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
)

// exampleTrace decodes the shipped example capture (which drops records)
// into a JSON trace, gzip-compressed when name ends in .gz.
func exampleTrace(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml",
		"--soc", "ascend950", "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	return out
}

// TestTraceCommands: every command that reads captures takes the JSON
// trace decode wrote of one, told by content, and reports what it
// reports of the capture (less what a trace cannot carry, said in notes).
func TestTraceCommands(t *testing.T) {
	t.Parallel()
	trace := exampleTrace(t, "moe.json.gz")
	capArgs := []string{"../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "--soc", "ascend950", "--plan", "../../../examples/moe_layer.yaml"}

	stdout, stderr, code := runMain(t, append([]string{"analyze", "--format", "json"}, capArgs...)...)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	var want analyze.Report
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	// No --names nor --soc: the trace states its names and frequency.
	stdout, stderr, code = runMain(t, "analyze", trace, "--plan", "../../../examples/moe_layer.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	var got analyze.Report
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	w, g := want.Ranks[0], got.Ranks[0]
	if g.CycleFrequencyMHz != w.CycleFrequencyMHz {
		t.Errorf("g.CycleFrequencyMHz = %v, want %v", g.CycleFrequencyMHz, w.CycleFrequencyMHz)
	}
	if g.Records != w.Records {
		t.Errorf("g.Records = %v, want %v", g.Records, w.Records)
	}
	if g.Dropped != w.Dropped {
		t.Errorf("g.Dropped = %v, want %v", g.Dropped, w.Dropped)
	}
	if !reflect.DeepEqual(g.Layout, w.Layout) {
		t.Errorf("g.Layout = %v, want %v", g.Layout, w.Layout)
	}
	if g.MakespanCycles != w.MakespanCycles {
		t.Errorf("g.MakespanCycles = %v, want %v", g.MakespanCycles, w.MakespanCycles)
	}
	if !reflect.DeepEqual(g.Stages, w.Stages) {
		t.Errorf("g.Stages = %v, want %v", g.Stages, w.Stages)
	}
	if !reflect.DeepEqual(g.TaskTypes, w.TaskTypes) {
		t.Errorf("g.TaskTypes = %v, want %v", g.TaskTypes, w.TaskTypes)
	}
	if !reflect.DeepEqual(g.Waits, w.Waits) {
		t.Errorf("g.Waits = %v, want %v", g.Waits, w.Waits)
	}
	if !reflect.DeepEqual(g.CriticalPath, w.CriticalPath) {
		t.Errorf("g.CriticalPath = %v, want %v", g.CriticalPath, w.CriticalPath)
	}
	if !reflect.DeepEqual(g.Flows, w.Flows) {
		t.Errorf("g.Flows = %v, want %v", g.Flows, w.Flows)
	}
	if g.Totals.ActiveCores != w.Totals.ActiveCores {
		t.Errorf("g.Totals.ActiveCores = %v, want %v", g.Totals.ActiveCores, w.Totals.ActiveCores)
	}
	if g.Totals.Cores >= w.Totals.Cores {
		t.Errorf("the example has entered cores that wrote nothing: g.Totals.Cores = %v, want < %v", g.Totals.Cores, w.Totals.Cores)
	}
	if g.Totals.Cores != g.Totals.ActiveCores {
		t.Errorf("g.Totals.Cores = %v, want %v", g.Totals.Cores, g.Totals.ActiveCores)
	}
	if len(g.Notes) == 0 {
		t.Errorf("g.Notes is empty, want something")
	}
	if len(w.Notes) != 0 {
		t.Errorf("w.Notes = %v, want empty", w.Notes)
	}

	stdout, _, code = runMain(t, "analyze", trace)
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	if want := "note: a trace holds only the cores that wrote records"; !strings.Contains(stdout, want) {
		t.Errorf("stdout = %q, want it to contain %q", stdout, want)
	}
	if !strings.Contains(stdout, "note: the device dropped 10 records") {
		t.Errorf("stdout = %q, want it to contain %q", stdout, "note: the device dropped 10 records")
	}

	stdout, stderr, code = runMain(t, "validate", trace)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if !strings.Contains(stdout, "2974 records, 10 dropped") {
		t.Errorf("stdout = %q, want it to contain %q", stdout, "2974 records, 10 dropped")
	}
	if !strings.Contains(stdout, "dropped-total") {
		t.Errorf("stdout = %q, want it to contain %q", stdout, "dropped-total")
	}
	if !strings.Contains(stderr, "cycleabi: note: "+trace) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "cycleabi: note: "+trace)
	}
	_, _, code = runMain(t, "validate", trace, "--strict")
	if code != 1 {
		t.Errorf("dropped records are a warning, as for the capture: code = %v, want 1", code)
	}

	pf := filepath.Join(t.TempDir(), "moe.pftrace")
	_, stderr, code = runMain(t, "decode", trace, "-o", pf)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if !strings.Contains(stderr, "2974 records from 1 capture(s)") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "2974 records from 1 capture(s)")
	}
	st, err := os.Stat(pf)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Size(); got <= int64(10000) {
		t.Errorf("st.Size() = %v, want > %v", got, int64(10000))
	}

	// A capture diffed with its trace: no change in anything diff shows.
	stdout, stderr, code = runMain(t, append([]string{"diff", trace}, capArgs...)...)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if !strings.Contains(stdout, "no change") {
		t.Errorf("stdout = %q, want it to contain %q", stdout, "no change")
	}

	page := filepath.Join(t.TempDir(), "r.html")
	_, stderr, code = runMain(t, "report", trace, "-o", page)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<p class="note">Note: a trace holds only the cores that wrote records`) {
		t.Errorf("the HTML does not contain %q", `<p class="note">Note: a trace holds only the cores that wrote records`)
	}
}

// TestTraceRefusals: a broken trace is invalid input (exit 1) named with
// its line and byte offset; flags that only a capture needs are refused.
func TestTraceRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"MegaKernelInternal\",\"args\":{}}\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"analyze", "decode", "validate", "report"} {
		_, stderr, code := runMain(t, cmd, bad, "-o", filepath.Join(dir, "out-"+cmd))
		if cmd == "validate" {
			_, stderr, code = runMain(t, cmd, bad)
		}
		if code != 1 {
			t.Errorf("%s: %s: code = %v, want 1", cmd, stderr, code)
		}
		if want := bad + ":2: byte 17: a MegaKernelInternal event without args.rank"; !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr = %q, want it to contain %q", cmd, stderr, want)
		}
	}
	trace := exampleTrace(t, "t.json")
	for _, args := range [][]string{
		{"analyze", trace, "--rank", "3"},
		{"analyze", trace, "--aic-capacity", "64", "--aiv-capacity", "64"},
		{"analyze", trace, "--step", "1"},
	} {
		_, stderr, code := runMain(t, args...)
		if code != 2 {
			t.Errorf("%v: %s: code = %v, want 2", args, stderr, code)
		}
		if !strings.Contains(stderr, "trace states its") {
			t.Errorf("%v: %s: strings.Contains(stderr, \"trace states its\") = false, want true", args, stderr)
		}
	}
}

// TestTraceRoundTrip: decode of the trace decode wrote (detailed names,
// another owner label, a names file) writes the same events, byte for
// byte: everything an event shows is read back.
func TestTraceRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.json"), filepath.Join(dir, "second.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml",
		"--detailed-names", "--owner-label", "Expert", "--kernel-name", "MegaMoe", "--soc", "ascend950", "-o", first)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	_, stderr, code = runMain(t, "decode", first, "-o", second)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	a, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	events := func(b []byte) string {
		s, _, ok := strings.Cut(string(b), "\n],\n")
		if !ok {
			t.Fatalf("no end of traceEvents: ok = false, want true")
		}
		return s
	}
	if got, want := events(b), events(a); got != want {
		t.Fatalf("events(b) = %q, want %q", got, want)
	}
	// The metadata too, but for how the layout was found.
	var ma, mb struct{ MegaKernelCycleTrace map[string]any }
	if err := json.Unmarshal(a, &ma); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &mb); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"layoutSource", "cubeSlotsSource", "layoutFound"} {
		delete(ma.MegaKernelCycleTrace, k)
		delete(mb.MegaKernelCycleTrace, k)
	}
	if !reflect.DeepEqual(mb, ma) {
		t.Errorf("mb = %v, want %v", mb, ma)
	}
}

// TestUpstreamWindow: a window as upstream's export writes it (events with
// invocation_id, step and direction; invocations[] in the metadata, which
// states no frequency or capacities) is analyzed an invocation a section,
// at --freq-mhz, with notes for what the window leaves unsaid.
func TestUpstreamWindow(t *testing.T) {
	t.Parallel()
	event := func(inv, block, start int, dir string) string {
		return fmt.Sprintf(`{"name":"TaskType_MatMul","cat":"MegaKernelInternal","ph":"X","pid":2,"tid":%d,"ts":0.0,"dur":1.0,"args":{"rank":2,"device_id":0,"core_type":"AIC","block_id":%d,"task_id":0,"desc_id":131175,"stage_task_index":0,"task_number":1,"start_cycle":%d,"end_cycle":%d,"core_entry_cycle":100,"task_type":103,"invocation_id":%d,"step":7,"direction":"%s"}}`,
			1000+block, block, start, start+500, inv, dir)
	}
	text := `{"traceEvents": [` + strings.Join([]string{
		`{"name":"process_name","ph":"M","pid":2,"tid":0,"args":{"name":"MegaMoe rank 2 device 0"}}`,
		event(0, 0, 1000, "forward"), event(0, 1, 1200, "forward"), event(1, 0, 9000, "backward"),
	}, ", ") + `], "megaKernelCycleTrace": {"schemaVersion": 1, "windowIndex": 0, "anchorCycle": 100, "invocationCount": 2, "recordCount": 3, "droppedRecordCount": 0, "detailedTaskNames": false, "invocations": [` +
		`{"invocationId": 0, "step": 7, "direction": "forward", "kernelName": "MegaMoe", "rank": 2, "deviceId": 0, "anchorCycle": 100, "recordCount": 2, "droppedRecordCount": 0}, ` +
		`{"invocationId": 1, "step": 7, "direction": "backward", "kernelName": "MegaMoeGrad", "rank": 2, "deviceId": 0, "anchorCycle": 100, "recordCount": 1, "droppedRecordCount": 0}], "warnings": []}}`
	path := filepath.Join(t.TempDir(), "mega_kernel_trace.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runMain(t, "analyze", path, "--freq-mhz", "100", "--format", "json")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	var rep analyze.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Ranks) != 2 {
		t.Fatalf("len(rep.Ranks) = %d, want 2: %v", len(rep.Ranks), rep.Ranks)
	}
	for i, want := range []struct {
		dir     string
		kernel  string
		records uint64
		aic     uint32
	}{{"forward", "MegaMoe", 2, 16}, {"backward", "MegaMoeGrad", 1, 16}} {
		k := rep.Ranks[i]
		if k.Invocation == nil {
			t.Fatalf("k.Invocation is nil, want non-nil")
		}
		if want := int64(i); k.Invocation.ID != want {
			t.Errorf("k.Invocation.ID = %v, want %v", k.Invocation.ID, want)
		}
		if *k.Invocation.Direction != want.dir {
			t.Errorf("*k.Invocation.Direction = %q, want %q", *k.Invocation.Direction, want.dir)
		}
		if *k.Invocation.Step != int64(7) {
			t.Errorf("*k.Invocation.Step = %v, want %v", *k.Invocation.Step, int64(7))
		}
		if k.Invocation.KernelName != want.kernel {
			t.Errorf("k.Invocation.KernelName = %q, want %q", k.Invocation.KernelName, want.kernel)
		}
		if k.Rank != uint32(2) {
			t.Errorf("k.Rank = %v, want %v", k.Rank, uint32(2))
		}
		if k.Records != want.records {
			t.Errorf("k.Records = %v, want %v", k.Records, want.records)
		}
		if k.CycleFrequencyMHz != 100.0 {
			t.Errorf("k.CycleFrequencyMHz = %v, want 100.0", k.CycleFrequencyMHz)
		}
		if k.Layout.Capacities["AIC"] != want.aic {
			t.Errorf("the smallest capacity that holds the records: k.Layout.Capacities[\"AIC\"] = %v, want %v", k.Layout.Capacities["AIC"], want.aic)
		}
		if got := strings.Join(k.Notes, "\n"); !strings.Contains(got, "the trace states no record capacities") {
			t.Errorf("strings.Join(k.Notes, \"\\n\") = %q, want it to contain %q", got, "the trace states no record capacities")
		}
		if got := strings.Join(k.Notes, "\n"); !strings.Contains(got, "the trace states no cycle frequency") {
			t.Errorf("strings.Join(k.Notes, \"\\n\") = %q, want it to contain %q", got, "the trace states no cycle frequency")
		}
	}
	if rep.Ranks[0].MakespanCycles != uint64(1200+500-100) {
		t.Errorf("rep.Ranks[0].MakespanCycles = %v, want %v", rep.Ranks[0].MakespanCycles, uint64(1200+500-100))
	}
}

// TestTraceGainsArrows: decode --plan of a trace without arrows writes
// what decode --plan of the capture writes: the same events and arrows.
func TestTraceGainsArrows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain, fromTrace, fromCapture := filepath.Join(dir, "plain.json"), filepath.Join(dir, "t.json"), filepath.Join(dir, "c.json")
	for _, args := range [][]string{
		{"decode", "../../../examples/moe_layer.bin", "-o", plain},
		{"decode", plain, "--plan", "../../../examples/moe_layer.yaml", "-o", fromTrace},
		{"decode", "../../../examples/moe_layer.bin", "--plan", "../../../examples/moe_layer.yaml", "-o", fromCapture},
	} {
		_, stderr, code := runMain(t, args...)
		if code != 0 {
			t.Fatalf("%s: code = %v, want 0", stderr, code)
		}
	}
	a, err := os.ReadFile(fromTrace)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fromCapture)
	if err != nil {
		t.Fatal(err)
	}
	ea, _, _ := strings.Cut(string(a), "\n],\n")
	eb, _, _ := strings.Cut(string(b), "\n],\n")
	if !strings.Contains(eb, `"ph":"s"`) {
		t.Fatalf("the capture's trace has arrows: eb = %q, want it to contain %q", eb, `"ph":"s"`)
	}
	if ea != eb {
		t.Fatalf("ea = %q, want %q", ea, eb)
	}
}

// TestTraceKernelFamily: a trace's kernelName chooses the kernel family,
// so a MegaMoe trace's runtime-namespace stage (0x10001 Dispatch) is
// compute, as for its capture analyzed with --kernel-name MegaMoe. A
// trace whose kernelName is upstream's default (MegaKernel) has the
// family inferred from its ids and names, and says so; --kernel-family
// none reads it under none (the stage is other), with a warning that
// its ids are MegaMoe's; a --kernel-name that
// differs from the trace's is applied and said, never dropped.
func TestTraceKernelFamily(t *testing.T) {
	t.Parallel()
	ev := `{"name":"Dispatch","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2000,"ts":0.0,"dur":10.0,"args":{"rank":0,"device_id":0,"core_type":"AIV","block_id":0,"task_id":0,"desc_id":65537,"stage_task_index":0,"task_number":1,"start_cycle":1000,"end_cycle":1500,"core_entry_cycle":1000}}`
	meta := `"megaKernelCycleTrace":{"schemaVersion":1,"rank":0,"deviceId":0,"socName":"ascend910b","cycleFrequencyMHz":50.0,"anchorCycle":1000,"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":false,"kernelName":"%s","ownerLabel":"Expert"}`
	dir := t.TempDir()
	for _, c := range []struct {
		kernel  string
		flags   []string
		compute bool
		// said is what stderr must hold ("" for nothing).
		said string
	}{
		{"MegaMoe", nil, true, ""},
		{"MegaKernel", nil, true, "read under kernel family MegaMoe, inferred from desc id 0x10001 (only MegaMoe names them so); --kernel-family overrides"},
		{"MegaKernel", []string{"--kernel-family", "none"}, false, "the schema's own tables (no kernel family, from the flag --kernel-family) do not name desc id 0x10001: they are kernel family MegaMoe's: give --kernel-family MegaMoe"},
		{"MegaKernel", []string{"--kernel-name", "MegaMoe"}, true, `--kernel-name "MegaMoe" applied over the data's kernel name "MegaKernel"`},
		{"MegaMoe", []string{"--kernel-name", "MegaMoeGrad"}, false, "kernel family MegaMoeGrad (from the kernel name \"MegaMoeGrad\") does not name desc id 0x10001: they are kernel family MegaMoe's: give --kernel-family MegaMoe"},
		{"MegaKernel", []string{"--kernel-name", "HyperMegaMoe"}, true, `--kernel-name "HyperMegaMoe" chooses no kernel family`},
	} {
		path := filepath.Join(dir, c.kernel+".json")
		if err := os.WriteFile(path, []byte(`{"traceEvents":[`+ev+`],`+fmt.Sprintf(meta, c.kernel)+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runMain(t, append([]string{"analyze", path, "--format", "json"}, c.flags...)...)
		if code != 0 {
			t.Fatalf("%s: code = %v, want 0", stderr, code)
		}
		if c.said == "" && strings.Contains(stderr, "family") || !strings.Contains(stderr, c.said) {
			t.Errorf("%s %v: stderr = %q, want it to say %q", c.kernel, c.flags, stderr, c.said)
		}
		var rep analyze.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		k := rep.Ranks[0]
		if c.compute {
			if k.Totals.ComputeCycles != uint64(500) {
				t.Errorf("%s %v: k.Totals.ComputeCycles = %v, want %v", c.kernel, c.flags, k.Totals.ComputeCycles, uint64(500))
			}
			if len(k.Stages) != 1 {
				t.Fatalf("len(k.Stages) = %d, want 1: %v", len(k.Stages), k.Stages)
			}
			if k.Stages[0].Name != "Dispatch" {
				t.Errorf("k.Stages[0].Name = %q, want %q", k.Stages[0].Name, "Dispatch")
			}
		} else {
			if k.Totals.ComputeCycles != uint64(0) {
				t.Errorf("%s %v: k.Totals.ComputeCycles = %v, want %v", c.kernel, c.flags, k.Totals.ComputeCycles, uint64(0))
			}
			if k.Totals.OtherCycles != uint64(500) {
				t.Errorf("%s %v: k.Totals.OtherCycles = %v, want %v", c.kernel, c.flags, k.Totals.OtherCycles, uint64(500))
			}
		}
	}
}
