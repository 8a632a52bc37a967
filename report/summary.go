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

// maxNamed bounds the ranks a finding names one by one ("the most: rank
// 3 (9,000), …"); the rest are counted.
const maxNamed = 6

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

// sectionList names sections: rankList of their ranks, or in a window
// each by rank and invocation ("rank 0 invocation 1, …, and N more").
func sectionList(ks []*analyze.Rank, most int) string {
	var ranks []uint32
	var names []string
	window := false
	for _, k := range ks {
		ranks = append(ranks, k.Rank)
		names = append(names, sectionLabel(k))
		window = window || k.Invocation != nil
	}
	if !window {
		return rankList(ranks, most)
	}
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return strings.Join(names, ", ")
}

// rankList names ranks in rank order, runs of consecutive ones as a range:
// "ranks 3, 7–9"; past most ranks, "and N more".
func rankList(ranks []uint32, most int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if len(parts) == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(ranks)-i))
			break
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", ranks[i], ranks[j]))
		} else {
			parts = append(parts, fmt.Sprint(ranks[i]))
		}
		i = j + 1
	}
	if len(ranks) == 1 {
		return "rank " + parts[0]
	}
	return "ranks " + strings.Join(parts, ", ")
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
		out = append(out, finding{Text: fmt.Sprintf("%s: %s.", upper(sectionList(g.ranks, maxNamed)), g.text), Class: cls(g)})
	}
	if validated < n {
		out = append(out, finding{Text: fmt.Sprintf("%d of %d %s were not validated.", n-validated, n, noun)})
	}
	return out
}

// dropFindings says which ranks dropped records: once when every rank
// dropped as many, else the ranks that dropped most.
func (f *rankFindings) dropFindings() []finding {
	var dropping []*analyze.Rank
	var total uint64
	for _, k := range f.ranks {
		if k.Dropped > 0 {
			dropping = append(dropping, k)
			total += k.Dropped
		}
	}
	n, noun := len(f.ranks), f.noun()
	if len(dropping) == 0 {
		return nil
	}
	if len(dropping) == n && slices.IndexFunc(dropping, func(k *analyze.Rank) bool { return k.Dropped != dropping[0].Dropped }) < 0 {
		return []finding{{Text: fmt.Sprintf("Each of the %s %s dropped %s records (%s in all): the buffers were too small, the timelines have holes.",
			gu(uint64(n)), noun, gu(dropping[0].Dropped), gu(total)), Class: "bad"}}
	}
	slices.SortStableFunc(dropping, func(a, b *analyze.Rank) int { return cmp.Compare(b.Dropped, a.Dropped) })
	var most []string
	for i, k := range dropping {
		if i == maxNamed {
			most = append(most, fmt.Sprintf("and %d more", len(dropping)-i))
			break
		}
		most = append(most, fmt.Sprintf("%s (%s)", sectionLabel(k), gu(k.Dropped)))
	}
	return []finding{{Text: fmt.Sprintf("%s of %s %s dropped records, %s in all: the buffers were too small, the timelines have holes. The most: %s.",
		gu(uint64(len(dropping))), gu(uint64(n)), noun, gu(total), strings.Join(most, ", ")), Class: "bad"}}
}

// slowFindings names the slow ranks (analyze.SlowRule), slowest first.
func slowFindings(x *analyze.CrossRank) []finding {
	if x == nil || len(x.SlowRanks) == 0 {
		return nil
	}
	us := map[analyze.Section]float64{}
	for _, r := range x.Ranks {
		s := analyze.Section{Rank: r.Rank}
		if r.Invocation != nil {
			id := r.Invocation.ID
			s.Invocation = &id
		}
		us[s] = r.MakespanUs
	}
	slow := slices.Clone(x.SlowRanks)
	slices.SortStableFunc(slow, func(a, b analyze.Section) int { return cmp.Compare(us[b], us[a]) })
	var names []string
	for i, s := range slow {
		if i == maxNamed {
			names = append(names, fmt.Sprintf("and %d more", len(slow)-i))
			break
		}
		names = append(names, s.String())
	}
	return []finding{{Text: fmt.Sprintf("%d of %d ranks are slow (more than 5 %% over the median makespan), slowest first: %s.",
		len(x.SlowRanks), len(x.Ranks), strings.Join(names, ", ")), Class: "bad"}}
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clusterCards are the cluster's answer, the first thing on the page: the
// slowest rank and where it loses most, the spread, the slow ranks.
func clusterCards(rep *analyze.Report) []card {
	x := rep.CrossRank
	if x == nil {
		return nil
	}
	var slow *analyze.Rank
	for _, k := range rep.Ranks {
		if k.Rank == x.SlowestRank && sameID(k.Invocation, x.SlowestInvocation) {
			slow = k
			break
		}
	}
	median := medianUs(x)
	over := 0.0
	var slowUs float64
	if slow != nil {
		slowUs = slow.MakespanUs
	}
	if median > 0 {
		over = 100 * (slowUs/median - 1)
	}
	name := fmt.Sprintf("rank %d", x.SlowestRank)
	if x.SlowestInvocation != nil {
		name += fmt.Sprintf(" invocation %d", *x.SlowestInvocation)
	}
	cards := []card{{Label: "slowest rank", Value: name,
		Sub: fmt.Sprintf("%s µs, %s %% against the median %s µs", fp(slowUs, 1), signed(over, 1), fp(median, 1))}}
	if slow != nil {
		cards = append(cards, stageCard(slow, x))
	}
	slowSub := "no slow rank"
	if len(x.SlowRanks) > 0 {
		slowSub = fmt.Sprintf("%d slow %s", len(x.SlowRanks), plural(len(x.SlowRanks), "rank", "ranks"))
	}
	c := card{Label: "rank spread", Value: fp(x.SpreadPct, 1) + " %", Sub: gu(x.SpreadCycles) + " cycles · " + slowSub}
	if len(x.SlowRanks) > 0 {
		c.Class = "bad"
	}
	return append(cards, c)
}

// stageCard names the stage in which the slowest rank is furthest over
// the stage's median across ranks (its busiest stage when it is over in
// none).
func stageCard(k *analyze.Rank, x *analyze.CrossRank) card {
	med := map[string]float64{}
	for _, sp := range x.Stages {
		med[sp.Name] = sp.MedianCycles
	}
	best, bestOver := "", 0.0
	for _, st := range k.Stages {
		if d := float64(st.TotalCycles) - med[st.Name]; d > bestOver {
			best, bestOver = st.Name, d
		}
	}
	if best == "" {
		if len(k.Stages) == 0 {
			return card{Label: "its stages", Value: "–", Sub: "no compute record"}
		}
		return card{Label: "its busiest stage", Value: clip(k.Stages[0].Name, 24), Sub: "none over its median across ranks"}
	}
	pct := 100 * bestOver / med[best]
	return card{Label: "where it is slowest", Value: clip(best, 24),
		Sub: fmt.Sprintf("+%s cycles, +%s %% over its median", gu(uint64(bestOver)), fp(pct, 1))}
}

// sameID tells whether a section's invocation is id (both none, or the
// same id).
func sameID(v *analyze.Invocation, id *int64) bool {
	if v == nil || id == nil {
		return v == nil && id == nil
	}
	return v.ID == *id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// medianUs is the median of the ranks' makespans in µs (of their own µs:
// ranks may count at different frequencies).
func medianUs(x *analyze.CrossRank) float64 {
	us := make([]float64, len(x.Ranks))
	for i, r := range x.Ranks {
		us[i] = r.MakespanUs
	}
	slices.Sort(us)
	if len(us) == 0 {
		return 0
	}
	if len(us)%2 == 0 {
		return (us[len(us)/2-1] + us[len(us)/2]) / 2
	}
	return us[len(us)/2]
}
