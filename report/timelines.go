package report

import "github.com/megakernel/cycleabi/analyze"

// detail picks the ranks that get the page's detailed sections, taking
// the ranks one after another: every rank when there are at most
// MaxDetailedRanks, else the slowest (the first of equals). The page and
// Timelines both ask it, so what is kept is what is drawn.
type detail struct {
	n          int // ranks seen
	slow       int // the slowest so far
	slowCycles uint64
	// total is the number of ranks to come in all when it is known
	// before the first (0 when not): beyond MaxDetailedRanks, only the
	// slowest can be detailed from the first rank on.
	total int
}

// few tells whether every rank seen can still be detailed.
func (d *detail) few() bool { return d.n <= MaxDetailedRanks && d.total <= MaxDetailedRanks }

// may tells whether the next rank, of makespan cycles, can still be
// detailed when every rank has been seen.
func (d *detail) may(cycles uint64) bool {
	return (d.n < MaxDetailedRanks && d.total <= MaxDetailedRanks) || d.n == 0 || cycles > d.slowCycles
}

// add takes the next rank.
func (d *detail) add(cycles uint64) {
	if d.n == 0 || cycles > d.slowCycles {
		d.slow, d.slowCycles = d.n, cycles
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
	d    detail
	list []*analyze.Timeline
	held []int // the entries of list that are not nil
}

// Expect says, before the first rank is added, how many ranks there
// will be; without it, the first MaxDetailedRanks are kept until a later
// one shows there are more.
func (s *Timelines) Expect(ranks int) { s.d.total = ranks }

// Wants tells whether the page may draw the next rank's timeline, r's;
// when it does not, Add takes a nil timeline for r.
func (s *Timelines) Wants(r *analyze.Rank) bool { return s.d.may(r.MakespanCycles) }

// Add takes the next rank, r, and its timeline (nil when not wanted), and
// lets go of those that can no longer be drawn.
func (s *Timelines) Add(r *analyze.Rank, tl *analyze.Timeline) {
	if !s.d.may(r.MakespanCycles) {
		tl = nil
	}
	s.d.add(r.MakespanCycles)
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

// List is Input.Timelines: rank i's timeline at i, nil for the ranks the
// page does not draw.
func (s *Timelines) List() []*analyze.Timeline { return s.list }
