package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	moeCapture = "../../../examples/moe_layer.bin"
	moePlan    = "../../../examples/moe_layer.yaml"
	moeNames   = "../../../examples/moe_layer.names.yaml"
)

func TestAnalyzeCommand(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "analyze", moeCapture, "--plan", moePlan, "--names", moeNames)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.Contains(out, "Critical path: 122932 cycles") {
		t.Errorf("out = %q, want it to contain %q", out, "Critical path: 122932 cycles")
	}
	if !strings.Contains(out, "Waits by stage of the waiting task") {
		t.Errorf("out = %q, want it to contain %q", out, "Waits by stage of the waiting task")
	}

	out, _, code = runMain(t, "analyze", moeCapture)
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	if !strings.Contains(out, "only per-core chains are known") {
		t.Errorf("out = %q, want it to contain %q", out, "only per-core chains are known")
	}

	out, errOut, code = runMain(t, "analyze", moeCapture, "--plan", moePlan, "--format", "json")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	var rep struct {
		ABIFingerprint string `json:"abi_fingerprint"`
		Ranks          []struct {
			MakespanCycles uint64 `json:"makespan_cycles"`
			CriticalPath   *struct {
				TotalCycles uint64 `json:"total_cycles"`
			} `json:"critical_path"`
			Flows struct {
				Arrows               uint64 `json:"arrows"`
				WaitsWithoutProducer uint64 `json:"waits_without_producer"`
			} `json:"flows"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Ranks) != 1 {
		t.Fatalf("len(rep.Ranks) = %d, want 1: %v", len(rep.Ranks), rep.Ranks)
	}
	if rep.Ranks[0].MakespanCycles != uint64(122942) {
		t.Errorf("rep.Ranks[0].MakespanCycles = %v, want %v", rep.Ranks[0].MakespanCycles, uint64(122942))
	}
	if rep.Ranks[0].Flows.Arrows != uint64(952) {
		t.Errorf("rep.Ranks[0].Flows.Arrows = %v, want %v", rep.Ranks[0].Flows.Arrows, uint64(952))
	}
	if rep.Ranks[0].CriticalPath == nil {
		t.Fatalf("rep.Ranks[0].CriticalPath is nil, want non-nil")
	}

	out, _, code = runMain(t, "analyze", moeCapture, "--format", "csv", "--table", "cores")
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "rank,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct" {
		t.Errorf("lines[0] = %q, want %q", lines[0], "rank,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct")
	}
	if len(lines) != 1+72 {
		t.Errorf("len(lines) = %d, want %d: %v", len(lines), 1+72, lines)
	}

	for _, c := range [][]string{
		{"analyze", moeCapture, "--format", "csv"},
		{"analyze", moeCapture, "--format", "csv", "--table", "nope"},
		{"analyze", moeCapture, "--format", "csv", "--table", "path"},
		{"analyze", moeCapture, "--table", "cores"},
		{"analyze", moeCapture, "--format", "yaml"},
		{"analyze", moeCapture, "--top", "-1"},
		{"analyze"},
	} {
		_, errOut, code := runMain(t, c...)
		if code != 2 {
			t.Errorf("%v: %s: code = %v, want 2", c, errOut, code)
		}
	}
}

// TestAnalyzeScheduleMismatch: a schedule the capture was not written by
// is invalid input, named in the error.
func TestAnalyzeScheduleMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.yaml")
	if err := os.WriteFile(short, []byte("num_workers: 48\ntasks:\n  - {task_type: RmsNorm}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runMain(t, "analyze", moeCapture, "--plan", short)
	if code != 1 {
		t.Errorf("code = %v, want 1", code)
	}
	if !strings.Contains(errOut, "does not match schedule") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "does not match schedule")
	}
	if !strings.Contains(errOut, "is beyond the schedule's 1 tasks") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "is beyond the schedule's 1 tasks")
	}
	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", short, "-o", filepath.Join(dir, "t.json"))
	if code != 1 {
		t.Errorf("code = %v, want 1", code)
	}
	if !strings.Contains(errOut, "does not match schedule") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "does not match schedule")
	}
	// Without arrows the schedule only gives the layout.
	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", short, "--flows", "none", "-o", filepath.Join(dir, "t.json"))
	if code != 0 {
		t.Errorf("%s: code = %v, want 0", errOut, code)
	}
}

func TestDecodeFlowsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.json")
	_, errOut, code := runMain(t, "decode", moeCapture, "--plan", moePlan, "-o", trace)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if want := "952 dependency arrows (releasing), 0 waits without producer"; !strings.Contains(errOut, want) {
		t.Errorf("errOut = %q, want it to contain %q", errOut, want)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), `"ph":"f","bp":"e"`); got != 952 {
		t.Errorf("got %v, want 952", got)
	}

	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", moePlan, "--flows", "all", "--max-flows", "10", "-o", trace)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.Contains(errOut, "10 dependency arrows (all)") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "10 dependency arrows (all)")
	}

	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", moePlan, "--flows", "none", "-o", trace)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	data, _ = os.ReadFile(trace)
	if got := string(data); strings.Contains(got, `"cat":"dependency"`) {
		t.Errorf("string(data) = %q, want no %q", got, `"cat":"dependency"`)
	}

	for _, c := range [][]string{
		{"decode", moeCapture, "--flows", "all", "-o", trace},
		{"decode", moeCapture, "--plan", moePlan, "--flows", "some", "-o", trace},
		{"decode", moeCapture, "--plan", moePlan, "--max-flows", "-1", "-o", trace},
	} {
		_, errOut, code := runMain(t, c...)
		if code != 2 {
			t.Errorf("%v: %s: code = %v, want 2", c, errOut, code)
		}
	}
}

func TestDiffCommand(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "diff", moeCapture, moeCapture, "--plan", moePlan, "--names", moeNames)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.HasSuffix(out, "no change\n") {
		t.Errorf("%s: strings.HasSuffix(out, \"no change\\n\") = false, want true", out)
	}

	dir := t.TempDir()
	report := filepath.Join(dir, "base.json")
	_, errOut, code = runMain(t, "analyze", moeCapture, "--names", moeNames, "--format", "json", "-o", report)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	out, errOut, code = runMain(t, "diff", report, moeCapture, "--names", moeNames, "--format", "markdown")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.Contains(out, "No change.") {
		t.Errorf("out = %q, want it to contain %q", out, "No change.")
	}

	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(strings.Replace(string(data), `"abi_fingerprint": "`, `"abi_fingerprint": "00`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runMain(t, "diff", report, other)
	if code != 1 {
		t.Errorf("code = %v, want 1", code)
	}
	if !strings.Contains(errOut, "--allow-abi-mismatch") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, "--allow-abi-mismatch")
	}
	_, errOut, code = runMain(t, "diff", report, other, "--allow-abi-mismatch", "--format", "json")
	if code != 0 {
		t.Errorf("%s: code = %v, want 0", errOut, code)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"ranks": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, code = runMain(t, "diff", report, bad)
	if code != 1 {
		t.Errorf("code = %v, want 1", code)
	}
	_, _, code = runMain(t, "diff", report)
	if code != 2 {
		t.Errorf("code = %v, want 2", code)
	}
}

// TestAnalyzeRanks: several captures get a section each and the
// cross-rank table, in every format.
func TestAnalyzeRanks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(moeCapture)
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := filepath.Join(dir, "rank0.bin"), filepath.Join(dir, "rank1.bin")
	if err := os.WriteFile(r0, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}

	out, errOut, code := runMain(t, "analyze", r0, r1, "--plan", moePlan)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.Contains(out, "== rank 0: ") {
		t.Errorf("out = %q, want it to contain %q", out, "== rank 0: ")
	}
	if !strings.Contains(out, "== rank 1: ") {
		t.Errorf("out = %q, want it to contain %q", out, "== rank 1: ")
	}
	if !strings.Contains(out, "slowest rank ") {
		t.Errorf("out = %q, want it to contain %q", out, "slowest rank ")
	}

	out, errOut, code = runMain(t, "analyze", r0, r1, "--format", "json")
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	var rep struct {
		Ranks     []struct{ Rank uint32 } `json:"ranks"`
		CrossRank struct {
			Ranks []struct {
				MakespanCycles uint64 `json:"makespan_cycles"`
			} `json:"ranks"`
			SlowestRank  uint32 `json:"slowest_rank"`
			SpreadCycles uint64 `json:"spread_cycles"`
		} `json:"cross_rank"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Ranks) != 2 {
		t.Fatalf("len(rep.Ranks) = %d, want 2: %v", len(rep.Ranks), rep.Ranks)
	}
	if len(rep.CrossRank.Ranks) != 2 {
		t.Fatalf("len(rep.CrossRank.Ranks) = %d, want 2: %v", len(rep.CrossRank.Ranks), rep.CrossRank.Ranks)
	}
	a, b := rep.CrossRank.Ranks[0].MakespanCycles, rep.CrossRank.Ranks[1].MakespanCycles
	if want := max(a, b) - min(a, b); rep.CrossRank.SpreadCycles != want {
		t.Errorf("rep.CrossRank.SpreadCycles = %v, want %v", rep.CrossRank.SpreadCycles, want)
	}
	if want := (map[bool]uint32{true: 0, false: 1}[a >= b]); rep.CrossRank.SlowestRank != want {
		t.Errorf("rep.CrossRank.SlowestRank = %v, want %v", rep.CrossRank.SlowestRank, want)
	}

	out, _, code = runMain(t, "analyze", r0, r1, "--format", "csv", "--table", "types")
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	if !strings.Contains(out, "\n1,") {
		t.Errorf("out = %q, want it to contain %q", out, "\n1,")
	}
	out, _, code = runMain(t, "analyze", r0, r1, "--format", "markdown")
	if code != 0 {
		t.Fatalf("code = %v, want 0", code)
	}
	if !strings.Contains(out, "## Rank 1") {
		t.Errorf("out = %q, want it to contain %q", out, "## Rank 1")
	}

	// Two ranks against the same two: no change.
	out, errOut, code = runMain(t, "diff", r1, r1)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", errOut, code)
	}
	if !strings.Contains(out, "no change") {
		t.Errorf("out = %q, want it to contain %q", out, "no change")
	}
}

// analyze and diff never write over what they read: each input named as
// -o is refused with exit 2 and left byte for byte as it was.
func TestAnalyzeDiffRefuseInputAsOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capture := copyTo(moeCapture, "rank0.bin")
	sched := copyTo(moePlan, "moe.yaml")
	names := copyTo(moeNames, "moe.names.yaml")
	for _, in := range []string{capture, sched, names} {
		before, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"analyze", capture, "--plan", sched, "--names", names, "-o", in},
			{"diff", capture, capture, "--plan", sched, "--names", names, "-o", in},
		} {
			_, errOut, code := runMain(t, args...)
			if code != 2 {
				t.Errorf("%v: %s: code = %v, want 2", args, errOut, code)
			}
			if !strings.Contains(errOut, "it is an input of this command") {
				t.Errorf("%v: errOut = %q, want it to contain %q", args, errOut, "it is an input of this command")
			}
			after, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, before) {
				t.Errorf("%v changed %s: after = %q, want %q", args, in, after, before)
			}
		}
	}
}
