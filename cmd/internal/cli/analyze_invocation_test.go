package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// analyzeWindow is a window of two different launches: the example
// capture (forward) and a capture of the same schedule simulated with
// another seed (backward), listed by window.yaml as rank 2, step 7.
func analyzeWindow(t *testing.T) (dir string) {
	t.Helper()
	dir = window(t)
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", filepath.Join(dir, "bwd.bin"))
	require.Equalf(t, 0, code, "%s: code", errOut)
	return dir
}

type invReport struct {
	Ranks []map[string]json.RawMessage `json:"ranks"`
	Cross struct {
		Ranks []struct {
			Rank           uint32          `json:"rank"`
			Invocation     json.RawMessage `json:"invocation"`
			MakespanCycles uint64          `json:"makespan_cycles"`
		} `json:"ranks"`
		SlowestRank       uint32 `json:"slowest_rank"`
		SlowestInvocation *int64 `json:"slowest_invocation_id"`
		SpreadCycles      uint64 `json:"spread_cycles"`
	} `json:"cross_rank"`
}

func analyzeJSON(t *testing.T, args ...string) invReport {
	t.Helper()
	out, errOut, code := runMain(t, append(append([]string{"analyze"}, args...), "--format", "json")...)
	require.Equalf(t, 0, code, "%s: code", errOut)
	var rep invReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	return rep
}

// TestAnalyzeInvocations: each invocation of a window is the analysis of
// its capture alone, labelled with its invocation; the cross table
// compares the invocations.
func TestAnalyzeInvocations(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	man, fwd, bwd := filepath.Join(dir, "window.yaml"), filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin")
	rep := analyzeJSON(t, "--invocation-manifest", man, "--plan", moePlan, "--names", moeNames)
	require.Len(t, rep.Ranks, 2, "len(rep.Ranks)")
	wantInv := []string{
		`{"invocation_id":0,"step":7,"direction":"forward","kernel_name":"HyperMegaMoe"}`,
		`{"invocation_id":1,"step":7,"direction":"backward"}`,
	}
	var makespans []uint64
	for i, path := range []string{fwd, bwd} {
		sec := rep.Ranks[i]
		assert.Emptyf(t, golden.JSONDiff(string(sec["invocation"]), wantInv[i]), "%s: invocation", path)
		assert.Emptyf(t, golden.JSONDiff(string(sec["rank"]), "2"), "%s: rank", path)
		assert.Emptyf(t, golden.JSONDiff(string(sec["capture"]), `"`+path+`"`), "%s: capture", path)
		// Without its label, the section is the capture analyzed alone.
		alone := analyzeJSON(t, path, "--rank", "2", "--plan", moePlan, "--names", moeNames)
		require.Len(t, alone.Ranks, 1, "len(alone.Ranks)")
		_, labelled := alone.Ranks[0]["invocation"]
		assert.False(t, labelled, "a plain capture has no invocation key: labelled = true, want false")
		delete(sec, "invocation")
		assert.Equalf(t, alone.Ranks[0], sec, "%s: sec", path)
		var m uint64
		require.NoError(t, json.Unmarshal(sec["makespan_cycles"], &m))
		makespans = append(makespans, m)
	}
	// the example's, as TestAnalyzeCommand has it
	assert.Equal(t, uint64(122942), makespans[0], "makespans[0]")
	assert.NotEqual(t, makespans[0], makespans[1], "the two launches differ: makespans[1]")

	// The cross table: one row per invocation, the slowest named by rank
	// and invocation id, the spread between them.
	require.Len(t, rep.Cross.Ranks, 2, "len(rep.Cross.Ranks)")
	for i := range 2 {
		assert.Equal(t, uint32(2), rep.Cross.Ranks[i].Rank, "rep.Cross.Ranks[i].Rank")
		d := golden.JSONDiff(string(rep.Cross.Ranks[i].Invocation), wantInv[i])
		assert.Emptyf(t, d, "cross row %d", i)
		assert.Equal(t, makespans[i], rep.Cross.Ranks[i].MakespanCycles, "rep.Cross.Ranks[i].MakespanCycles")
	}
	slow := int64(0)
	if makespans[1] > makespans[0] {
		slow = 1
	}
	assert.Equal(t, uint32(2), rep.Cross.SlowestRank, "rep.Cross.SlowestRank")
	require.NotNil(t, rep.Cross.SlowestInvocation, "rep.Cross.SlowestInvocation is nil, want non-nil")
	assert.Equalf(t, slow, *rep.Cross.SlowestInvocation, "*rep.Cross.SlowestInvocation = %v, want %v", *rep.Cross.SlowestInvocation, slow)
	assert.Equal(t, max(makespans[0], makespans[1])-min(makespans[0], makespans[1]), rep.Cross.SpreadCycles, "rep.Cross.SpreadCycles")

	// The same window from flags: the same sections but the kernel name,
	// which only a manifest gives.
	flags := analyzeJSON(t, fwd, bwd, "--rank", "2", "--rank", "2", "--step", "7", "--step", "7",
		"--direction", "forward", "--direction", "backward", "--plan", moePlan, "--names", moeNames)
	require.Len(t, flags.Ranks, 2, "len(flags.Ranks)")
	assert.Empty(t, golden.JSONDiff(string(flags.Ranks[0]["invocation"]), `{"invocation_id":0,"step":7,"direction":"forward"}`), "flags, rank 0")
	assert.Empty(t, golden.JSONDiff(string(flags.Ranks[1]["invocation"]), wantInv[1]), "flags, rank 1")
	// --direction alone: ids by order, no step.
	dirs := analyzeJSON(t, fwd, bwd, "--rank", "2", "--rank", "2", "--direction", "backward", "--direction", "forward")
	assert.Empty(t, golden.JSONDiff(string(dirs.Ranks[1]["invocation"]), `{"invocation_id":1,"step":null,"direction":"forward"}`), "dirs, rank 1")

	// Text, Markdown and CSV label the sections.
	out, errOut, code := runMain(t, "analyze", "--invocation-manifest", man, "--top", "1")
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "== rank 2 invocation 0 (step 7, forward): "+fwd+" ==\n", "out")
	assert.Contains(t, out, "== rank 2 invocation 1 (step 7, backward): "+bwd+" ==\n", "out")
	assert.Contains(t, out, "\nInvocations\nrank  invocation  step  direction  capture", "out")
	assert.Contains(t, out, "slowest rank 2 invocation ", "out")
	out, _, code = runMain(t, "analyze", "--invocation-manifest", man, "--format", "markdown", "--top", "1")
	require.Equal(t, 0, code, "code")
	assert.Contains(t, out, "## Rank 2 invocation 1 (step 7, backward): "+bwd+"\n", "out")
	out, _, code = runMain(t, "analyze", "--invocation-manifest", man, "--format", "csv", "--table", "cores")
	require.Equal(t, 0, code, "code")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, "rank,invocation_id,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct", lines[0], "lines[0]")
	require.Len(t, lines, 1+2*72, "len(lines)")
	assert.Truef(t, strings.HasPrefix(lines[1], "2,0,AIC/0,"), "%s: strings.HasPrefix(lines[1], \"2,0,AIC/0,\") = false, want true", lines[1])
	assert.Truef(t, strings.HasPrefix(lines[1+72], "2,1,AIC/0,"), "%s: strings.HasPrefix(lines[1+72], \"2,1,AIC/0,\") = false, want true", lines[1+72])
}

// TestAnalyzeInvocationErrors: the window's mistakes are usage errors
// found before any capture is read, and the manifest is an input -o may
// not name.
func TestAnalyzeInvocationErrors(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	man, fwd, bwd := filepath.Join(dir, "window.yaml"), filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin")
	dup := filepath.Join(dir, "dup.yaml")
	require.NoError(t, os.WriteFile(dup, []byte("- {capture: fwd.bin, invocation_id: 1}\n- {capture: bwd.bin}\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	sub := filepath.Join(dir, "sub", "w.yaml")
	require.NoError(t, os.WriteFile(sub, []byte("- {capture: ../fwd.bin}\n- {capture: bwd.bin}\n"), 0o644))
	manText, err := os.ReadFile(man)
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--invocation-manifest", dup}, fwd + " and " + bwd + " are both invocation 1 of rank 0"},
		{[]string{fwd, bwd, "--rank", "1", "--rank", "1", "--step", "3", "--step", "3", "--direction", "forward", "--direction", "forward"}, ""},
		{[]string{fwd, "--invocation-manifest", man}, "either as arguments or in --invocation-manifest, not both"},
		{[]string{"--invocation-manifest", man, "--rank", "1"}, "--rank, --step and --direction go with capture arguments"},
		{[]string{fwd, bwd, "--step", "1"}, "1 --step values for 2 captures"},
		{[]string{fwd, bwd, "--rank", "2", "--rank", "2"}, "both have rank 2 (launches of one rank are invocations of a window: give --step or --direction once per capture, or --invocation-manifest)"},
		{[]string{fwd, bwd, "--direction", "forward", "--direction", "up"}, `direction "up" is not forward or backward`},
		{[]string{"--invocation-manifest", man, "-o", man}, "it is an input of this command"},
		{[]string{"--invocation-manifest", sub}, sub + ":2: capture " + filepath.Join(dir, "sub", "bwd.bin") + " not found (a relative capture path is relative to the manifest's folder)"},
		{[]string{"--invocation-manifest", man, "-o", fwd}, "it is an input of this command"},
	} {
		_, errOut, code := runMain(t, append([]string{"analyze"}, c.args...)...)
		if c.want == "" { // two invocations with ids 0 and 1 by order: fine
			assert.Equalf(t, 0, code, "%v: %s: code", c.args, errOut)
			continue
		}
		assert.Equalf(t, 2, code, "%v: %s: code", c.args, errOut)
		assert.Containsf(t, errOut, c.want, "%v: errOut", c.args)
	}
	// An empty manifest name is refused, not read as "no manifest" (which
	// left analyze and validate with nothing to do, exit 0).
	for _, cmd := range []string{"analyze", "decode", "validate"} {
		_, errOut, code := runMain(t, cmd, "--invocation-manifest", "")
		assert.Equalf(t, 2, code, "%s: code", cmd)
		assert.Containsf(t, errOut, `invalid argument "" for "--invocation-manifest" flag: needs a file name`, "%s: errOut", cmd)
	}
	after, err := os.ReadFile(man)
	require.NoError(t, err)
	assert.Equal(t, []byte(manText), []byte(after), "after")
	// diff reads one capture or report per side: the window flags are
	// analyze's.
	_, errOut, code := runMain(t, "diff", fwd, bwd, "--invocation-manifest", man)
	assert.Equal(t, 2, code, "code")
	assert.Contains(t, errOut, "unknown flag: --invocation-manifest", "errOut")
}

// TestDiffInvocations: reports of windows are compared invocation by
// invocation, paired by rank and invocation id whatever their order.
func TestDiffInvocations(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	base := filepath.Join(dir, "base.json")
	_, errOut, code := runMain(t, "analyze", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--format", "json", "-o", base)
	require.Equalf(t, 0, code, "%s: code", errOut)

	// The same launches listed backward first: paired by id, no change.
	rev := filepath.Join(dir, "reversed.yaml")
	require.NoError(t, os.WriteFile(rev, []byte(
		"- {capture: bwd.bin, rank: 2, invocation_id: 1, step: 7, direction: backward}\n"+
			"- {capture: fwd.bin, rank: 2, invocation_id: 0, step: 7, direction: forward}\n"), 0o644))
	revJSON := filepath.Join(dir, "reversed.json")
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", rev, "--format", "json", "-o", revJSON)
	require.Equalf(t, 0, code, "%s: code", errOut)
	out, errOut, code := runMain(t, "diff", base, revJSON)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "== rank 2 invocation 0 (step 7, forward): "+filepath.Join(dir, "fwd.bin")+" -> "+filepath.Join(dir, "fwd.bin")+" ==", "out")
	assert.Truef(t, strings.HasSuffix(out, "no change\n"), "%s: strings.HasSuffix(out, \"no change\\n\") = false, want true", out)

	// Swapping the ids pairs forward with backward: the makespans differ
	// by exactly what the two launches differ by.
	swap := filepath.Join(dir, "swapped.yaml")
	require.NoError(t, os.WriteFile(swap, []byte("- {capture: bwd.bin, rank: 2}\n- {capture: fwd.bin, rank: 2}\n"), 0o644))
	swapJSON := filepath.Join(dir, "swapped.json")
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", swap, "--format", "json", "-o", swapJSON)
	require.Equalf(t, 0, code, "%s: code", errOut)
	out, errOut, code = runMain(t, "diff", base, swapJSON, "--format", "json")
	require.Equalf(t, 0, code, "%s: code", errOut)
	var d struct {
		Ranks []struct {
			Invocation struct {
				ID int64 `json:"invocation_id"`
			} `json:"invocation"`
			Makespan struct{ Base, New, Abs float64 } `json:"makespan_cycles"`
		} `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	require.Len(t, d.Ranks, 2, "len(d.Ranks)")
	for i, r := range d.Ranks {
		assert.Equal(t, int64(i), r.Invocation.ID, "r.Invocation.ID")
		assert.Equal(t, r.Makespan.New-r.Makespan.Base, r.Makespan.Abs, "r.Makespan.Abs")
		assert.NotEqual(t, float64(0), r.Makespan.Abs, "r.Makespan.Abs = 0, want non-zero")
	}
	assert.Equal(t, d.Ranks[0].Makespan.Base, d.Ranks[1].Makespan.New, "d.Ranks[1].Makespan.New")
	assert.Equal(t, d.Ranks[1].Makespan.Base, d.Ranks[0].Makespan.New, "d.Ranks[0].Makespan.New")

	// A window against one plain capture of the rank: nothing to pair.
	_, errOut, code = runMain(t, "diff", base, moeCapture)
	assert.Equal(t, 1, code, "the inputs do not pair: invalid input: code")
	assert.Contains(t, errOut, "rank 2 invocation 0 (step 7, forward) ("+filepath.Join(dir, "fwd.bin")+") is not in the new analysis", "errOut")
}

// TestDecodeInvocationFlows: with --plan, a window's dependency arrows
// stay within their invocation: each one starts inside a slice and ends
// inside a slice of the same invocation, on the same rank, never earlier,
// and every launch gets its own arrows (the example has 952).
func TestDecodeInvocationFlows(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	out := filepath.Join(dir, "flows.json")
	_, errOut, code := runMain(t, "decode", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--plan", moePlan, "-o", out)
	require.Equalf(t, 0, code, "%s: code", errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	// ts and dur are plain JSON numbers.
	var raw struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	type slice struct {
		ts, end float64
		inv     float64
	}
	type thread struct{ pid, tid float64 }
	slices := map[thread][]slice{}
	type end struct {
		th thread
		ts float64
	}
	starts, finishes := map[float64]end{}, map[float64]end{}
	for _, e := range raw.TraceEvents {
		th := thread{e["pid"].(float64), e["tid"].(float64)}
		switch e["ph"] {
		case "X":
			args := e["args"].(map[string]any)
			ts := e["ts"].(float64)
			slices[th] = append(slices[th], slice{ts, ts + e["dur"].(float64), args["invocation_id"].(float64)})
		case "s":
			starts[e["id"].(float64)] = end{th, e["ts"].(float64)}
		case "f":
			require.Equal(t, "e", e["bp"], "e[\"bp\"]")
			finishes[e["id"].(float64)] = end{th, e["ts"].(float64)}
		}
	}
	within := func(p end) (float64, bool) {
		for _, s := range slices[p.th] {
			if s.ts <= p.ts && p.ts <= s.end {
				return s.inv, true
			}
		}
		return 0, false
	}
	perInv := map[float64]int{}
	require.Equalf(t, len(starts), len(finishes), "len(finishes): %v", finishes)
	for id, s := range starts {
		f, ok := finishes[id]
		require.Truef(t, ok, "arrow %v has no f: ok = false, want true", id)
		require.Truef(t, s.ts <= f.ts, "arrow %v goes back in time: s.ts = %v, want <= %v", id, s.ts, f.ts)
		require.Equal(t, s.th.pid, f.th.pid, "f.th.pid")
		si, ok := within(s)
		require.Truef(t, ok, "arrow %v starts outside every slice: ok = false, want true", id)
		fi, ok := within(f)
		require.Truef(t, ok, "arrow %v ends outside every slice: ok = false, want true", id)
		require.Equalf(t, si, fi, "arrow %v joins invocations", id)
		perInv[si]++
	}
	assert.Equal(t, 952, perInv[0], "perInv[0]")
	assert.Equal(t, 2, len(perInv), "len(perInv)")
	assert.Contains(t, errOut, fmt.Sprintf(", %d dependency arrows (releasing), ", perInv[0]+perInv[1]), "errOut")
}
