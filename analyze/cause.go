package analyze

import (
	"fmt"
	"slices"
	"strconv"
)

// The kinds of a slow section's cause (SlowCause.Kind).
const (
	// CauseStopped: its kernel stopped before its work was done.
	CauseStopped = "stopped"
	// CauseCoresNotEntered: fewer of its cores wrote records than the
	// median section's, and the rest of it waited on their work.
	CauseCoresNotEntered = "cores-not-entered"
	// CauseStage: a stage took longer than its median across sections.
	CauseStage = "stage"
	// CauseWaits: no stage is slower, but it waits more of its span than
	// the median section: a chain of dependencies holds it up.
	CauseWaits = "waits"
	// CauseDropped: it dropped records and the median section did not:
	// its timeline has holes.
	CauseDropped = "dropped"
	// CauseNone: nothing stands out.
	CauseNone = "none"
)

// SlowCause is why the slowest section is slow, as the first screen says
// it: one kind, a line with the figure that shows it, and the page's
// section (an anchor of report's page) where that figure is.
type SlowCause struct {
	Kind string
	Text string
	// Figure is "summary", "cores", "types" or "critical-path".
	Figure string
}

// slowCause finds the cause of k's slowness against the sections of x:
// a stop first, then cores that wrote nothing, a stage over its median,
// more waiting than the median section, dropped records.
func slowCause(k *Rank, x *CrossRank, ranks []*Rank, stage SlowestStage) SlowCause {
	if dg := k.Diagnosis; dg != nil {
		return SlowCause{CauseStopped, "its kernel stopped: " + dg.Summary, "summary"}
	}
	active := make([]float64, 0, len(ranks))
	waitPct := make([]float64, 0, len(ranks))
	var paths []float64
	dropping := 0
	for _, o := range ranks {
		if o.Totals != nil {
			active = append(active, float64(o.Totals.ActiveCores))
			waitPct = append(waitPct, o.Totals.WaitPct)
		}
		if o.CriticalPath != nil {
			paths = append(paths, o.CriticalPath.TotalUs)
		}
		if o.Dropped > 0 {
			dropping++
		}
	}
	if k.Totals != nil && len(active) > 0 {
		if med := medianOf(active); float64(k.Totals.ActiveCores) < med {
			return SlowCause{CauseCoresNotEntered, fmt.Sprintf("%s of its cores wrote no record (%d active; the median %s: %s), and it waits %s%% of its span on their work",
				num(med-float64(k.Totals.ActiveCores)), k.Totals.ActiveCores, singular(x), num(med), f1(k.Totals.WaitPct)), "cores"}
		}
	}
	if stage.Over {
		return SlowCause{CauseStage, fmt.Sprintf("stage %s, +%s cycles (+%s%%) over its median", stage.Name,
			GroupDigits(fmt.Sprint(uint64(stage.OverCycles))), f1(stage.OverPct)), "types"}
	}
	if k.Totals != nil && len(waitPct) > 0 {
		if med := medianOf(waitPct); k.Totals.WaitPct > med+5 {
			what := "its critical path (with --plan) shows the chain"
			if p := k.CriticalPath; p != nil && len(paths) > 0 {
				what = fmt.Sprintf("its critical path is %s µs, the median %s's %s µs", f2(p.TotalUs), singular(x), f2(medianOf(paths)))
			}
			return SlowCause{CauseWaits, fmt.Sprintf("no stage over its median, but it waits %s%% of its span (the median %s: %s%%): a dependency chain holds it up; %s",
				f1(k.Totals.WaitPct), singular(x), f1(med), what), "critical-path"}
		}
	}
	if k.Dropped > 0 && 2*dropping <= len(ranks) {
		return SlowCause{CauseDropped, fmt.Sprintf("it dropped %s records (most sections none): its timeline has holes", GroupDigits(fmt.Sprint(k.Dropped))), "summary"}
	}
	return SlowCause{Kind: CauseNone}
}

// singular is "rank" or "invocation".
func singular(x *CrossRank) string {
	if x.SlowestInvocation != nil {
		return "invocation"
	}
	return "rank"
}

// medianOf returns the median of v (sorted in place).
func medianOf(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// whySlowest is the slowest section's cause when it is not a stage over
// its median (which the stage tables show) or nothing: "" otherwise.
func (r *Report) whySlowest() string {
	c := r.Cluster()
	if c == nil || c.Cause.Kind == CauseStage || c.Cause.Kind == CauseNone {
		return ""
	}
	return c.Cause.Text
}

// num is a count that may be a median of two: "6", "6.5".
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
