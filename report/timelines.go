package report

import "github.com/megakernel/cycleabi/analyze"

// detail picks the ranks that get the page's detailed sections, taking
// the ranks one after another: every rank when there are at most
// MaxDetailedRanks, else the slowest (of equals, the first in rank order,
// analyze.CompareSections, whatever order the ranks come in). The page and
// Timelines both ask it, so what is kept is what is drawn.
type detail struct {
	n       int           // ranks seen
	slow    int           // the slowest so far
	slowest *analyze.Rank // and its analysis
	// total is the number of ranks to come in all when it is known
	// before the first (0 when not): beyond MaxDetailedRanks, only the
	// slowest can be detailed from the first rank on.
	total int
}

// few tells whether every rank seen can still be detailed.
func (d *detail) few() bool { return d.n <= MaxDetailedRanks && d.total <= MaxDetailedRanks }

// may tells whether the next rank, k, can still be detailed when every
// rank has been seen.
func (d *detail) may(k *analyze.Rank) bool {
	return (d.n < MaxDetailedRanks && d.total <= MaxDetailedRanks) || d.slower(k)
}

// slower tells whether k takes the place of the slowest so far: a longer
// makespan, or an equal one at a lower rank.
func (d *detail) slower(k *analyze.Rank) bool {
	if d.slowest == nil || k.MakespanCycles != d.slowest.MakespanCycles {
		return d.slowest == nil || k.MakespanCycles > d.slowest.MakespanCycles
	}
	return analyze.CompareSections(k, d.slowest) < 0
}

// add takes the next rank.
func (d *detail) add(k *analyze.Rank) {
	if d.slower(k) {
		d.slow, d.slowest = d.n, k
	}
	d.n++
}

// kept tells whether rank i can still be detailed, after the ranks seen.
func (d *detail) kept(i int) bool { return d.few() || i == d.slow }

// picked lists the detailed ranks, once every rank has been seen.
func (d *detail) picked() []int {
	var idx []int
	for i := range d.n {
		if d.kept(i) {
			idx = append(idx, i)
		}
	}
	return idx
}

// Timelines gathers the ranks' timelines as the ranks are analyzed, one
// after another, and keeps only those the page can draw (the detailed
// ranks): at most MaxDetailedRanks+1 timelines are held at once, two when
// Expect was told there are more ranks than MaxDetailedRanks, however
// many ranks there are; a rank that cannot be drawn needs none made.
type Timelines struct {
	d     detail
	list  []*analyze.Timeline
	ranks []*analyze.Rank // list[i] is ranks[i]'s
	held  []int           // the entries of list that are not nil
}

// Expect says, before the first rank is added, how many ranks there
// will be; without it, the first MaxDetailedRanks are kept until a later
// one shows there are more.
func (s *Timelines) Expect(ranks int) { s.d.total = ranks }

// Wants tells whether the page may draw the next rank's timeline, r's;
// when it does not, Add takes a nil timeline for r.
func (s *Timelines) Wants(r *analyze.Rank) bool { return s.d.may(r) }

// Add takes the next rank, r, and its timeline (nil when not wanted), and
// lets go of those that can no longer be drawn.
func (s *Timelines) Add(r *analyze.Rank, tl *analyze.Timeline) {
	if !s.d.may(r) {
		tl = nil
	}
	s.d.add(r)
	s.ranks = append(s.ranks, r)
	if tl != nil {
		s.held = append(s.held, len(s.list))
	}
	s.list = append(s.list, tl)
	held := s.held[:0]
	for _, i := range s.held {
		if s.d.kept(i) {
			held = append(held, i)
		} else {
			s.list[i] = nil
		}
	}
	s.held = held
}

// List is Input.Timelines for rep, the report of the ranks added (which
// analyze.NewReport put in rank order): rep.Ranks[i]'s timeline at i, nil
// for the ranks the page does not draw.
func (s *Timelines) List(rep *analyze.Report) []*analyze.Timeline {
	at := make(map[*analyze.Rank]*analyze.Timeline, len(s.held))
	for _, i := range s.held {
		at[s.ranks[i]] = s.list[i]
	}
	list := make([]*analyze.Timeline, len(rep.Ranks))
	for i, k := range rep.Ranks {
		list[i] = at[k]
	}
	return list
}
