package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// window copies the example capture twice into a temporary directory, as
// a forward and a backward launch, with a manifest listing them.
func window(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	data, err := os.ReadFile("../../../examples/moe_layer.bin")
	require.NoError(t, err)
	for _, n := range []string{"fwd.bin", "bwd.bin"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), data, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "window.yaml"), []byte(
		"- {capture: fwd.bin, rank: 2, step: 7, direction: forward, kernel_name: HyperMegaMoe}\n"+
			"- {capture: bwd.bin, rank: 2, step: 7, direction: backward}\n"), 0o644))
	return dir
}

type windowTrace struct {
	TraceEvents []struct {
		Ph   string         `json:"ph"`
		Name string         `json:"name"`
		Pid  int            `json:"pid"`
		Ts   json.Number    `json:"ts"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	MegaKernelCycleTrace struct {
		InvocationCount int              `json:"invocationCount"`
		Invocations     []map[string]any `json:"invocations"`
	} `json:"megaKernelCycleTrace"`
}

func TestDecodeInvocations(t *testing.T) {
	t.Parallel()
	dir := window(t)
	// One capture given twice: one anchor, so both launches sit at their
	// real time, the first record 0.58 us after it, with a warning.
	for name, args := range map[string][]string{
		"manifest": {"decode", "--invocation-manifest", filepath.Join(dir, "window.yaml")},
		"flags": {"decode", filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin"), "--rank", "2", "--rank", "2",
			"--step", "7", "--step", "7", "--direction", "forward", "--direction", "backward", "--kernel-name", "HyperMegaMoe"},
	} {
		out := filepath.Join(dir, name+".json")
		_, stderr, code := runMain(t, append(args, "-o", out)...)
		require.Equalf(t, 0, code, "%s: code", stderr)
		var tr windowTrace
		data, _ := os.ReadFile(out)
		require.NoErrorf(t, json.Unmarshal(data, &tr), "%s", name)
		var firsts []string
		procs := 0
		for _, e := range tr.TraceEvents {
			if e.Ph == "M" && e.Name == "process_name" {
				procs++
				require.Equal(t, "HyperMegaMoe rank 2 device 2", e.Args["name"], "e.Args[\"name\"]")
			}
			if e.Ph == "X" && (len(firsts) == 0 || e.Args["invocation_id"] != 0.0 && len(firsts) == 1) {
				firsts = append(firsts, string(e.Ts))
				require.Equal(t, 7.0, e.Args["step"], "e.Args[\"step\"]")
				require.Equal(t, 2, e.Pid, "e.Pid")
			}
		}
		require.Equalf(t, 1, procs, "%s: procs", name)
		require.Equalf(t, []string{"0.58", "0.58"}, firsts, "%s: firsts", name)
		require.Containsf(t, stderr, "cycleabi: warning: invocation 1 ("+filepath.Join(dir, "bwd.bin")+") of rank 2 overlaps invocation 0 ("+filepath.Join(dir, "fwd.bin")+") in time", "%s: stderr", name)
		require.Containsf(t, stderr, "the same capture twice?", "%s: stderr", name)
		require.Equal(t, 2, tr.MegaKernelCycleTrace.InvocationCount, "tr.MegaKernelCycleTrace.InvocationCount")
		require.Equal(t, "backward", tr.MegaKernelCycleTrace.Invocations[1]["direction"], "tr.MegaKernelCycleTrace.Invocations[1][\"direction\"]")
		require.Equal(t, filepath.Join(dir, "bwd.bin"), tr.MegaKernelCycleTrace.Invocations[1]["capture"], "tr.MegaKernelCycleTrace.Invocations[1][\"capture\"]")
	}

	// --invocation-gap-us lays them end to end: the example's last record
	// ends 2458.84 us after its anchor; the second launch's anchor goes
	// 10 us later, at 2468.84, and its first record 0.58 us after that.
	// No overlap then.
	out := filepath.Join(dir, "gap.json")
	_, stderr, code := runMain(t, "decode", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--invocation-gap-us", "10", "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)
	require.NotContainsf(t, stderr, "overlaps", "stderr = %q, want no %q", stderr, "overlaps")
	var gapped windowTrace
	data, _ := os.ReadFile(out)
	require.NoError(t, json.Unmarshal(data, &gapped))
	var firsts []string
	for _, e := range gapped.TraceEvents {
		if e.Ph == "X" && (len(firsts) == 0 || e.Args["invocation_id"] != 0.0 && len(firsts) == 1) {
			firsts = append(firsts, string(e.Ts))
		}
	}
	require.Equal(t, []string{"0.58", "2469.42"}, firsts, "firsts")

	// --absolute-time: system-counter microseconds, the same for both.
	out = filepath.Join(dir, "abs.json")
	_, stderr, code = runMain(t, "decode", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--absolute-time", "--invocation-gap-us", "0", "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)
	var tr windowTrace
	data, _ = os.ReadFile(out)
	require.NoError(t, json.Unmarshal(data, &tr))
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			// cycle 1008322928762 (anchor + 29) at 50 MHz
			require.Equal(t, "20166458575.24", string(e.Ts), "string(e.Ts)")
			break
		}
	}
}

func TestDecodeInvocationErrors(t *testing.T) {
	t.Parallel()
	dir := window(t)
	fwd, bwd, man := filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin"), filepath.Join(dir, "window.yaml")
	out := filepath.Join(dir, "out.json")
	big, bigMan := filepath.Join(dir, "rank99999999999.bin"), filepath.Join(dir, "big.yaml")
	require.NoError(t, os.Link(fwd, big))
	require.NoError(t, os.WriteFile(bigMan, []byte("- {capture: rank99999999999.bin}\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{fwd, bwd, "--step", "1"}, "1 --step values for 2 captures"},
		{[]string{fwd, bwd, "--direction", "forward", "--direction", "up"}, `--direction: direction "up" is not forward or backward`},
		{[]string{fwd, "--invocation-manifest", man}, "either as arguments or in --invocation-manifest, not both"},
		{[]string{"--invocation-manifest", man, "--rank", "1"}, "--rank, --step and --direction go with capture arguments"},
		{[]string{"--invocation-manifest", filepath.Join(dir, "none.yaml")}, "none.yaml: invocation manifest not found"},
		{[]string{fwd, bwd}, "cannot tell the rank"},
		{[]string{fwd, bwd, "--step", "1", "--step", "2", "--invocation-gap-us", "-1"}, "must be >= 0"},
		// A rank in a name too large for a pid is an error, not rank 0.
		{[]string{big, "--step", "1"}, "rank99999999999.bin: rank 99999999999 in the file name exceeds"},
		{[]string{"--invocation-manifest", bigMan}, "rank99999999999.bin: rank 99999999999 in the file name exceeds"},
	} {
		_, stderr, code := runMain(t, append(append([]string{"decode"}, c.args...), "-o", out)...)
		require.Equalf(t, 2, code, "%v: %s: code", c.args, stderr)
		require.Containsf(t, stderr, c.want, "%v: stderr", c.args)
	}
}

func TestValidateManifest(t *testing.T) {
	t.Parallel()
	dir := window(t)
	stdout, stderr, code := runMain(t, "validate", "--invocation-manifest", filepath.Join(dir, "window.yaml"))
	require.Equalf(t, 0, code, "%s: code", stderr)
	require.Contains(t, stdout, filepath.Join(dir, "fwd.bin")+": 2974 records", "stdout")
	require.Contains(t, stdout, filepath.Join(dir, "bwd.bin")+": 2974 records", "stdout")
	_, stderr, code = runMain(t, "validate")
	require.Equal(t, 2, code, "code")
	require.Contains(t, stderr, "validate needs at least one CAPTURE", "stderr")

	// A missing capture: validate reports it and checks the others.
	miss := filepath.Join(dir, "miss.yaml")
	require.NoError(t, os.WriteFile(miss, []byte("- {capture: none.bin}\n- {capture: fwd.bin}\n"), 0o644))
	stdout, stderr, code = runMain(t, "validate", "--invocation-manifest", miss)
	require.Equal(t, 2, code, "code")
	require.Contains(t, stderr, filepath.Join(dir, "none.bin"), "stderr")
	require.Contains(t, stdout, filepath.Join(dir, "fwd.bin")+": 2974 records", "stdout")

	// A manifest decode refuses, validate refuses too: same flags, same
	// verdict.
	dup := filepath.Join(dir, "dup.yaml")
	require.NoError(t, os.WriteFile(dup, []byte("- {capture: fwd.bin, rank: 1, invocation_id: 3}\n- {capture: bwd.bin, rank: 1, invocation_id: 3}\n"), 0o644))
	for _, args := range [][]string{
		{"validate", "--invocation-manifest", dup},
		{"decode", "--invocation-manifest", dup, "-o", filepath.Join(dir, "out.json")},
	} {
		_, stderr, code = runMain(t, args...)
		require.Equalf(t, 2, code, "%v: code", args)
		require.Containsf(t, stderr, filepath.Join(dir, "fwd.bin")+" and "+filepath.Join(dir, "bwd.bin")+" are both invocation 3 of rank 1", "%v: stderr", args)
	}
}

// TestValidateLabels: validate takes a window's decode command line as it
// is: --step and --direction pass when decode would take them and are
// refused with decode's message when decode would refuse them.
func TestValidateLabels(t *testing.T) {
	t.Parallel()
	dir := window(t)
	fwd, bwd := filepath.Join(dir, "fwd.bin"), filepath.Join(dir, "bwd.bin")
	stdout, stderr, code := runMain(t, "validate", fwd, bwd, "--step", "3", "--step", "3", "--direction", "forward", "--direction", "backward")
	require.Equalf(t, 0, code, "%s: code", stderr)
	require.Contains(t, stdout, fwd+": 2974 records", "stdout")
	require.Contains(t, stdout, bwd+": 2974 records", "stdout")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{fwd, bwd, "--step", "1"}, "1 --step values for 2 captures"},
		{[]string{fwd, bwd, "--direction", "forward", "--direction", "up"}, `--direction: direction "up" is not forward or backward`},
		{[]string{"--step", "1", "--invocation-manifest", filepath.Join(dir, "window.yaml")}, "--rank, --step and --direction go with capture arguments"},
	} {
		for _, cmd := range []string{"validate", "decode"} {
			args := append([]string{cmd}, c.args...)
			if cmd == "decode" {
				args = append(args, "-o", filepath.Join(dir, "out.json"))
			}
			_, stderr, code := runMain(t, args...)
			require.Equalf(t, 2, code, "%v: %s: code", args, stderr)
			require.Containsf(t, stderr, c.want, "%v: stderr", args)
		}
	}
}
