package layoutsearch

import (
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// What the search finds and how it keeps it: the candidates, the counts
// ruled out (folded into runs), the bad capacities, and the state one walk
// of the regions carries from rule to rule. rules.go's pass fills them;
// decide.go reads them. Nothing here reads the buffer or applies a rule.

// search is what the search found.
type search struct {
	cands   []*candidate
	rejects []reject
	// moreRejects counts the rejections past the ones kept.
	moreRejects int
	// problems are the bad-capacity problems of headers that would have
	// given a region's capacity, one per offset.
	problems []*Problem
	// first is the first cube slot count tried, tried how many.
	first uint32
	tried int
	// allZero: the buffer holds no live header at all.
	allZero bool
	size    uint64
}

// candidate is a layout the search found evidence for.
type candidate struct {
	cube   uint32
	caps   abi.Capacities
	layout abi.Layout
	size   uint64
	// cubeFrom is what fixed the cube slot count; from[i] where region i's
	// capacity came from.
	cubeFrom Evidence
	from     []Evidence
	// mismatches counts the live headers that do not name their own slot
	// and the candidate's capacity (and a header of a slot past the layout
	// right after it); first describes the first one.
	mismatches int
	first      string
}

func (cd *candidate) fits(size uint64) bool { return cd.mismatches == 0 && cd.size <= size }

// reject is a cube slot count (or a run of them) the search ruled out.
type reject struct {
	cube, last uint32
	r          rejection
}

// skipPastEnd applies rulePastEnd to the counts after c up to hi, when the
// regions before the one past the end have capacities that do not depend
// on the count (given, or the first region's, read where it starts
// whatever C is): every larger count starts that region later still. It
// returns the last count ruled out.
func (s *search) skipPastEnd(c uint32, hi uint64, r *rejection) uint64 {
	n := uint64(c)
	for n++; n <= hi; n++ {
		s.tried++
		s.addReject(uint32(n), r)
	}
	return n - 1
}

func (s *search) addProblem(p *Problem) {
	for _, q := range s.problems {
		if q.Off == p.Off {
			return
		}
	}
	s.problems = append(s.problems, p)
}

// addReject records why c was ruled out, folding consecutive counts ruled
// out for the same reason; past maxListed reasons it only counts.
func (s *search) addReject(c uint32, r *rejection) {
	if n := len(s.rejects); n > 0 && s.rejects[n-1].last == c-1 && s.rejects[n-1].r == *r {
		s.rejects[n-1].last = c
		return
	}
	if len(s.rejects) > maxListed {
		s.moreRejects++
		return
	}
	s.rejects = append(s.rejects, reject{cube: c, last: c, r: *r})
}

// walkState is one walk's result, reused from one cube slot count to the next.
type walkState struct {
	cube uint32
	// derived: a capacity came from where a header sits, so region starts
	// need not grow with the cube slot count.
	derived  bool
	caps     abi.Capacities
	from     []evidence
	cubeFrom evidence
	rej      rejection
}

func (w *walkState) reset(cube uint32) {
	from := w.from[:0]
	*w = walkState{cube: cube, from: from}
}

// place records a region's step in the walk: its capacity, its evidence
// (FromHost for given capacities), and, the first time one depends on the
// cube slot count, what pins the count: region 0 starts at 0 whatever the
// count is, but a later region's header, a capacity derived from where one
// sits, or the size rule depend on it.
func (w *walkState) place(i int, st step, capsGiven bool) {
	ev := st.ev
	if capsGiven {
		w.from = append(w.from, evidence{src: FromHost})
	} else {
		w.from = append(w.from, ev)
	}
	if w.cubeFrom.src == "" && (ev.src == FromSize || ev.src == FromHeaders && (i > 0 || ev.derived)) {
		w.cubeFrom = ev
		w.cubeFrom.derived = false
	}
	w.derived = w.derived || ev.derived
	w.caps.Set(regions[i].CoreType, st.capacity)
}
