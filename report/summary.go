package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/validate"
)

// A cluster's summary says what its ranks share once, with the number of
// ranks, names the ranks that differ, and leaves each rank's own findings
// one click away (a <details> list): at 1,024 ranks a banner a rank would
// fill forty screens before the first chart.

// finding is one line of a cluster's summary.
type finding struct {
	Text  string
	Class string // "bad" for what needs a look
}

// maxNamed bounds the ranks a finding names one by one.
const maxNamed = analyze.MaxNamed

// foldRows is the number of rows past which the summary's tables of one
// row a rank (the captures, the makespans) are folded (<details>).
const foldRows = 24

// rankFindings is what the summary of several ranks collects, rank by
// rank: each rank's validate result and its own sentence.
type rankFindings struct {
	ranks   []*analyze.Rank
	checks  []*validate.Result // nil: not validated
	perRank []string           // each rank's own findings, "" when none
}

func (f *rankFindings) add(k *analyze.Rank, chk *validate.Result) {
	f.ranks = append(f.ranks, k)
	f.checks = append(f.checks, chk)
	s := ""
	switch {
	case chk != nil && (chk.Errors() > 0 || chk.Warnings() > 0):
		s = checkBanner(k, chk)
	case k.Dropped > 0:
		s = fmt.Sprintf("%s (%s): %s records were dropped: the buffer was too small, the timeline has holes.", upper(sectionLabel(k)), k.Capture, gu(k.Dropped))
	}
	f.perRank = append(f.perRank, s)
}

// droppingRanks counts the ranks that dropped records.
func (f *rankFindings) droppingRanks() int {
	n := 0
	for _, k := range f.ranks {
		if k.Dropped > 0 {
			n++
		}
	}
	return n
}

// checkText is what validate found, with grouped digits: "0 errors, 10,174
// warnings (dropped-records 6, …)".
func checkText(chk *validate.Result) string {
	s := fmt.Sprintf("%s errors, %s warnings", gu(uint64(chk.Errors())), gu(uint64(chk.Warnings())))
	if len(chk.Counts) > 0 {
		var parts []string
		for _, c := range chk.Counts {
			parts = append(parts, fmt.Sprintf("%s %s", c.Code, gu(uint64(c.Count))))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// sectionLabel names a section: "rank 3", "rank 3 invocation 1".
func sectionLabel(k *analyze.Rank) string { return "rank " + sectionName(k) }

// noun is what the sections are: "ranks", or "invocations" in a window.
func (f *rankFindings) noun() string {
	for _, k := range f.ranks {
		if k.Invocation != nil {
			return "invocations"
		}
	}
	return "ranks"
}

// checkFindings says what validate found across the ranks: what all (or
// most) share once, with the count of ranks, then the ranks that differ,
// those with errors first.
func (f *rankFindings) checkFindings() []finding {
	type group struct {
		text   string
		errors int
		ranks  []*analyze.Rank
		bad    bool
	}
	var groups []*group
	by := map[string]*group{}
	validated := 0
	for i, chk := range f.checks {
		if chk == nil {
			continue
		}
		validated++
		t := checkText(chk)
		g := by[t]
		if g == nil {
			g = &group{text: t, errors: chk.Errors(), bad: chk.Errors() > 0 || chk.Warnings() > 0}
			by[t] = g
			groups = append(groups, g)
		}
		g.ranks = append(g.ranks, f.ranks[i])
	}
	if validated == 0 {
		return nil
	}
	// The largest group first (of equals, the one of the lowest rank),
	// then those with errors, then the larger.
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(len(b.ranks), len(a.ranks)) })
	rest := groups[1:]
	slices.SortStableFunc(rest, func(a, b *group) int {
		if c := cmp.Compare(b.errors, a.errors); c != 0 {
			return c
		}
		return cmp.Compare(len(b.ranks), len(a.ranks))
	})
	n, noun := len(f.ranks), f.noun()
	cls := func(g *group) string {
		if g.bad {
			return "bad"
		}
		return ""
	}
	var out []finding
	first := groups[0]
	switch {
	case len(first.ranks) == n && !first.bad:
		out = append(out, finding{Text: fmt.Sprintf("cycleabi validate finds nothing in any of the %s %s.", gu(uint64(n)), noun)})
	case len(first.ranks) == n:
		out = append(out, finding{Text: fmt.Sprintf("All %s %s: cycleabi validate reports, for each, %s.", gu(uint64(n)), noun, first.text), Class: "bad"})
	case 2*len(first.ranks) > n:
		out = append(out, finding{Text: fmt.Sprintf("%s of %s %s: cycleabi validate reports, for each, %s.", gu(uint64(len(first.ranks))), gu(uint64(n)), noun, first.text), Class: cls(first)})
	default:
		rest = groups
	}
	for i, g := range rest {
		if i == maxNamed {
			var more int
			for _, g := range rest[i:] {
				more += len(g.ranks)
			}
			out = append(out, finding{Text: fmt.Sprintf("%d more %s with other findings: each one's are listed below.", more, noun), Class: "bad"})
			break
		}
		out = append(out, finding{Text: fmt.Sprintf("%s: %s.", upper(analyze.SectionList(g.ranks, maxNamed)), g.text), Class: cls(g)})
	}
	if validated < n {
		out = append(out, finding{Text: fmt.Sprintf("%d of %d %s were not validated.", n-validated, n, noun)})
	}
	return out
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clusterCards are the cluster's answer, the first thing on the page: the
// slowest rank and where it loses most, the spread, the slow ranks.
func clusterCards(c *analyze.Cluster, x *analyze.CrossRank) []card {
	var slowUs float64
	if c.Slowest != nil {
		slowUs = c.Slowest.MakespanUs
	}
	name := fmt.Sprintf("rank %d", x.SlowestRank)
	if x.SlowestInvocation != nil {
		name += fmt.Sprintf(" invocation %d", *x.SlowestInvocation)
	}
	cards := []card{{Label: "slowest rank", Value: name,
		Sub: fmt.Sprintf("%s µs, %s %% against the median %s µs", fp(slowUs, 1), signed(c.SlowestOverPct, 1), fp(c.MedianMakespanUs, 1))}}
	if c.Slowest != nil {
		cards = append(cards, causeCard(c))
	}
	slowSub := "no slow rank"
	if len(x.SlowRanks) > 0 {
		slowSub = fmt.Sprintf("%d slow %s", len(x.SlowRanks), plural(len(x.SlowRanks), "rank", "ranks"))
	}
	sc := card{Label: "rank spread", Value: fp(x.SpreadPct, 1) + " %", Sub: gu(x.SpreadCycles) + " cycles · " + slowSub}
	if len(x.SlowRanks) > 0 {
		sc.Class = "bad"
	}
	return append(cards, sc)
}

// causeCard says why the slowest rank is slow, with a link to the figure
// that shows it: the stage card when a stage is the cause or nothing
// stands out.
func causeCard(c *analyze.Cluster) card {
	cs := c.Cause
	labels := map[string]string{analyze.CauseStopped: "why it is slowest: stopped", analyze.CauseCoresNotEntered: "why it is slowest: cores not entered",
		analyze.CauseWaits: "why it is slowest: waits", analyze.CauseDropped: "why it is slowest: dropped records"}
	label, ok := labels[cs.Kind]
	if !ok {
		return stageCard(c.Stage)
	}
	return card{Label: label, Value: "see " + figureNames[cs.Figure], Sub: clip(cs.Text, 160), Class: "bad", Href: "#" + cs.Figure}
}

// figureNames are the page's sections a cause points to.
var figureNames = map[string]string{"summary": "summary", "cores": "cores", "types": "task types", "critical-path": "critical path"}

// stageCard shows the stage in which the slowest rank is furthest over
// the stage's median across ranks (its busiest stage when it is over in
// none).
func stageCard(s analyze.SlowestStage) card {
	switch {
	case s.Name == "":
		return card{Label: "its stages", Value: "–", Sub: "no compute record"}
	case !s.Over:
		return card{Label: "its busiest stage", Value: clip(s.Name, 24), Sub: "none over its median across ranks"}
	}
	return card{Label: "where it is slowest", Value: clip(s.Name, 24),
		Sub: fmt.Sprintf("+%s cycles, +%s %% over its median", gu(uint64(s.OverCycles)), fp(s.OverPct, 1))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
