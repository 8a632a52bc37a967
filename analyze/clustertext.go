package analyze

import (
	"cmp"
	"io"
	"slices"
	"strconv"
)

// MaxTextSections is the number of sections (ranks, or invocations of a
// window) up to which WriteText writes every section's analysis, about
// sixty lines each. Past it the text leads with the cluster's summary
// and writes only the TextSlowest slowest sections in full: at 1,024
// ranks every section is some 70,000 lines nobody reads.
const MaxTextSections = 16

// TextSlowest is the number of sections WriteText writes in full past
// MaxTextSections: the slowest by makespan (cycles; of equal makespans,
// the lower rank first).
const TextSlowest = 3

// slowestOrder lists the indexes 0..n-1 by makespan, the longest first;
// ties keep index order (the sections' rank order).
func slowestOrder(n int, makespan func(i int) uint64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(makespan(b), makespan(a)) })
	return order
}

// topSections cuts the table of the sections' makespans (one row per
// CrossRank.Ranks) to the n slowest (0: all), in rank order, as
// topCores cuts the cores.
func (r *Report) topSections(t *table, n int) *table {
	x := r.CrossRank.Ranks
	if n <= 0 || len(t.rows) <= n {
		return t
	}
	kept := slowestOrder(len(x), func(i int) uint64 { return x[i].MakespanCycles })[:n]
	slices.Sort(kept)
	rows := make([][]string, 0, n)
	for _, i := range kept {
		rows = append(rows, t.rows[i])
	}
	c := *t
	c.rows = rows
	c.omitted, c.omittedWhich = len(t.rows)-n, r.noun()+" with a shorter makespan"
	return &c
}

// noun is what the sections are: "ranks", or "invocations" in a window.
func (r *Report) noun() string {
	if r.invocations() {
		return "invocations"
	}
	return "ranks"
}

// ordinal is "slowest" for 1, "2nd slowest" for 2, and so on.
func ordinal(i int) string {
	if i == 1 {
		return "slowest"
	}
	suffix := "th"
	switch {
	case i%100/10 == 1:
	case i%10 == 1:
		suffix = "st"
	case i%10 == 2:
		suffix = "nd"
	case i%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(i) + suffix + " slowest"
}

// writeClusterText is WriteText past MaxTextSections: the cluster's
// summary, the tables across sections, then the slowest sections'
// analyses, each heading saying which slowest it is.
func (r *Report) writeClusterText(w io.Writer, top int) error {
	tw := &textWriter{w: w}
	c := r.Cluster()
	n := GroupDigits(strconv.Itoa(len(r.Ranks)))
	tw.printf("== %s %s: summary ==\n", n, c.Noun)
	c.writeText(tw, r.CrossRank, top)
	r.writeCrossText(tw, top, true)
	shown := min(TextSlowest, len(r.Ranks))
	tw.printf("\nThe analyses of the %d slowest of the %s %s by makespan follow; --per-rank writes every one's.\n", shown, n, c.Noun)
	for i, at := range slowestOrder(len(r.Ranks), func(i int) uint64 { return r.Ranks[i].MakespanCycles })[:shown] {
		tw.printf("\n")
		r.Ranks[at].writeSections(tw, top, false, ordinal(i+1)+" of "+n+" "+c.Noun+" by makespan")
	}
	return tw.err
}

// writeText writes the cluster's summary as lines of text: the slowest
// section and where it is slowest, the spread (x's), the slow sections, the
// drops, then the notes and warnings, each once with the sections that
// have it (top of each, 0: all).
func (c *Cluster) writeText(tw *textWriter, x *CrossRank, top int) {
	if k := c.Slowest; k != nil {
		tw.printf("slowest: %s (%s), makespan %d cycles (%s µs), %s%% against the median %s µs\n",
			sectionOf(k), k.Capture, k.MakespanCycles, k.us(k.MakespanCycles), signedPct(c.SlowestOverPct), f2(c.MedianMakespanUs))
		switch s := c.Stage; {
		case s.Name == "":
			tw.printf("its stages: none (no compute record)\n")
		case !s.Over:
			tw.printf("its busiest stage: %s (over its median across %s in none)\n", s.Name, c.Noun)
		default:
			tw.printf("where it is slowest: stage %s, +%s cycles (+%s%%) over its median across %s\n",
				s.Name, GroupDigits(strconv.FormatUint(uint64(s.OverCycles), 10)), f1(s.OverPct), c.Noun)
		}
		if cs := c.Cause; cs.Kind != CauseStage && cs.Kind != CauseNone {
			tw.printf("why: %s\n", cs.Text)
		}
	}
	if x != nil {
		tw.printf("spread: %d cycles (%s%%) from the fastest to the slowest", x.SpreadCycles, f1(x.SpreadPct))
		if len(c.Slow) == 0 {
			tw.printf("; no slow %s (none more than 5%% over the median makespan)", c.Noun[:len(c.Noun)-1])
		}
		tw.printf("\n")
	}
	for _, s := range []string{x.StoppedFinding(), c.SlowFinding(), c.DropFinding()} {
		if s != "" {
			tw.printf("%s\n", s)
		}
	}
	for _, g := range []struct {
		what  string
		lines []Shared
	}{{"warning", c.Warnings}, {"note", c.Notes}} {
		for i, l := range g.lines {
			if top > 0 && i == top {
				tw.printf("... %d more %ss (--top 0 shows all)\n", len(g.lines)-top, g.what)
				break
			}
			who := SectionList(l.Sections, MaxNamed)
			if len(l.Sections) == c.Sections {
				who = "all " + GroupDigits(strconv.Itoa(c.Sections)) + " " + c.Noun
			}
			tw.printf("%s (%s): %s\n", g.what, who, l.Text)
		}
	}
}

// signedPct is a percentage with its sign: "+3.2", "-0.5".
func signedPct(v float64) string {
	s := f1(v)
	if v >= 0 && s[0] != '-' {
		s = "+" + s
	}
	return s
}
