package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleTrace decodes the shipped example capture (which drops records)
// into a JSON trace, gzip-compressed when name ends in .gz.
func exampleTrace(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml",
		"--soc", "ascend950", "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)
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
	require.Equalf(t, 0, code, "%s: code", stderr)
	var want analyze.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &want))
	// No --names nor --soc: the trace states its names and frequency.
	stdout, stderr, code = runMain(t, "analyze", trace, "--plan", "../../../examples/moe_layer.yaml", "--format", "json")
	require.Equalf(t, 0, code, "%s: code", stderr)
	var got analyze.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	w, g := want.Ranks[0], got.Ranks[0]
	assert.Equal(t, w.CycleFrequencyMHz, g.CycleFrequencyMHz, "g.CycleFrequencyMHz")
	assert.Equal(t, w.Records, g.Records, "g.Records")
	assert.Equal(t, w.Dropped, g.Dropped, "g.Dropped")
	assert.Equal(t, w.Layout, g.Layout, "g.Layout")
	assert.Equal(t, w.MakespanCycles, g.MakespanCycles, "g.MakespanCycles")
	assert.Equal(t, w.Stages, g.Stages, "g.Stages")
	assert.Equal(t, w.TaskTypes, g.TaskTypes, "g.TaskTypes")
	assert.Equal(t, w.Waits, g.Waits, "g.Waits")
	assert.Equal(t, w.CriticalPath, g.CriticalPath, "g.CriticalPath")
	assert.Equal(t, w.Flows, g.Flows, "g.Flows")
	assert.Equal(t, w.Totals.ActiveCores, g.Totals.ActiveCores, "g.Totals.ActiveCores")
	assert.Less(t, g.Totals.Cores, w.Totals.Cores, "the example has entered cores that wrote nothing: g.Totals.Cores")
	assert.Equal(t, g.Totals.ActiveCores, g.Totals.Cores, "g.Totals.Cores")
	assert.NotEmpty(t, g.Notes, "g.Notes is empty, want something")
	assert.Empty(t, w.Notes, "w.Notes")

	stdout, _, code = runMain(t, "analyze", trace)
	require.Equal(t, 0, code, "code")
	assert.Contains(t, stdout, "note: a trace holds only the cores that wrote records", "stdout")
	assert.Contains(t, stdout, "note: the device dropped 10 records", "stdout")

	stdout, stderr, code = runMain(t, "validate", trace)
	require.Equalf(t, 0, code, "%s: code", stderr)
	assert.Contains(t, stdout, "2974 records, 10 dropped", "stdout")
	assert.Contains(t, stdout, "dropped-total", "stdout")
	assert.Contains(t, stderr, "cycleabi: note: "+trace, "stderr")
	_, _, code = runMain(t, "validate", trace, "--strict")
	assert.Equal(t, 1, code, "dropped records are a warning, as for the capture: code")

	pf := filepath.Join(t.TempDir(), "moe.pftrace")
	_, stderr, code = runMain(t, "decode", trace, "-o", pf)
	require.Equalf(t, 0, code, "%s: code", stderr)
	assert.Contains(t, stderr, "2974 records from 1 capture(s)", "stderr")
	st, err := os.Stat(pf)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10000), "st.Size()")

	// A capture diffed with its trace: no change in anything diff shows.
	stdout, stderr, code = runMain(t, append([]string{"diff", trace}, capArgs...)...)
	require.Equalf(t, 0, code, "%s: code", stderr)
	assert.Contains(t, stdout, "no change", "stdout")

	page := filepath.Join(t.TempDir(), "r.html")
	_, stderr, code = runMain(t, "report", trace, "-o", page)
	require.Equalf(t, 0, code, "%s: code", stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `<p class="note">Note: a trace holds only the cores that wrote records`, "the HTML does not contain")
}

// TestTraceRefusals: a broken trace is invalid input (exit 1) named with
// its line and byte offset; flags that only a capture needs are refused.
func TestTraceRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"MegaKernelInternal\",\"args\":{}}\n]}"), 0o644))
	for _, cmd := range []string{"analyze", "decode", "validate", "report"} {
		_, stderr, code := runMain(t, cmd, bad, "-o", filepath.Join(dir, "out-"+cmd))
		if cmd == "validate" {
			_, stderr, code = runMain(t, cmd, bad)
		}
		assert.Equalf(t, 1, code, "%s: %s: code", cmd, stderr)
		assert.Containsf(t, stderr, bad+":2: byte 17: a MegaKernelInternal event without args.rank", "%s: stderr", cmd)
	}
	trace := exampleTrace(t, "t.json")
	for _, args := range [][]string{
		{"analyze", trace, "--rank", "3"},
		{"analyze", trace, "--aic-capacity", "64", "--aiv-capacity", "64"},
		{"analyze", trace, "--step", "1"},
	} {
		_, stderr, code := runMain(t, args...)
		assert.Equalf(t, 2, code, "%v: %s: code", args, stderr)
		assert.Containsf(t, stderr, "trace states its", "%v", args)
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
	require.Equalf(t, 0, code, "%s: code", stderr)
	_, stderr, code = runMain(t, "decode", first, "-o", second)
	require.Equalf(t, 0, code, "%s: code", stderr)
	a, err := os.ReadFile(first)
	require.NoError(t, err)
	b, err := os.ReadFile(second)
	require.NoError(t, err)
	events := func(b []byte) string {
		s, _, ok := strings.Cut(string(b), "\n],\n")
		require.True(t, ok, "no end of traceEvents: ok = false, want true")
		return s
	}
	require.Equal(t, events(a), events(b), "events(b)")
	// The metadata too, but for how the layout was found.
	var ma, mb struct{ MegaKernelCycleTrace map[string]any }
	require.NoError(t, json.Unmarshal(a, &ma))
	require.NoError(t, json.Unmarshal(b, &mb))
	for _, k := range []string{"layoutSource", "cubeSlotsSource", "layoutFound"} {
		delete(ma.MegaKernelCycleTrace, k)
		delete(mb.MegaKernelCycleTrace, k)
	}
	assert.Equal(t, ma, mb, "mb")
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
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	stdout, stderr, code := runMain(t, "analyze", path, "--freq-mhz", "100", "--format", "json")
	require.Equalf(t, 0, code, "%s: code", stderr)
	var rep analyze.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	require.Len(t, rep.Ranks, 2, "len(rep.Ranks)")
	for i, want := range []struct {
		dir     string
		kernel  string
		records uint64
		aic     uint32
	}{{"forward", "MegaMoe", 2, 16}, {"backward", "MegaMoeGrad", 1, 16}} {
		k := rep.Ranks[i]
		require.NotNil(t, k.Invocation, "k.Invocation is nil, want non-nil")
		assert.Equal(t, int64(i), k.Invocation.ID, "k.Invocation.ID")
		assert.Equalf(t, want.dir, *k.Invocation.Direction, "*k.Invocation.Direction = %q, want %q", *k.Invocation.Direction, want.dir)
		assert.Equalf(t, int64(7), *k.Invocation.Step, "*k.Invocation.Step = %v, want %v", *k.Invocation.Step, int64(7))
		assert.Equal(t, want.kernel, k.Invocation.KernelName, "k.Invocation.KernelName")
		assert.Equal(t, uint32(2), k.Rank, "k.Rank")
		assert.Equal(t, want.records, k.Records, "k.Records")
		assert.Equal(t, 100.0, k.CycleFrequencyMHz, "k.CycleFrequencyMHz")
		assert.Equal(t, want.aic, k.Layout.Capacities["AIC"], "the smallest capacity that holds the records: k.Layout.Capacities[\"AIC\"]")
		assert.Contains(t, strings.Join(k.Notes, "\n"), "the trace states no record capacities", "strings.Join(k.Notes, \"\\n\")")
		assert.Contains(t, strings.Join(k.Notes, "\n"), "the trace states no cycle frequency", "strings.Join(k.Notes, \"\\n\")")
	}
	assert.Equal(t, uint64(1200+500-100), rep.Ranks[0].MakespanCycles, "rep.Ranks[0].MakespanCycles")
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
		require.Equalf(t, 0, code, "%s: code", stderr)
	}
	a, err := os.ReadFile(fromTrace)
	require.NoError(t, err)
	b, err := os.ReadFile(fromCapture)
	require.NoError(t, err)
	ea, _, _ := strings.Cut(string(a), "\n],\n")
	eb, _, _ := strings.Cut(string(b), "\n],\n")
	require.Contains(t, eb, `"ph":"s"`, "the capture's trace has arrows: eb")
	require.Equal(t, eb, ea, "ea")
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
		require.NoError(t, os.WriteFile(path, []byte(`{"traceEvents":[`+ev+`],`+fmt.Sprintf(meta, c.kernel)+`}`), 0o644))
		stdout, stderr, code := runMain(t, append([]string{"analyze", path, "--format", "json"}, c.flags...)...)
		require.Equalf(t, 0, code, "%s: code", stderr)
		require.Falsef(t, c.said == "" && strings.Contains(stderr, "family"), "%s %v: stderr", c.kernel, c.flags)
		assert.Containsf(t, stderr, c.said, "%s %v: stderr", c.kernel, c.flags)
		var rep analyze.Report
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
		k := rep.Ranks[0]
		if c.compute {
			assert.Equalf(t, uint64(500), k.Totals.ComputeCycles, "%s %v: k.Totals.ComputeCycles", c.kernel, c.flags)
			require.Len(t, k.Stages, 1, "len(k.Stages)")
			assert.Equal(t, "Dispatch", k.Stages[0].Name, "k.Stages[0].Name")
		} else {
			assert.Equalf(t, uint64(0), k.Totals.ComputeCycles, "%s %v: k.Totals.ComputeCycles", c.kernel, c.flags)
			assert.Equalf(t, uint64(500), k.Totals.OtherCycles, "%s %v: k.Totals.OtherCycles", c.kernel, c.flags)
		}
	}
}
