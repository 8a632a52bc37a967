package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
)

// analyzeWindow is a window of two different launches: the example
// capture (forward) and a capture of the same schedule simulated with
// another seed (backward), listed by window.yaml as rank 2, step 7.
func analyzeWindow(t *testing.T) (dir string) {
	t.Helper()
	dir = window(t)
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", filepath.Join(dir, "bwd.bin"))
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
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
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	var rep invReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
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
	if len(rep.Ranks) != 2 {
		t.Fatalf("len(rep.Ranks) = %d, want 2: %v", len(rep.Ranks), rep.Ranks)
	}
	wantInv := []string{
		`{"invocation_id":0,"step":7,"direction":"forward","kernel_name":"HyperMegaMoe"}`,
		`{"invocation_id":1,"step":7,"direction":"backward"}`,
	}
	var makespans []uint64
	for i, path := range []string{fwd, bwd} {
		sec := rep.Ranks[i]
		if d := golden.JSONDiff(string(sec["invocation"]), wantInv[i]); d != "" {
			t.Errorf("%s: invocation: %s", path, d)
		}
		if d := golden.JSONDiff(string(sec["rank"]), "2"); d != "" {
			t.Errorf("%s: rank: %s", path, d)
		}
		if d := golden.JSONDiff(string(sec["capture"]), `"`+path+`"`); d != "" {
			t.Errorf("%s: capture: %s", path, d)
		}
		// Without its label, the section is the capture analyzed alone.
		alone := analyzeJSON(t, path, "--rank", "2", "--plan", moePlan, "--names", moeNames)
		if len(alone.Ranks) != 1 {
			t.Fatalf("len(alone.Ranks) = %d, want 1: %v", len(alone.Ranks), alone.Ranks)
		}
		_, labelled := alone.Ranks[0]["invocation"]
		if labelled {
			t.Errorf("a plain capture has no invocation key: labelled = true, want false")
		}
		delete(sec, "invocation")
		if !reflect.DeepEqual(sec, alone.Ranks[0]) {
			t.Errorf("%s: sec = %v, want %v", path, sec, alone.Ranks[0])
		}
		var m uint64
		if err := json.Unmarshal(sec["makespan_cycles"], &m); err != nil {
			t.Fatal(err)
		}
		makespans = append(makespans, m)
	}
	// the example's, as TestAnalyzeCommand has it
	if makespans[0] != uint64(122942) {
		t.Errorf("makespans[0] = %v, want %v", makespans[0], uint64(122942))
	}
	if makespans[1] == makespans[0] {
		t.Errorf("the two launches differ: makespans[1] = %v, want other than makespans[0]", makespans[1])
	}

	// The cross table: one row per invocation, the slowest named by rank
	// and invocation id, the spread between them.
	if len(rep.Cross.Ranks) != 2 {
		t.Fatalf("len(rep.Cross.Ranks) = %d, want 2: %v", len(rep.Cross.Ranks), rep.Cross.Ranks)
	}
	for i := range 2 {
		if rep.Cross.Ranks[i].Rank != uint32(2) {
			t.Errorf("rep.Cross.Ranks[i].Rank = %v, want %v", rep.Cross.Ranks[i].Rank, uint32(2))
		}
		if d := golden.JSONDiff(string(rep.Cross.Ranks[i].Invocation), wantInv[i]); d != "" {
			t.Errorf("cross row %d: %s", i, d)
		}
		if rep.Cross.Ranks[i].MakespanCycles != makespans[i] {
			t.Errorf("rep.Cross.Ranks[i].MakespanCycles = %v, want %v", rep.Cross.Ranks[i].MakespanCycles, makespans[i])
		}
	}
	slow := int64(0)
	if makespans[1] > makespans[0] {
		slow = 1
	}
	if rep.Cross.SlowestRank != uint32(2) {
		t.Errorf("rep.Cross.SlowestRank = %v, want %v", rep.Cross.SlowestRank, uint32(2))
	}
	if rep.Cross.SlowestInvocation == nil {
		t.Fatalf("rep.Cross.SlowestInvocation is nil, want non-nil")
	}
	if *rep.Cross.SlowestInvocation != slow {
		t.Errorf("*rep.Cross.SlowestInvocation = %v, want %v", *rep.Cross.SlowestInvocation, slow)
	}
	if want := max(makespans[0], makespans[1]) - min(makespans[0], makespans[1]); rep.Cross.SpreadCycles != want {
		t.Errorf("rep.Cross.SpreadCycles = %v, want %v", rep.Cross.SpreadCycles, want)
	}

	// The same window from flags: the same sections but the kernel name,
	// which only a manifest gives.
	flags := analyzeJSON(t, fwd, bwd, "--rank", "2", "--rank", "2", "--step", "7", "--step", "7",
		"--direction", "forward", "--direction", "backward", "--plan", moePlan, "--names", moeNames)
	if len(flags.Ranks) != 2 {
		t.Fatalf("len(flags.Ranks) = %d, want 2: %v", len(flags.Ranks), flags.Ranks)
	}
	if d := golden.JSONDiff(string(flags.Ranks[0]["invocation"]), `{"invocation_id":0,"step":7,"direction":"forward"}`); d != "" {
		t.Errorf("flags, rank 0: %s", d)
	}
	if d := golden.JSONDiff(string(flags.Ranks[1]["invocation"]), wantInv[1]); d != "" {
		t.Errorf("flags, rank 1: %s", d)
	}
	// --direction alone: ids by order, no step.
	dirs := analyzeJSON(t, fwd, bwd, "--rank", "2", "--rank", "2", "--direction", "backward", "--direction", "forward")
	if d := golden.JSONDiff(string(dirs.Ranks[1]["invocation"]), `{"invocation_id":1,"step":null,"direction":"forward"}`); d != "" {
		t.Errorf("dirs, rank 1: %s", d)
	}

	// Text, Markdown and CSV label the sections.
	out, errOut, code := runMain(t, "analyze", "--invocation-manifest", man, "--top", "1")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if want := "== rank 2 invocation 0 (step 7, forward): " + fwd + " ==\n"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if want := "== rank 2 invocation 1 (step 7, backward): " + bwd + " ==\n"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if want := "\nInvocations\nrank  invocation  step  direction  capture"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.Contains(out, "slowest rank 2 invocation ") {
		t.Errorf("out = %q, want it to contain %q", out, "slowest rank 2 invocation ")
	}
	out, _, code = runMain(t, "analyze", "--invocation-manifest", man, "--format", "markdown", "--top", "1")
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	if want := "## Rank 2 invocation 1 (step 7, backward): " + bwd + "\n"; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	out, _, code = runMain(t, "analyze", "--invocation-manifest", man, "--format", "csv", "--table", "cores")
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "rank,invocation_id,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct" {
		t.Errorf("lines[0] = %q, want %q", lines[0], "rank,invocation_id,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct")
	}
	if len(lines) != 1+2*72 {
		t.Fatalf("len(lines) = %d, want %d: %v", len(lines), 1+2*72, lines)
	}
	if !strings.HasPrefix(lines[1], "2,0,AIC/0,") {
		t.Errorf("%s: strings.HasPrefix(lines[1], \"2,0,AIC/0,\") = false, want true", lines[1])
	}
	if !strings.HasPrefix(lines[1+72], "2,1,AIC/0,") {
		t.Errorf("%s: strings.HasPrefix(lines[1+72], \"2,1,AIC/0,\") = false, want true", lines[1+72])
	}
}

// TestAnalyzeInvocationErrors: the window's mistakes are usage errors
// found before any capture is read, and the manifest is an input -o may
// not name.
func TestAnalyzeInvocationErrors(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	man, fwd, bwd := filepath.Join(dir, "window.yaml"), filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin")
	dup := filepath.Join(dir, "dup.yaml")
	if err := os.WriteFile(dup, []byte("- {capture: fwd.bin, invocation_id: 1}\n- {capture: bwd.bin}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub", "w.yaml")
	if err := os.WriteFile(sub, []byte("- {capture: ../fwd.bin}\n- {capture: bwd.bin}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manText, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
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
			if code != 0 {
				t.Errorf("%v: %s: code = %v, want 0", c.args, errOut, code)
			}
			continue
		}
		if code != 2 {
			t.Errorf("%v: %s: code = %v, want 2", c.args, errOut, code)
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: errOut = %q, want it to contain %q", c.args, errOut, c.want)
		}
	}
	// An empty manifest name is refused, not read as "no manifest" (which
	// left analyze and validate with nothing to do, exit 0).
	for _, cmd := range []string{"analyze", "decode", "validate"} {
		_, errOut, code := runMain(t, cmd, "--invocation-manifest", "")
		if code != 2 {
			t.Errorf("%s: code = %v, want 2", cmd, code)
		}
		if want := `invalid argument "" for "--invocation-manifest" flag: needs a file name`; !strings.Contains(errOut, want) {
			t.Errorf("%s: errOut = %q, want it to contain %q", cmd, errOut, want)
		}
	}
	after, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, manText) {
		t.Errorf("after = %q, want %q", after, manText)
	}
	// diff reads one capture or report per side: the window flags are
	// analyze's.
	_, errOut, code := runMain(t, "diff", fwd, bwd, "--invocation-manifest", man)
	if code != 2 {
		t.Errorf("code = %v, want 2", code)
	}
	if !strings.Contains(errOut, "unknown flag: --invocation-manifest") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "unknown flag: --invocation-manifest")
	}
}

// TestDiffInvocations: reports of windows are compared invocation by
// invocation, paired by rank and invocation id whatever their order.
func TestDiffInvocations(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t)
	base := filepath.Join(dir, "base.json")
	_, errOut, code := runMain(t, "analyze", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--format", "json", "-o", base)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}

	// The same launches listed backward first: paired by id, no change.
	rev := filepath.Join(dir, "reversed.yaml")
	if err := os.WriteFile(rev, []byte(
		"- {capture: bwd.bin, rank: 2, invocation_id: 1, step: 7, direction: backward}\n"+
			"- {capture: fwd.bin, rank: 2, invocation_id: 0, step: 7, direction: forward}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	revJSON := filepath.Join(dir, "reversed.json")
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", rev, "--format", "json", "-o", revJSON)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	out, errOut, code := runMain(t, "diff", base, revJSON)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if want := "== rank 2 invocation 0 (step 7, forward): " + filepath.Join(dir, "fwd.bin") + " -> " + filepath.Join(dir, "fwd.bin") + " =="; !strings.Contains(out, want) {
		t.Errorf("out = %q, want it to contain %q", out, want)
	}
	if !strings.HasSuffix(out, "no change\n") {
		t.Errorf("%s: strings.HasSuffix(out, \"no change\\n\") = false, want true", out)
	}

	// Swapping the ids pairs forward with backward: the makespans differ
	// by exactly what the two launches differ by.
	swap := filepath.Join(dir, "swapped.yaml")
	if err := os.WriteFile(swap, []byte("- {capture: bwd.bin, rank: 2}\n- {capture: fwd.bin, rank: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	swapJSON := filepath.Join(dir, "swapped.json")
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", swap, "--format", "json", "-o", swapJSON)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	out, errOut, code = runMain(t, "diff", base, swapJSON, "--format", "json")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	var d struct {
		Ranks []struct {
			Invocation struct {
				ID int64 `json:"invocation_id"`
			} `json:"invocation"`
			Makespan struct{ Base, New, Abs float64 } `json:"makespan_cycles"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Ranks) != 2 {
		t.Fatalf("len(d.Ranks) = %d, want 2: %v", len(d.Ranks), d.Ranks)
	}
	for i, r := range d.Ranks {
		if want := int64(i); r.Invocation.ID != want {
			t.Errorf("r.Invocation.ID = %v, want %v", r.Invocation.ID, want)
		}
		if r.Makespan.Abs != r.Makespan.New-r.Makespan.Base {
			t.Errorf("r.Makespan.Abs = %v, want %v", r.Makespan.Abs, r.Makespan.New-r.Makespan.Base)
		}
		if r.Makespan.Abs == 0 {
			t.Errorf("r.Makespan.Abs = 0, want non-zero")
		}
	}
	if d.Ranks[1].Makespan.New != d.Ranks[0].Makespan.Base {
		t.Errorf("d.Ranks[1].Makespan.New = %v, want %v", d.Ranks[1].Makespan.New, d.Ranks[0].Makespan.Base)
	}
	if d.Ranks[0].Makespan.New != d.Ranks[1].Makespan.Base {
		t.Errorf("d.Ranks[0].Makespan.New = %v, want %v", d.Ranks[0].Makespan.New, d.Ranks[1].Makespan.Base)
	}

	// A window against one plain capture of the rank: nothing to pair.
	_, errOut, code = runMain(t, "diff", base, moeCapture)
	if code != 1 {
		t.Errorf("the inputs do not pair: invalid input: code = %v, want 1", code)
	}
	if want := "rank 2 invocation 0 (step 7, forward) (" + filepath.Join(dir, "fwd.bin") + ") is not in the new analysis"; !strings.Contains(errOut, want) {
		t.Errorf("errOut = %q, want it to contain %q", errOut, want)
	}
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
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// ts and dur are plain JSON numbers.
	var raw struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
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
			if !reflect.DeepEqual(e["bp"], "e") {
				t.Fatalf("e[\"bp\"] = %v, want %v", e["bp"], "e")
			}
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
	if got, want := len(finishes), len(starts); got != want {
		t.Fatalf("len(finishes) = %d, want %d: %v", got, want, finishes)
	}
	for id, s := range starts {
		f, ok := finishes[id]
		if !ok {
			t.Fatalf("arrow %v has no f: ok = false, want true", id)
		}
		if !(s.ts <= f.ts) {
			t.Fatalf("arrow %v goes back in time: s.ts = %v, want <= %v", id, s.ts, f.ts)
		}
		if f.th.pid != s.th.pid {
			t.Fatalf("f.th.pid = %v, want %v", f.th.pid, s.th.pid)
		}
		si, ok := within(s)
		if !ok {
			t.Fatalf("arrow %v starts outside every slice: ok = false, want true", id)
		}
		fi, ok := within(f)
		if !ok {
			t.Fatalf("arrow %v ends outside every slice: ok = false, want true", id)
		}
		if fi != si {
			t.Fatalf("arrow %v joins invocations %v and %v: fi = %v, want %v", id, si, fi, fi, si)
		}
		perInv[si]++
	}
	if perInv[0] != 952 {
		t.Errorf("perInv[0] = %v, want 952", perInv[0])
	}
	if got := len(perInv); got != 2 {
		t.Errorf("len(perInv) = %v, want 2", got)
	}
	if want := fmt.Sprintf(", %d dependency arrows (releasing), ", perInv[0]+perInv[1]); !strings.Contains(errOut, want) {
		t.Errorf("errOut = %q, want it to contain %q", errOut, want)
	}
}
