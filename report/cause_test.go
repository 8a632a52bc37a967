package report

import (
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCauseCard: the cluster's second card says why the slowest rank is
// slow, whatever the cause, and links the figure that shows it; a stage
// over its median keeps the stage card.
func TestCauseCard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		slow   func(k *analyze.Rank)
		kind   string
		label  string
		href   string
		inText string
	}{
		{"stage", func(k *analyze.Rank) { k.Stages[0].TotalCycles = 1300 }, analyze.CauseStage, "where it is slowest", "", "+300 cycles"},
		{"cores", func(k *analyze.Rank) { k.Totals.ActiveCores, k.Totals.WaitPct = 42, 93 }, analyze.CauseCoresNotEntered,
			"why it is slowest: cores not entered", "#cores", "6 of its cores wrote no record (42 active; the median rank: 48), and it waits 93.0% of its span"},
		{"waits", func(k *analyze.Rank) { k.Totals.WaitPct, k.Totals.WaitCycles = 80, 1600 }, analyze.CauseWaits, "why it is slowest: waits", "#critical-path",
			"its cores wait 1600 cycles in all, 80.0% of its span (the median rank: 1000 cycles, 50.0%): a dependency chain holds it up; its critical path (with --plan) shows the chain"},
		{"waits on a path", func(k *analyze.Rank) {
			k.Totals.WaitPct, k.Totals.WaitCycles = 80, 1600
			k.CriticalPath.TotalUs = 40
		}, analyze.CauseWaits, "why it is slowest: waits", "#critical-path", "its critical path is 40.00 µs, the median rank's 20.00 µs"},
		{"dropped", func(k *analyze.Rank) { k.Dropped = 10 }, analyze.CauseDropped, "why it is slowest: dropped records", "#summary", "it dropped 10 records"},
		{"stopped", func(k *analyze.Rank) { k.Diagnosis = stoppedAt(9, "AIC/0", 30) }, analyze.CauseStopped, "why it is slowest: stopped", "#summary", "its kernel stopped: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := clusterInput(5, func(int) *validate.Result { return nil }, nil)
			for _, k := range in.Report.Ranks {
				k.Totals = &analyze.Totals{ActiveCores: 48, WaitPct: 50, WaitCycles: 1000}
				k.Stages = []analyze.Stat{{Name: "GateUp", Count: 1, TotalCycles: 1000}}
				if tc.name == "waits on a path" {
					k.CriticalPath = &analyze.Path{TotalUs: 20}
				}
			}
			k := in.Report.Ranks[3]
			k.MakespanCycles, k.MakespanUs = 2000, 40
			tc.slow(k)
			in.Report = analyze.NewReport(in.Report.Ranks)
			c := in.Report.Cluster()
			require.Equalf(t, tc.kind, c.Cause.Kind, "cause %+v", c.Cause)
			require.Containsf(t, c.Cause.Text, tc.inText, "cause %+v", c.Cause)
			p := build(in)
			card := p.Cards[1]
			assert.Equalf(t, tc.label, card.Label, "card %+v", card)
			assert.Equalf(t, tc.href, card.Href, "card %+v", card)
			var b strings.Builder
			require.NoError(t, in.Report.WriteText(&b, 0))
			if tc.kind != analyze.CauseStage {
				assert.Contains(t, b.String(), "why: "+c.Cause.Text, "the text's cause")
			}
		})
	}
}
