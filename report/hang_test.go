package report

import (
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func stoppedAt(task uint32, core string, lastEnd uint64) *analyze.Diagnosis {
	root := analyze.Root{Kind: analyze.RootStoppedInside, Tasks: []analyze.RootTask{{Task: task, TaskType: "MatMul", Core: core}},
		Message: "task stops here", BlockedCores: 3}
	return &analyze.Diagnosis{Summary: "the kernel stopped: 3 worker core(s) did not finish their queues; root: task stops here",
		Cores: []analyze.StoppedCore{{Core: core, State: analyze.StateStoppedInside, LastEndCycle: lastEnd}}, Roots: []analyze.Root{root}}
}

// TestStoppedCard: a stopped capture's page opens with a card naming the
// root's task, and a banner with the diagnosis; a healthy one has neither.
func TestStoppedCard(t *testing.T) {
	in := clusterInput(1, func(int) *validate.Result { return nil }, nil)
	healthy := build(in)
	require.NotEqualf(t, "kernel stopped", healthy.Cards[0].Label, "a healthy capture's page: first card %+v", healthy.Cards[0])
	require.Empty(t, healthy.Banners, "a healthy capture's page: banners")
	in.Report.Ranks[0].Diagnosis = stoppedAt(100, "AIC/6", 5)
	p := build(in)
	c := p.Cards[0]
	require.Equalf(t, "kernel stopped", c.Label, "first card %+v, want the stopped task", c)
	require.Equalf(t, "task 100", c.Value, "first card %+v, want the stopped task", c)
	require.Equalf(t, "bad", c.Class, "first card %+v, want the stopped task", c)
	assert.Containsf(t, c.Sub, "task stops here", "first card %+v, want the stopped task", c)
	if assert.Len(t, p.Banners, 1, "banners") {
		assert.Contains(t, p.Banners[0], "the kernel stopped: 3 worker core(s)", "the banner: want the diagnosis")
	}
}

// TestStoppedFinding: of a cluster's stopped ranks, the one whose cores
// stopped earliest is named first.
func TestStoppedFinding(t *testing.T) {
	in := clusterInput(4, func(int) *validate.Result { return nil }, nil)
	for _, k := range in.Report.Ranks {
		k.EndCycle = 100
	}
	in.Report.Ranks[1].Diagnosis = stoppedAt(7, "AIV/2", 40)
	in.Report.Ranks[3].Diagnosis = stoppedAt(9, "AIC/0", 30)
	in.Report = analyze.NewReport(in.Report.Ranks)
	p := build(in)
	require.NotEmpty(t, p.Findings, "findings")
	assert.Equal(t, "2 of 4 ranks stopped before their work was done; rank 3 stopped first: "+stoppedAt(9, "AIC/0", 30).Summary+"; after it: rank 1 (+10 cycles)", p.Findings[0].Text, "the first finding: want rank 3 first")
}
