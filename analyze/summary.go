package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A cluster's summary is what a report of several sections (ranks, or
// invocations of a window) says first: the slowest section and where it
// is slowest, the spread, the slow ones, who dropped records, and the
// notes and warnings the sections share, each said once with the
// sections it concerns. `cycleabi report` draws it as its page's cards
// and findings; WriteText prints it above MaxTextSections.

// MaxNamed bounds the sections a summary's sentence names one by one
// ("the most: rank 3 (9,000), …"); the rest are counted.
const MaxNamed = 6

// Cluster is the summary of a report of several sections.
type Cluster struct {
	// Noun is what the sections are: "ranks", or "invocations".
	Noun     string
	Sections int
	// Slowest is the section CrossRank names slowest; MedianMakespanUs
	// the median of the sections' makespans in µs, and SlowestOverPct
	// the slowest's makespan in µs against it, in percent (0 when the
	// median is 0).
	Slowest          *Rank
	MedianMakespanUs float64
	SlowestOverPct   float64
	// Stage is where the slowest section is furthest over the stage's
	// median across sections.
	Stage SlowestStage
	// Cause is why the slowest section is slow (SlowCause).
	Cause SlowCause
	// Slow are CrossRank.SlowRanks, the slowest (in µs) first.
	Slow []Section
	// Dropping are the sections that dropped records, the most first
	// (rank order on a tie); Dropped their records in all.
	Dropping []*Rank
	Dropped  uint64
	// Notes and Warnings are the sections' notes and warnings, each
	// distinct text once, in the order they first appear.
	Notes, Warnings []Shared
}

// SlowestStage is the stage in which the slowest section is furthest over
// the stage's median compute cycles across sections. When it is over in
// none, Over is false and Name is its busiest stage ("" when it has no
// compute record).
type SlowestStage struct {
	Name       string
	Over       bool
	OverCycles float64
	OverPct    float64
}

// Shared is a note or warning and the sections that have it, in rank
// order.
type Shared struct {
	Text     string
	Sections []*Rank
}

// Cluster summarizes a report of several sections; nil for one.
func (r *Report) Cluster() *Cluster {
	x := r.CrossRank
	if x == nil {
		return nil
	}
	c := &Cluster{Noun: "ranks", Sections: len(r.Ranks), MedianMakespanUs: x.MedianMakespanUs()}
	if r.invocations() {
		c.Noun = "invocations"
	}
	for _, k := range r.Ranks {
		if k.Rank == x.SlowestRank && SameInvocation(k.Invocation, x.SlowestInvocation) {
			c.Slowest = k
			break
		}
	}
	if c.Slowest != nil {
		if c.MedianMakespanUs > 0 {
			c.SlowestOverPct = 100 * (c.Slowest.MakespanUs/c.MedianMakespanUs - 1)
		}
		c.Stage = slowestStage(c.Slowest, x)
		c.Cause = slowCause(c.Slowest, x, r.Ranks, c.Stage)
	}
	c.Slow = slowestFirst(x)
	for _, k := range r.Ranks {
		if k.Dropped > 0 {
			c.Dropping = append(c.Dropping, k)
			c.Dropped += k.Dropped
		}
	}
	slices.SortStableFunc(c.Dropping, func(a, b *Rank) int { return cmp.Compare(b.Dropped, a.Dropped) })
	c.Notes = SharedLines(r.Ranks, func(k *Rank) []string { return k.Notes })
	c.Warnings = SharedLines(r.Ranks, func(k *Rank) []string { return k.Warnings })
	return c
}

// MedianMakespanUs is the median of the sections' makespans in µs (of
// their own µs: ranks may count at different frequencies); 0 for none.
func (x *CrossRank) MedianMakespanUs() float64 {
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

// SameInvocation tells whether a section's invocation is id (both none,
// or the same id).
func SameInvocation(v *Invocation, id *int64) bool {
	if v == nil || id == nil {
		return v == nil && id == nil
	}
	return v.ID == *id
}

func slowestStage(k *Rank, x *CrossRank) SlowestStage {
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
			return SlowestStage{}
		}
		return SlowestStage{Name: k.Stages[0].Name}
	}
	return SlowestStage{Name: best, Over: true, OverCycles: bestOver, OverPct: 100 * bestOver / med[best]}
}

// slowestFirst is x.SlowRanks, the slowest makespan in µs first.
func slowestFirst(x *CrossRank) []Section {
	us := map[Section]float64{}
	for _, r := range x.Ranks {
		s := Section{Rank: r.Rank}
		if r.Invocation != nil {
			id := r.Invocation.ID
			s.Invocation = &id
		}
		us[s] = r.MakespanUs
	}
	slow := slices.Clone(x.SlowRanks)
	slices.SortStableFunc(slow, func(a, b Section) int { return cmp.Compare(us[b], us[a]) })
	return slow
}

// SharedLines gathers the lines of each section (its notes, or its
// warnings): each distinct text once, in the order of first appearance,
// with the sections that have it.
func SharedLines(ranks []*Rank, lines func(*Rank) []string) []Shared {
	var out []Shared
	at := map[string]int{}
	for _, k := range ranks {
		for _, s := range lines(k) {
			i, ok := at[s]
			if !ok {
				i = len(out)
				at[s] = i
				out = append(out, Shared{Text: s})
			}
			if n := len(out[i].Sections); n == 0 || out[i].Sections[n-1] != k {
				out[i].Sections = append(out[i].Sections, k)
			}
		}
	}
	return out
}

// SlowFinding names the slow sections, slowest first; "" when none is.
func (c *Cluster) SlowFinding() string {
	if len(c.Slow) == 0 {
		return ""
	}
	var names []string
	for i, s := range c.Slow {
		if i == MaxNamed {
			names = append(names, fmt.Sprintf("and %d more", len(c.Slow)-i))
			break
		}
		names = append(names, s.String())
	}
	return fmt.Sprintf("%d of %d ranks are slow (more than 5 %% over the median makespan), slowest first: %s.",
		len(c.Slow), c.Sections, strings.Join(names, ", "))
}

// DropFinding says which sections dropped records: once when every one
// dropped as many, else the ones that dropped most; "" when none did.
func (c *Cluster) DropFinding() string {
	d := c.Dropping
	if len(d) == 0 {
		return ""
	}
	gu := func(v uint64) string { return GroupDigits(strconv.FormatUint(v, 10)) }
	if len(d) == c.Sections && slices.IndexFunc(d, func(k *Rank) bool { return k.Dropped != d[0].Dropped }) < 0 {
		return fmt.Sprintf("Each of the %s %s dropped %s records (%s in all): the buffers were too small, the timelines have holes.",
			gu(uint64(c.Sections)), c.Noun, gu(d[0].Dropped), gu(c.Dropped))
	}
	var most []string
	for i, k := range d {
		if i == MaxNamed {
			most = append(most, fmt.Sprintf("and %d more", len(d)-i))
			break
		}
		most = append(most, fmt.Sprintf("%s (%s)", sectionOf(k), gu(k.Dropped)))
	}
	return fmt.Sprintf("%s of %s %s dropped records, %s in all: the buffers were too small, the timelines have holes. The most: %s.",
		gu(uint64(len(d))), gu(uint64(c.Sections)), c.Noun, gu(c.Dropped), strings.Join(most, ", "))
}

// SectionList names sections: RankList of their ranks, or in a window
// each by rank and invocation ("rank 0 invocation 1, …, and N more").
func SectionList(ks []*Rank, most int) string {
	var ranks []uint32
	var names []string
	window := false
	for _, k := range ks {
		ranks = append(ranks, k.Rank)
		names = append(names, sectionOf(k).String())
		window = window || k.Invocation != nil
	}
	if !window {
		return RankList(ranks, most)
	}
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return strings.Join(names, ", ")
}

// RankList names ranks in rank order, runs of consecutive ones as a range:
// "ranks 3, 7–9"; past most ranks, "and N more".
func RankList(ranks []uint32, most int) string {
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

// GroupDigits puts separators between groups of three digits of a
// formatted number's integer part ("1234567.5" → "1,234,567.5"); up to
// four digits stay as they are.
func GroupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 4 {
		return sign + intPart + frac
	}
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String() + frac
}
