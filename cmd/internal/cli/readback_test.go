package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// readBackAnalysis is what analyze says of a capture that its trace must
// say alike: the cycle totals (not the core counts: a trace holds only
// the cores that wrote records, its notes say) and each task type's and
// stage's count and total.
type readBackAnalysis struct {
	Ranks []struct {
		Totals struct {
			Compute uint64 `json:"compute_cycles"`
			Wait    uint64 `json:"wait_cycles"`
			Trigger uint64 `json:"trigger_cycles"`
			Other   uint64 `json:"other_cycles"`
		} `json:"totals"`
		TaskTypes []readBackGroup `json:"task_types"`
		Stages    []readBackGroup `json:"stages"`
	} `json:"ranks"`
}

type readBackGroup struct {
	Name  string `json:"name"`
	Count uint64 `json:"count"`
	Total uint64 `json:"total_cycles"`
}

// TestTraceReadBackAnalyzesAsItsCapture: a capture decoded to a JSON
// trace under any family and flags (--kernel-family of every family or
// none, a kernel name, --soc, --freq-mhz, or nothing: the family
// inferred), then analyzed with no flag, gives the task types, stages and
// cycle totals the capture gives analyzed with those flags: the trace
// carries the family (kernelFamily), the frequency and the SoC decode
// read it under.
func TestTraceReadBackAnalyzesAsItsCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var captures []string
	for _, c := range familyCases {
		sched := filepath.Join(dir, c.name+".yaml")
		require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
		for _, seed := range []string{"1", "7"} {
			p := filepath.Join(dir, c.name+"-"+seed+".bin")
			_, errOut, code := runMain(t, "synth", sched, "--seed", seed, "-o", p)
			require.Equalf(t, ExitOK, code, "synth: %s", errOut)
			captures = append(captures, p)
		}
	}
	var choices [][]string
	choices = append(choices, nil, []string{"--kernel-family", "none"}, []string{"--kernel-name", "MegaMoe"}, []string{"--kernel-name", "HyperMegaMhc"})
	for _, f := range abi.Families() {
		choices = append(choices, []string{"--kernel-family", f.String()})
	}
	clocks := [][]string{nil, {"--soc", "ascend950"}, {"--freq-mhz", "1000"}}
	analysis := func(rt *rapid.T, args ...string) readBackAnalysis {
		stdout, errOut, code := runMain(t, append([]string{"analyze", "--format", "json"}, args...)...)
		require.Equalf(rt, ExitOK, code, "analyze %v: exit\n%s", args, errOut)
		var a readBackAnalysis
		require.NoError(rt, json.Unmarshal([]byte(stdout), &a))
		return a
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		capPath := rapid.SampledFrom(captures).Draw(rt, "capture")
		flags := append(rapid.SampledFrom(choices).Draw(rt, "family"), rapid.SampledFrom(clocks).Draw(rt, "clock")...)
		n++
		trace := filepath.Join(dir, fmt.Sprintf("t%d.json", n))
		_, errOut, code := runMain(t, append([]string{"decode", capPath, "-o", trace}, flags...)...)
		require.Equalf(rt, ExitOK, code, "decode %v: exit\n%s", flags, errOut)
		want := analysis(rt, append([]string{capPath}, flags...)...)
		got := analysis(rt, trace)
		os.Remove(trace)
		require.Equalf(rt, want, got, "%s decoded with %v, analyzed", filepath.Base(capPath), flags)
	})
}

// TestDiffSaysClockAndFamily: diff of one capture analyzed at 50 and at
// 1000 MHz, or under two families, is no "no change": the analyses record
// the frequency, SoC and family they were read at, diff warns that they
// differ, and --strict refuses.
func TestDiffSaysClockAndFamily(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := megaMoeCapture(t, dir)
	analysis := func(name string, flags ...string) string {
		p := filepath.Join(dir, name)
		_, errOut, code := runMain(t, append([]string{"analyze", capPath, "--format", "json", "-o", p}, flags...)...)
		require.Equalf(t, ExitOK, code, "analyze %v: %s", flags, errOut)
		return p
	}
	base := analysis("base.json")
	for _, c := range []struct {
		flags []string
		said  string
	}{
		{[]string{"--freq-mhz", "1000"}, "--freq-mhz: base 50, new 1000"},
		{[]string{"--soc", "ascend950"}, "--soc: base ascend910b, new ascend950"},
		{[]string{"--kernel-family", "none"}, "--kernel-family: base MegaMoe, new None"},
	} {
		other := analysis("other.json", c.flags...)
		_, errOut, code := runMain(t, "diff", base, other)
		require.Equalf(t, ExitOK, code, "diff %v: exit, want 0 and a warning %q", c.flags, c.said)
		assert.Containsf(t, errOut, "warning: inputs differ: "+c.said, "diff %v: exit, want 0 and a warning %q", c.flags, c.said)
		_, errOut, code = runMain(t, "diff", base, other, "--strict")
		assert.Equalf(t, ExitInvalid, code, "diff --strict %v: exit\n%s", c.flags, errOut)
	}
}
