package analyze

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func section(rank uint32, inv *Invocation, capture string, makespan uint64) *Rank {
	return &Rank{Rank: rank, Invocation: inv, Capture: capture, CycleFrequencyMHz: 50, MakespanCycles: makespan,
		Regions: map[string]*Totals{}, Totals: &Totals{}}
}

func inv(id int64, step int64, dir string) *Invocation {
	return &Invocation{ID: id, Step: &step, Direction: &dir}
}

func TestInvocationLabels(t *testing.T) {
	step := int64(3)
	dir := "backward"
	for want, v := range map[string]*Invocation{
		"invocation 0":                    {},
		"invocation 1 (step 3)":           {ID: 1, Step: &step},
		"invocation 2 (backward)":         {ID: 2, Direction: &dir},
		"invocation 7 (step 3, backward)": {ID: 7, Step: &step, Direction: &dir},
	} {
		assert.Equal(t, want, v.String(), "v.String()")
	}
	assert.Equal(t, "rank 4", section(4, nil, "a", 0).label(), "section(4, nil, \"a\", 0).label()")
	assert.Equal(t, "rank 4 invocation 7 (step 3, backward)", section(4, &Invocation{ID: 7, Step: &step, Direction: &dir}, "a", 0).label())
}

// TestCompareInvocations: sections are paired by (rank, invocation id),
// not by their order; a section on one side only, or twice on one side,
// is an error naming it.
func TestCompareInvocations(t *testing.T) {
	base := NewReport([]*Rank{
		section(0, inv(0, 3, "forward"), "f0", 100), section(0, inv(1, 3, "backward"), "b0", 200),
		section(1, inv(0, 3, "forward"), "f1", 300),
	})
	next := NewReport([]*Rank{
		section(1, inv(0, 4, "forward"), "F1", 330), section(0, inv(1, 4, "backward"), "B0", 150),
		section(0, inv(0, 4, "forward"), "F0", 100),
	})
	d, err := Compare(base, next, false)
	require.NoError(t, err)
	require.Len(t, d.Ranks, 3, "len(d.Ranks)")
	type pair struct {
		base, new string
		abs       float64
	}
	var got []pair
	for _, r := range d.Ranks {
		got = append(got, pair{r.BaseCapture, r.NewCapture, r.Makespan.Abs})
	}
	assert.Equal(t, []pair{{"f0", "F0", 0}, {"b0", "B0", -50}, {"f1", "F1", 30}}, got)
	assert.Equalf(t, int64(4), *d.Ranks[1].Invocation.Step, "labelled with the new side's invocation: *d.Ranks[1].Invocation.Step = %v, want %v", *d.Ranks[1].Invocation.Step, int64(4))
	var text bytes.Buffer
	require.NoError(t, d.WriteText(&text, 0))
	assert.Contains(t, text.String(), "== rank 0 invocation 1 (step 4, backward): b0 -> B0 ==\n", "text.String()")
	assert.NotContainsf(t, text.String(), "no change", "text.String(), want no %q", "no change")

	// The cross table of the base: the slowest is rank 1's invocation 0.
	require.NotNil(t, base.CrossRank, "base.CrossRank is nil, want non-nil")
	assert.Equal(t, uint32(1), base.CrossRank.SlowestRank, "base.CrossRank.SlowestRank")
	require.NotNil(t, base.CrossRank.SlowestInvocation, "base.CrossRank.SlowestInvocation is nil, want non-nil")
	assert.Equalf(t, int64(0), *base.CrossRank.SlowestInvocation, "*base.CrossRank.SlowestInvocation = %v, want %v", *base.CrossRank.SlowestInvocation, int64(0))
	assert.Equal(t, uint64(200), base.CrossRank.SpreadCycles, "base.CrossRank.SpreadCycles")
	js, err := json.Marshal(base.CrossRank.Ranks[1])
	require.NoError(t, err)
	assert.Empty(t, golden.JSONDiff(string(js), `{"rank":0,"invocation":{"invocation_id":1,"step":3,"direction":"backward"},"capture":"b0","makespan_cycles":200,"makespan_us":0,`+
		`"compute_cycles":0,"wait_cycles":0,"trigger_cycles":0,"other_cycles":0,"idle_cycles":0,"busy_pct":0,"wait_pct":0,"busiest_stage":"","slow":false}`))
	// Plain ranks keep their JSON: no invocation keys.
	plain, err := json.Marshal(NewReport([]*Rank{section(0, nil, "r0", 1), section(1, nil, "r1", 2)}).CrossRank)
	require.NoError(t, err)
	assert.NotContainsf(t, string(plain), "invocation", "string(plain), want no %q", "invocation")
	assert.Contains(t, string(plain), `"slow_ranks":[{"rank":1}]`, "rank 1's makespan is twice rank 0's: string(plain)")

	for _, c := range []struct {
		base, new []*Rank
		want      string
	}{
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, inv(1, 1, "forward"), "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(2, 1, "forward"), "C", 1)},
			"rank 0 invocation 1 (step 1, forward) (b) is not in the new analysis"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, nil, "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(0, 1, "forward"), "B", 1)},
			"the new analysis has rank 0 invocation 0 (step 1, forward) twice (A and B)"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, inv(0, 2, "forward"), "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(1, 1, "forward"), "B", 1)},
			"the base analysis has rank 0 invocation 0 (step 2, forward) twice (a and b)"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(1, nil, "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(1, nil, "B", 1), section(2, nil, "C", 1)},
			"rank 2 (C) is not in the base analysis"},
	} {
		_, err := Compare(NewReport(c.base), NewReport(c.new), false)
		assert.EqualErrorf(t, err, c.want, "error %v, want %q", err, c.want)
	}
}
