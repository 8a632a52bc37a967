package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// window copies the example capture twice into a temporary directory, as
// a forward and a backward launch, with a manifest listing them.
func window(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	data, err := os.ReadFile("../../../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"fwd.bin", "bwd.bin"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "window.yaml"), []byte(
		"- {capture: fwd.bin, rank: 2, step: 7, direction: forward, kernel_name: HyperMegaMoe}\n"+
			"- {capture: bwd.bin, rank: 2, step: 7, direction: backward}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
		if code != 0 {
			t.Fatalf("%s: code = %v, want 0", stderr, code)
		}
		var tr windowTrace
		data, _ := os.ReadFile(out)
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var firsts []string
		procs := 0
		for _, e := range tr.TraceEvents {
			if e.Ph == "M" && e.Name == "process_name" {
				procs++
				if !reflect.DeepEqual(e.Args["name"], "HyperMegaMoe rank 2 device 2") {
					t.Fatalf("e.Args[\"name\"] = %v, want %v", e.Args["name"], "HyperMegaMoe rank 2 device 2")
				}
			}
			if e.Ph == "X" && (len(firsts) == 0 || e.Args["invocation_id"] != 0.0 && len(firsts) == 1) {
				firsts = append(firsts, string(e.Ts))
				if !reflect.DeepEqual(e.Args["step"], 7.0) {
					t.Fatalf("e.Args[\"step\"] = %v, want 7.0", e.Args["step"])
				}
				if e.Pid != 2 {
					t.Fatalf("e.Pid = %v, want 2", e.Pid)
				}
			}
		}
		if procs != 1 {
			t.Fatalf("%s: procs = %v, want 1", name, procs)
		}
		if want := []string{"0.58", "0.58"}; !reflect.DeepEqual(firsts, want) {
			t.Fatalf("%s: firsts = %v, want %v", name, firsts, want)
		}
		if want := "cycleabi: warning: invocation 1 (" + filepath.Join(dir, "bwd.bin") + ") of rank 2 overlaps invocation 0 (" + filepath.Join(dir, "fwd.bin") + ") in time"; !strings.Contains(stderr, want) {
			t.Fatalf("%s: stderr = %q, want it to contain %q", name, stderr, want)
		}
		if !strings.Contains(stderr, "the same capture twice?") {
			t.Fatalf("%s: stderr = %q, want it to contain %q", name, stderr, "the same capture twice?")
		}
		if tr.MegaKernelCycleTrace.InvocationCount != 2 {
			t.Fatalf("tr.MegaKernelCycleTrace.InvocationCount = %v, want 2", tr.MegaKernelCycleTrace.InvocationCount)
		}
		if !reflect.DeepEqual(tr.MegaKernelCycleTrace.Invocations[1]["direction"], "backward") {
			t.Fatalf("tr.MegaKernelCycleTrace.Invocations[1][\"direction\"] = %v, want %v", tr.MegaKernelCycleTrace.Invocations[1]["direction"], "backward")
		}
		if want := filepath.Join(dir, "bwd.bin"); !reflect.DeepEqual(tr.MegaKernelCycleTrace.Invocations[1]["capture"], want) {
			t.Fatalf("tr.MegaKernelCycleTrace.Invocations[1][\"capture\"] = %v, want %v", tr.MegaKernelCycleTrace.Invocations[1]["capture"], want)
		}
	}

	// --invocation-gap-us lays them end to end: the example's last record
	// ends 2458.84 us after its anchor; the second launch's anchor goes
	// 10 us later, at 2468.84, and its first record 0.58 us after that.
	// No overlap then.
	out := filepath.Join(dir, "gap.json")
	_, stderr, code := runMain(t, "decode", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--invocation-gap-us", "10", "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if strings.Contains(stderr, "overlaps") {
		t.Fatalf("stderr = %q, want no %q", stderr, "overlaps")
	}
	var gapped windowTrace
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &gapped); err != nil {
		t.Fatal(err)
	}
	var firsts []string
	for _, e := range gapped.TraceEvents {
		if e.Ph == "X" && (len(firsts) == 0 || e.Args["invocation_id"] != 0.0 && len(firsts) == 1) {
			firsts = append(firsts, string(e.Ts))
		}
	}
	if want := []string{"0.58", "2469.42"}; !reflect.DeepEqual(firsts, want) {
		t.Fatalf("firsts = %v, want %v", firsts, want)
	}

	// --absolute-time: system-counter microseconds, the same for both.
	out = filepath.Join(dir, "abs.json")
	_, stderr, code = runMain(t, "decode", "--invocation-manifest", filepath.Join(dir, "window.yaml"), "--absolute-time", "--invocation-gap-us", "0", "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	var tr windowTrace
	data, _ = os.ReadFile(out)
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			// cycle 1008322928762 (anchor + 29) at 50 MHz
			if got := string(e.Ts); got != "20166458575.24" {
				t.Fatalf("string(e.Ts) = %q, want %q", got, "20166458575.24")
			}
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
	if err := os.Link(fwd, big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bigMan, []byte("- {capture: rank99999999999.bin}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
		if code != 2 {
			t.Fatalf("%v: %s: code = %v, want 2", c.args, stderr, code)
		}
		if !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: stderr = %q, want it to contain %q", c.args, stderr, c.want)
		}
	}
}

func TestValidateManifest(t *testing.T) {
	t.Parallel()
	dir := window(t)
	stdout, stderr, code := runMain(t, "validate", "--invocation-manifest", filepath.Join(dir, "window.yaml"))
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if want := filepath.Join(dir, "fwd.bin") + ": 2974 records"; !strings.Contains(stdout, want) {
		t.Fatalf("stdout = %q, want it to contain %q", stdout, want)
	}
	if want := filepath.Join(dir, "bwd.bin") + ": 2974 records"; !strings.Contains(stdout, want) {
		t.Fatalf("stdout = %q, want it to contain %q", stdout, want)
	}
	_, stderr, code = runMain(t, "validate")
	if code != 2 {
		t.Fatalf("code = %v, want 2", code)
	}
	if !strings.Contains(stderr, "validate needs at least one CAPTURE") {
		t.Fatalf("stderr = %q, want it to contain %q", stderr, "validate needs at least one CAPTURE")
	}

	// A missing capture: validate reports it and checks the others.
	miss := filepath.Join(dir, "miss.yaml")
	if err := os.WriteFile(miss, []byte("- {capture: none.bin}\n- {capture: fwd.bin}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runMain(t, "validate", "--invocation-manifest", miss)
	if code != 2 {
		t.Fatalf("code = %v, want 2", code)
	}
	if !strings.Contains(stderr, filepath.Join(dir, "none.bin")) {
		t.Fatalf("stderr = %q, want it to contain %q", stderr, filepath.Join(dir, "none.bin"))
	}
	if want := filepath.Join(dir, "fwd.bin") + ": 2974 records"; !strings.Contains(stdout, want) {
		t.Fatalf("stdout = %q, want it to contain %q", stdout, want)
	}

	// A manifest decode refuses, validate refuses too: same flags, same
	// verdict.
	dup := filepath.Join(dir, "dup.yaml")
	if err := os.WriteFile(dup, []byte("- {capture: fwd.bin, rank: 1, invocation_id: 3}\n- {capture: bwd.bin, rank: 1, invocation_id: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", "--invocation-manifest", dup},
		{"decode", "--invocation-manifest", dup, "-o", filepath.Join(dir, "out.json")},
	} {
		_, stderr, code = runMain(t, args...)
		if code != 2 {
			t.Fatalf("%v: code = %v, want 2", args, code)
		}
		if want := filepath.Join(dir, "fwd.bin") + " and " + filepath.Join(dir, "bwd.bin") + " are both invocation 3 of rank 1"; !strings.Contains(stderr, want) {
			t.Fatalf("%v: stderr = %q, want it to contain %q", args, stderr, want)
		}
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
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if !strings.Contains(stdout, fwd+": 2974 records") {
		t.Fatalf("stdout = %q, want it to contain %q", stdout, fwd+": 2974 records")
	}
	if !strings.Contains(stdout, bwd+": 2974 records") {
		t.Fatalf("stdout = %q, want it to contain %q", stdout, bwd+": 2974 records")
	}
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
			if code != 2 {
				t.Fatalf("%v: %s: code = %v, want 2", args, stderr, code)
			}
			if !strings.Contains(stderr, c.want) {
				t.Fatalf("%v: stderr = %q, want it to contain %q", args, stderr, c.want)
			}
		}
	}
}
