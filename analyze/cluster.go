package analyze

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// SlowFactor is the slow-rank rule: a rank (or invocation) is slow when
// its makespan exceeds the median of all ranks' by more than this factor,
// and slow in a stage when its compute cycles there exceed that stage's
// median by more. It is msprof-analyze's rule for cluster step times
// ("the largest and the smallest should differ by no more than 5%"),
// measured from the median so that one slow rank does not hide another.
const SlowFactor = 1.05

// SlowRule states SlowFactor's rule in the report.
const SlowRule = "slow: more than 5% over the median of all ranks (makespan; per stage and task type, compute cycles)"

// Spread is one stage's (or task type's) compute cycles across ranks.
type Spread struct {
	Name string `json:"name"`
	// Ranks counts the ranks (sections) with compute in it.
	Ranks        int     `json:"ranks"`
	MinCycles    uint64  `json:"min_cycles"`
	MinRank      Section `json:"min_rank"`
	MedianCycles float64 `json:"median_cycles"`
	MaxCycles    uint64  `json:"max_cycles"`
	MaxRank      Section `json:"max_rank"`
	// Slow are the ranks over SlowFactor × the median, slowest first.
	Slow []Section `json:"slow"`
}

// Section names one section of a report: a rank, and its invocation in a
// window.
type Section struct {
	Rank       uint32 `json:"rank"`
	Invocation *int64 `json:"invocation_id,omitempty"`
}

// String is "rank 3" or "rank 3 invocation 2".
func (s Section) String() string {
	t := "rank " + strconv.FormatUint(uint64(s.Rank), 10)
	if s.Invocation != nil {
		t += " invocation " + strconv.FormatInt(*s.Invocation, 10)
	}
	return t
}

// CompareSections orders sections by rank, then by invocation id (a
// rank's only capture, without one, first), then by capture name: the
// order of every list of ranks in a report.
func CompareSections(a, b *Rank) int {
	if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
	switch {
	case a.Invocation == nil && b.Invocation != nil:
		return -1
	case a.Invocation != nil && b.Invocation == nil:
		return 1
	case a.Invocation != nil:
		if c := cmp.Compare(a.Invocation.ID, b.Invocation.ID); c != 0 {
			return c
		}
	}
	return strings.Compare(a.Capture, b.Capture)
}

func sectionOf(k *Rank) Section {
	s := Section{Rank: k.Rank}
	if k.Invocation != nil {
		id := k.Invocation.ID
		s.Invocation = &id
	}
	return s
}

// median returns the median of v (sorted in place): the middle value, or
// the mean of the two middle ones.
func median(v []uint64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return float64(v[n/2])
	}
	return (float64(v[n/2-1]) + float64(v[n/2])) / 2
}

// spreads compares one kind of group (stages, or task types) across
// ranks: one Spread per name, by the largest max first.
func spreads(ranks []*Rank, groups func(*Rank) []Stat) []Spread {
	type at struct {
		section Section
		cycles  uint64
	}
	by := map[string][]at{}
	var names []string
	for _, k := range ranks {
		for _, st := range groups(k) {
			if _, ok := by[st.Name]; !ok {
				names = append(names, st.Name)
			}
			by[st.Name] = append(by[st.Name], at{sectionOf(k), st.TotalCycles})
		}
	}
	out := make([]Spread, 0, len(names))
	for _, name := range names {
		v := by[name]
		s := Spread{Name: name, Ranks: len(v), MinCycles: v[0].cycles, MinRank: v[0].section, MaxCycles: v[0].cycles, MaxRank: v[0].section}
		cycles := make([]uint64, len(v))
		for i, x := range v {
			cycles[i] = x.cycles
			if x.cycles < s.MinCycles {
				s.MinCycles, s.MinRank = x.cycles, x.section
			}
			if x.cycles > s.MaxCycles {
				s.MaxCycles, s.MaxRank = x.cycles, x.section
			}
		}
		s.MedianCycles = median(cycles)
		slices.SortStableFunc(v, func(a, b at) int { return cmp.Compare(b.cycles, a.cycles) })
		for _, x := range v {
			if float64(x.cycles) <= SlowFactor*s.MedianCycles {
				break
			}
			s.Slow = append(s.Slow, x.section)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Spread) int { return cmp.Compare(b.MaxCycles, a.MaxCycles) })
	return out
}

// compareRanks fills the cross-rank comparison beyond the makespans: each
// rank's breakdown and busiest stage, each stage's and task type's spread,
// and the slow ranks by SlowRule. It keeps a summary per rank, never the
// records.
func compareRanks(x *CrossRank, ranks []*Rank) {
	x.Rule = SlowRule
	makespans := make([]uint64, len(ranks))
	for i, k := range ranks {
		makespans[i] = k.MakespanCycles
		m := &x.Ranks[i]
		if t := k.Totals; t != nil {
			m.ComputeCycles, m.WaitCycles, m.TriggerCycles, m.OtherCycles, m.IdleCycles = t.ComputeCycles, t.WaitCycles, t.TriggerCycles, t.OtherCycles, t.IdleCycles
			m.BusyPct, m.WaitPct = t.BusyPct, t.WaitPct
		}
		if len(k.Stages) > 0 {
			m.BusiestStage = k.Stages[0].Name
		}
	}
	x.MedianMakespanCycles = median(makespans)
	for i, k := range ranks {
		if float64(k.MakespanCycles) > SlowFactor*x.MedianMakespanCycles {
			x.Ranks[i].Slow = true
			x.SlowRanks = append(x.SlowRanks, sectionOf(k))
		}
	}
	x.Stages = spreads(ranks, func(k *Rank) []Stat { return k.Stages })
	x.TaskTypes = spreads(ranks, func(k *Rank) []Stat { return k.TaskTypes })
}
