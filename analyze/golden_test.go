package analyze_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moeReport analyzes the shipped example as
// `cycleabi analyze examples/moe_layer.bin --plan examples/moe_layer.yaml
// --names examples/moe_layer.names.yaml` does.
func moeReport(t *testing.T, withPlan bool) *analyze.Report {
	t.Helper()
	c, err := capture.Open("../examples/moe_layer.bin")
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	c.Name = "examples/moe_layer.bin"
	var o capture.Request
	var deps *flows.Dependencies
	var s *plan.Schedule
	if withPlan {
		s, err = plan.ParseFile("../examples/moe_layer.yaml")
		require.NoError(t, err)
		r, err := plan.Plan(s)
		require.NoError(t, err)
		o.Plan = &capture.Plan{Name: "moe_layer.yaml", CubeSlots: r.CubeSlotCount, Capacities: r.Capacities()}
	}
	d, err := decode.Decode(c, o)
	require.NoError(t, err)
	if s != nil {
		deps, err = flows.NewDependencies(d, s)
		require.NoError(t, err)
	}
	names, err := kernelnames.Load("../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	r, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Names: names, Deps: deps})
	require.NoError(t, err)
	return analyze.NewReport([]*analyze.Rank{r})
}

func TestGoldenMoELayer(t *testing.T) {
	rep := moeReport(t, true)
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"moe_layer.txt", func(b *bytes.Buffer) error { return rep.WriteText(b, 10) }},
		{"moe_layer.json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }},
		{"moe_layer.md", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b, 5) }},
		{"moe_layer.stages.csv", func(b *bytes.Buffer) error { return rep.WriteCSV(b, "stages") }},
		{"moe_layer.path.csv", func(b *bytes.Buffer) error { return rep.WriteCSV(b, "path") }},
	} {
		var b bytes.Buffer
		require.NoErrorf(t, c.write(&b), "%s", c.name)
		golden.Check(t, filepath.Join("testdata", "golden", c.name), b.Bytes())
	}
	var b bytes.Buffer
	require.NoError(t, moeReport(t, false).WriteText(&b, 3))
	golden.Check(t, filepath.Join("testdata", "golden", "moe_layer.noplan.txt"), b.Bytes())
}

// TestDiffSelf: a capture diffed with itself, directly or through its
// JSON report, is zero everywhere.
func TestDiffSelf(t *testing.T) {
	rep := moeReport(t, true)
	d, err := analyze.Compare(rep, rep, false)
	require.NoError(t, err)
	require.Truef(t, d.IsZero(), "self-diff is not zero: %+v", d)
	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	back, err := analyze.ReadReport("moe.json", js.Bytes())
	require.NoError(t, err)
	d, err = analyze.Compare(rep, back, false)
	require.NoErrorf(t, err, "diff with its own JSON report %+v", d)
	require.Truef(t, d.IsZero(), "diff with its own JSON report %+v", d)
	var text bytes.Buffer
	require.NoError(t, d.WriteText(&text, 0))
	require.True(t, bytes.HasSuffix(text.Bytes(), []byte("no change\n")), "self-diff text shows a change:\n%s", text.Bytes())
	require.NotContains(t, text.String(), "+", "self-diff text shows a change")
	// A change shows, and the largest change in total comes first.
	other := moeReport(t, true)
	other.Ranks[0].MakespanCycles += 100
	other.Ranks[0].Stages[3].TotalCycles += 5000
	other.Ranks[0].Stages[1].TotalCycles -= 7
	d, err = analyze.Compare(rep, other, false)
	require.NoError(t, err, "diff of a change")
	require.False(t, d.IsZero(), "diff of a change is zero")
	r := d.Ranks[0]
	require.Equalf(t, float64(100), r.Makespan.Abs, "diff: %+v", r)
	require.Equalf(t, rep.Ranks[0].Stages[3].Name, r.Stages[0].Name, "diff: %+v", r)
	require.Equalf(t, float64(5000), r.Stages[0].TotalCycles.Abs, "diff: %+v", r)
	require.Equalf(t, float64(-7), r.Stages[1].TotalCycles.Abs, "diff: %+v", r)
	other.ABIFingerprint = "0000000000000000"
	_, err = analyze.Compare(rep, other, false)
	require.Error(t, err, "different ABI fingerprints compared without --allow-abi-mismatch")
	_, err = analyze.Compare(rep, other, true)
	require.NoError(t, err, "allow-abi-mismatch")
}

// TestDocWalkthrough keeps the walkthrough of docs/analyze.md the real output:
// every line of `analyze --top 3` of the example is in it, but the core
// rows it shortens.
func TestDocWalkthrough(t *testing.T) {
	page, err := os.ReadFile("../docs/analyze.md")
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, moeReport(t, true).WriteText(&b, 3))
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "AIC/") || strings.HasPrefix(line, "AIV/") {
			continue
		}
		assert.Containsf(t, string(page), string([]byte(line)), "docs/analyze.md's walkthrough lacks the line %q of the output", line)
	}
}

// TestWriteJSONIsMarshalIndent: the report written a rank at a time is
// the document json.MarshalIndent makes of the whole report: several
// ranks (a plan's critical path with its segments, a rank without one,
// a stopped rank's diagnosis), the cross-rank comparison, with inputs and
// without, none and no ranks.
func TestWriteJSONIsMarshalIndent(t *testing.T) {
	withPlan, without := moeReport(t, true), moeReport(t, false)
	s := moeSchedule(t)
	stopped := analyzeSim(t, s, run(t, s, synth.Options{Seed: 2, Faults: synth.Faults{StopInTask: []uint32{100}}}), true)
	three := analyze.NewReport([]*analyze.Rank{withPlan.Ranks[0], without.Ranks[0], stopped})
	inputs := []analyze.Input{{Flag: "--plan", Value: "moe_layer.yaml"}}
	withInputs := analyze.NewReport(three.Ranks)
	withInputs.Inputs = &inputs
	for name, r := range map[string]*analyze.Report{
		"one": withPlan, "three": three, "inputs": withInputs,
		"none": {ABIVersion: 2, ABIFingerprint: "x"}, "empty": {Ranks: []*analyze.Rank{}},
	} {
		want, err := json.MarshalIndent(r, "", "  ")
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, r.WriteJSON(&got))
		if !assert.Equal(t, string(want)+"\n", got.String(), "%s: WriteJSON differs from MarshalIndent", name) {
			t.Log(golden.FirstDiff(got.Bytes(), append(want, '\n')))
		}
	}
}
