package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileTrace writes the example trace with a stage name and the
// metadata's kernelName longer than the cap on a name, and a rank its
// metadata lists with no events; it returns the path and the two
// warnings every command must print about it (the first cut name, the
// missing rank).
func hostileTrace(t *testing.T) (string, []string) {
	t.Helper()
	text, err := os.ReadFile(exampleTrace(t, "moe.json"))
	require.NoError(t, err)
	s := strings.Replace(string(text), `"name":"MoeGateUp"`, `"name":"MoeGateUp`+strings.Repeat("x", 5000)+`"`, 1)
	s = strings.Replace(s, `"megaKernelCycleTrace":{`, `"megaKernelCycleTrace":{"ranks":[{"rank":0,"recordCount":2974,"droppedRecordCount":10},{"rank":2,"recordCount":2974}],`, 1)
	p := filepath.Join(t.TempDir(), "hostile.json")
	require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	return p, []string{
		"the name of the first event of desc_id 196609 is 5,009 bytes long: kept its first 4,096 bytes, the cap on a name (as in a names file)",
		"megaKernelCycleTrace.ranks[1] (rank 2) has no events in the trace, where its recordCount says 2,974 records: they are missing",
	}
}

// TestTraceWarningsCLI: a name cut to the cap on a name and a rank the
// metadata lists with no events are warnings, "cycleabi: warning: FILE:
// ...", in every command that reads the trace (they were notes, and
// export said nothing), and in analyze's output (text "warning:", JSON
// "warnings", the report's banner); validate reports them as name-capped
// and missing-capture findings, said once (not also as notes).
// Not in parallel: export sets the process's memory limit.
func TestTraceWarningsCLI(t *testing.T) {
	p, want := hostileTrace(t)
	dir := t.TempDir()
	stderrHas := func(cmd, stderr string) {
		t.Helper()
		for _, w := range want {
			require.Containsf(t, stderr, "cycleabi: warning: "+p+": ", "%s: stderr lacks the warning", cmd)
			assert.Containsf(t, stderr, w, "%s: stderr lacks the warning", cmd)
			require.NotContainsf(t, stderr, "note: "+p+": line", "%s: a warning said as a note too:\n%s", cmd, stderr)
			assert.NotContainsf(t, stderr, "note: "+p+": megaKernelCycleTrace.ranks", "%s: a warning said as a note too:\n%s", cmd, stderr)
		}
	}
	for _, args := range [][]string{
		{"decode", p, "-o", filepath.Join(dir, "t.json")},
		{"report", p, "-o", filepath.Join(dir, "r.html")},
		{"export", p, "-o", filepath.Join(dir, "e.parquet")},
		{"diff", p, p},
	} {
		_, stderr, code := runMain(t, args...)
		assert.Equalf(t, 0, code, "%s: code, want 0:\n%s", args[0], stderr)
		stderrHas(args[0], stderr)
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	require.NoError(t, err)
	for _, w := range want {
		require.Contains(t, string(html), `<p class="banner" role="alert">Warning: `, "the report lacks the warning")
		assert.Contains(t, string(html), w, "the report lacks the warning")
	}

	stdout, stderr, code := runMain(t, "analyze", p)
	require.Equalf(t, 0, code, "analyze: code:\n%s", stderr)
	stderrHas("analyze", stderr)
	for _, w := range want {
		found := false
		for _, line := range strings.Split(stdout, "\n") {
			found = found || strings.HasPrefix(line, "warning: ") && strings.Contains(line, w)
		}
		assert.Truef(t, found, "analyze: stdout lacks a line \"warning: ...%s\"", w)
	}
	stdout, _, _ = runMain(t, "analyze", "--format", "json", p)
	var rep analyze.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	got := strings.Join(rep.Ranks[0].Warnings, "\n")
	for _, w := range want {
		require.Contains(t, got, w, "analyze --format json: warnings")
		assert.NotContains(t, strings.Join(rep.Ranks[0].Notes, "\n"), w, "analyze --format json: warnings")
	}

	stdout, stderr, code = runMain(t, "validate", p)
	require.Equalf(t, 0, code, "validate: code, want 0 and the warnings as findings only:\n%s", stderr)
	assert.NotContainsf(t, stderr, "warning: "+p, "validate: code, want 0 and the warnings as findings only:\n%s", stderr)
	for _, w := range []string{"warning name-capped", "line 189, byte", want[0], "warning missing-capture", want[1]} {
		assert.Contains(t, stdout, w, "validate: stdout lacks")
	}
	_, _, code = runMain(t, "validate", "--strict", p)
	assert.Equal(t, 1, code, "validate --strict: code")

	// decode --strict and export --strict write their output, then exit 1
	// (they had no --strict: exit 2); on a clean trace they exit 0 (the
	// example's trace states dropped records, a warning decode --strict
	// exits 1 on: TestDecodeStrictDropped).
	clean := cleanTrace(t)
	for _, c := range []struct {
		cmd, out string
	}{{"decode", "s.json"}, {"export", "s.parquet"}} {
		for _, in := range []struct {
			path string
			code int
		}{{p, 1}, {clean, 0}} {
			out := filepath.Join(t.TempDir(), c.out)
			_, stderr, code := runMain(t, c.cmd, "--strict", in.path, "-o", out)
			require.Equalf(t, in.code, code, "%s --strict %s: code and --strict's line exactly on 1:\n%s", c.cmd, in.path, stderr)
			assert.Equalf(t, strings.Contains(stderr, "cycleabi: --strict: the inputs drew the warnings above; the output is written"), (code == 1), "%s --strict %s: code and --strict's line exactly on 1:\n%s", c.cmd, in.path, stderr)
			_, err := os.Stat(out)
			assert.NoErrorf(t, err, "%s --strict %s: the output is not written", c.cmd, in.path)
		}
	}
}

// TestAnalyzeStrict: analyze --strict exits 1 when an input drew a
// warning (a trace's cut name or missing rank; a kernel family the
// records contradict), with the analysis written all the same; without
// a warning it exits 0. analyze had no --strict: the issue asks for the
// missing rank to be an error with --strict.
func TestAnalyzeStrict(t *testing.T) {
	t.Parallel()
	hostile, _ := hostileTrace(t)
	clean := exampleTrace(t, "clean.json")
	// A trace of MegaMoe read under --kernel-name MegaMoeGrad: its desc
	// id is not that family's (TestTraceKernelFamily).
	ev := `{"name":"Dispatch","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2000,"ts":0.0,"dur":10.0,"args":{"rank":0,"device_id":0,"core_type":"AIV","block_id":0,"task_id":0,"desc_id":65537,"stage_task_index":0,"task_number":1,"start_cycle":1000,"end_cycle":1500,"core_entry_cycle":1000}}`
	meta := `"megaKernelCycleTrace":{"schemaVersion":1,"rank":0,"deviceId":0,"socName":"ascend910b","cycleFrequencyMHz":50.0,"anchorCycle":1000,"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":false,"kernelName":"MegaMoe","ownerLabel":"Expert"}`
	family := filepath.Join(t.TempDir(), "moe.json")
	require.NoError(t, os.WriteFile(family, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644))
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{hostile}, 1},
		{[]string{family, "--kernel-name", "MegaMoeGrad"}, 1},
		{[]string{family}, 0},
		{[]string{clean}, 0},
		{[]string{"../../../examples/moe_layer.bin"}, 0},
	} {
		stdout, stderr, code := runMain(t, append([]string{"analyze", "--strict"}, c.args...)...)
		assert.Equalf(t, c.code, code, "analyze --strict %v: code:\n%s", c.args, stderr)
		assert.Containsf(t, stdout, "== rank 0: ", "analyze --strict %v: no analysis written", c.args)
		said := strings.Contains(stderr, "cycleabi: --strict: the inputs drew the warnings above")
		require.Equalf(t, (c.code == 1), said, "analyze --strict %v: stderr %q, want the warnings and --strict's line exactly when it exits 1", c.args, stderr)
		assert.Falsef(t, c.code == 1 && !strings.Contains(stderr, "cycleabi: warning: "), "analyze --strict %v: stderr %q, want the warnings and --strict's line exactly when it exits 1", c.args, stderr)
		// Without --strict: exit 0 whatever the warnings.
		_, stderr, code = runMain(t, append([]string{"analyze"}, c.args...)...)
		assert.Equalf(t, 0, code, "analyze %v: code\n%s", c.args, stderr)
	}
}

// cleanTrace writes the trace decode writes of a capture that draws no
// warning (no records dropped).
func cleanTrace(t *testing.T) string {
	t.Helper()
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 100).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	dir := t.TempDir()
	capPath, out := filepath.Join(dir, "clean.bin"), filepath.Join(dir, "clean.json")
	require.NoError(t, os.WriteFile(capPath, b.Bytes(), 0o644))
	_, stderr, code := runMain(t, "decode", "--strict", "--soc", "ascend950", "--kernel-family", "none", capPath, "-o", out)
	require.Equalf(t, 0, code, "decode --strict of a clean capture: code:\n%s", stderr)
	return out
}

// TestDecodeStrictDropped: decode --strict of a capture whose cores
// dropped records writes the trace, warns, and exits 1, as validate
// --strict does (it exited 0).
func TestDecodeStrictDropped(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", "--strict", "../../../examples/moe_layer.bin", "-o", out)
	require.Equal(t, 1, code, "code")
	require.Contains(t, stderr, "Device dropped 10 cycle trace records", "code")
	assert.Contains(t, stderr, "cycleabi: --strict: the inputs drew the warnings above; the output is written", "code")
	_, err := os.Stat(out)
	assert.NoError(t, err, "the trace is not written")
	_, stderr, code = runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", filepath.Join(t.TempDir(), "u.json"))
	assert.Equalf(t, 0, code, "without --strict: code\n%s", stderr)
}
