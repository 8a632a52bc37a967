package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	moeCapture = "../../../examples/moe_layer.bin"
	moePlan    = "../../../examples/moe_layer.yaml"
	moeNames   = "../../../examples/moe_layer.names.yaml"
)

func TestAnalyzeCommand(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "analyze", moeCapture, "--plan", moePlan, "--names", moeNames)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "Critical path: 122932 cycles", "out")
	assert.Contains(t, out, "Waits by stage of the waiting task", "out")

	out, _, code = runMain(t, "analyze", moeCapture)
	require.Equal(t, 0, code, "code")
	assert.Contains(t, out, "only per-core chains are known", "out")

	out, errOut, code = runMain(t, "analyze", moeCapture, "--plan", moePlan, "--format", "json")
	require.Equalf(t, 0, code, "%s: code", errOut)
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
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Ranks, 1, "len(rep.Ranks)")
	assert.Equal(t, uint64(122942), rep.Ranks[0].MakespanCycles, "rep.Ranks[0].MakespanCycles")
	assert.Equal(t, uint64(952), rep.Ranks[0].Flows.Arrows, "rep.Ranks[0].Flows.Arrows")
	require.NotNil(t, rep.Ranks[0].CriticalPath, "rep.Ranks[0].CriticalPath is nil, want non-nil")

	out, _, code = runMain(t, "analyze", moeCapture, "--format", "csv", "--table", "cores")
	require.Equal(t, 0, code, "code")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, "rank,core,entry_cycle,end_cycle,records,compute_cycles,wait_cycles,trigger_cycles,other_cycles,idle_cycles,busy_pct", lines[0], "lines[0]")
	assert.Len(t, lines, 1+72, "len(lines)")

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
		assert.Equalf(t, 2, code, "%v: %s: code", c, errOut)
	}
}

// TestAnalyzeScheduleMismatch: a schedule the capture was not written by
// is invalid input, named in the error.
func TestAnalyzeScheduleMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.yaml")
	require.NoError(t, os.WriteFile(short, []byte("num_workers: 48\ntasks:\n  - {task_type: RmsNorm}\n"), 0o644))
	_, errOut, code := runMain(t, "analyze", moeCapture, "--plan", short)
	assert.Equal(t, 1, code, "code")
	assert.Contains(t, errOut, "does not match schedule", "errOut")
	assert.Contains(t, errOut, "is beyond the schedule's 1 tasks", "errOut")
	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", short, "-o", filepath.Join(dir, "t.json"))
	assert.Equal(t, 1, code, "code")
	assert.Contains(t, errOut, "does not match schedule", "errOut")
	// Without arrows the schedule only gives the layout.
	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", short, "--flows", "none", "-o", filepath.Join(dir, "t.json"))
	assert.Equalf(t, 0, code, "%s: code", errOut)
}

func TestDecodeFlowsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.json")
	_, errOut, code := runMain(t, "decode", moeCapture, "--plan", moePlan, "-o", trace)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, errOut, "952 dependency arrows (releasing), 0 waits without producer", "errOut")
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Equal(t, 952, strings.Count(string(data), `"ph":"f","bp":"e"`))

	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", moePlan, "--flows", "all", "--max-flows", "10", "-o", trace)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, errOut, "10 dependency arrows (all)", "errOut")

	_, errOut, code = runMain(t, "decode", moeCapture, "--plan", moePlan, "--flows", "none", "-o", trace)
	require.Equalf(t, 0, code, "%s: code", errOut)
	data, _ = os.ReadFile(trace)
	assert.NotContainsf(t, string(data), `"cat":"dependency"`, "string(data), want no %q", `"cat":"dependency"`)

	for _, c := range [][]string{
		{"decode", moeCapture, "--flows", "all", "-o", trace},
		{"decode", moeCapture, "--plan", moePlan, "--flows", "some", "-o", trace},
		{"decode", moeCapture, "--plan", moePlan, "--max-flows", "-1", "-o", trace},
	} {
		_, errOut, code := runMain(t, c...)
		assert.Equalf(t, 2, code, "%v: %s: code", c, errOut)
	}
}

func TestDiffCommand(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "diff", moeCapture, moeCapture, "--plan", moePlan, "--names", moeNames)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Truef(t, strings.HasSuffix(out, "no change\n"), "%s: strings.HasSuffix(out, \"no change\\n\") = false, want true", out)

	dir := t.TempDir()
	report := filepath.Join(dir, "base.json")
	_, errOut, code = runMain(t, "analyze", moeCapture, "--names", moeNames, "--format", "json", "-o", report)
	require.Equalf(t, 0, code, "%s: code", errOut)
	out, errOut, code = runMain(t, "diff", report, moeCapture, "--names", moeNames, "--format", "markdown")
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "No change.", "out")

	data, err := os.ReadFile(report)
	require.NoError(t, err)
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(data), `"abi_fingerprint": "`, `"abi_fingerprint": "00`, 1)), 0o644))
	_, errOut, code = runMain(t, "diff", report, other)
	assert.Equal(t, 1, code, "code")
	assert.Contains(t, errOut, "--allow-abi-mismatch", "errOut")
	_, errOut, code = runMain(t, "diff", report, other, "--allow-abi-mismatch", "--format", "json")
	assert.Equalf(t, 0, code, "%s: code", errOut)

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"ranks": 3}`), 0o644))
	_, _, code = runMain(t, "diff", report, bad)
	assert.Equal(t, 1, code, "code")
	_, _, code = runMain(t, "diff", report)
	assert.Equal(t, 2, code, "code")
}

// TestAnalyzeRanks: several captures get a section each and the
// cross-rank table, in every format.
func TestAnalyzeRanks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(moeCapture)
	require.NoError(t, err)
	r0, r1 := filepath.Join(dir, "rank0.bin"), filepath.Join(dir, "rank1.bin")
	require.NoError(t, os.WriteFile(r0, data, 0o644))
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	require.Equalf(t, 0, code, "%s: code", errOut)

	out, errOut, code := runMain(t, "analyze", r0, r1, "--plan", moePlan)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "== rank 0: ", "out")
	assert.Contains(t, out, "== rank 1: ", "out")
	assert.Contains(t, out, "slowest rank ", "out")

	out, errOut, code = runMain(t, "analyze", r0, r1, "--format", "json")
	require.Equalf(t, 0, code, "%s: code", errOut)
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
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Ranks, 2, "len(rep.Ranks)")
	require.Len(t, rep.CrossRank.Ranks, 2, "len(rep.CrossRank.Ranks)")
	a, b := rep.CrossRank.Ranks[0].MakespanCycles, rep.CrossRank.Ranks[1].MakespanCycles
	assert.Equal(t, max(a, b)-min(a, b), rep.CrossRank.SpreadCycles, "rep.CrossRank.SpreadCycles")
	assert.Equal(t, (map[bool]uint32{true: 0, false: 1}[a >= b]), rep.CrossRank.SlowestRank, "rep.CrossRank.SlowestRank")

	out, _, code = runMain(t, "analyze", r0, r1, "--format", "csv", "--table", "types")
	require.Equal(t, 0, code, "code")
	assert.Contains(t, out, "\n1,", "out")
	out, _, code = runMain(t, "analyze", r0, r1, "--format", "markdown")
	require.Equal(t, 0, code, "code")
	assert.Contains(t, out, "## Rank 1", "out")

	// Two ranks against the same two: no change.
	out, errOut, code = runMain(t, "diff", r1, r1)
	require.Equalf(t, 0, code, "%s: code", errOut)
	assert.Contains(t, out, "no change", "out")
}

// analyze and diff never write over what they read: each input named as
// -o is refused with exit 2 and left byte for byte as it was.
func TestAnalyzeDiffRefuseInputAsOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo := func(src, name string) string {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	capture := copyTo(moeCapture, "rank0.bin")
	sched := copyTo(moePlan, "moe.yaml")
	names := copyTo(moeNames, "moe.names.yaml")
	for _, in := range []string{capture, sched, names} {
		before, err := os.ReadFile(in)
		require.NoError(t, err)
		for _, args := range [][]string{
			{"analyze", capture, "--plan", sched, "--names", names, "-o", in},
			{"diff", capture, capture, "--plan", sched, "--names", names, "-o", in},
		} {
			_, errOut, code := runMain(t, args...)
			assert.Equalf(t, 2, code, "%v: %s: code", args, errOut)
			assert.Containsf(t, errOut, "it is an input of this command", "%v: errOut", args)
			after, err := os.ReadFile(in)
			require.NoError(t, err)
			assert.Equalf(t, []byte(before), []byte(after), "%v changed %s: after", args, in)
		}
	}
}
