package layoutsearch

import (
	"github.com/megakernel/cycleabi/gen/go/abi"
)

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

// search finds the layouts a capture's headers and size support, for the
// given cube slot count (0: not given) and capacities (nil: not given).
//
// The unknowns are the cube slot count C and one record capacity per
// region of abi.Regions() (the schema's regions, in buffer order: AIC with
// C slots, then AIV with 2C). Region i starts where region i-1 ends, and
// its slot b at start + b*stride(capacity). A header is live when its
// seven fields are not all zero.
//
// ruleCubeRange gives the counts to try. For each, walk applies the region
// rules (rules.go) to each region in order, then rulePinned; a count that
// survives is a candidate once ruleMakesLayout builds its layout, and
// ruleSlotHeaders, then (between candidates) ruleCrossCheck, count the
// headers that disagree with it. The pass runs twice at most: the second,
// only when the first found no candidate (and no bad capacity), lets
// ruleDamagedStart read past a damaged header. Resolve then takes the
// only candidate that fits, and picks among several only by a host plan.
//
// Each C costs at most one header read per region plus the shared zero
// scan; each candidate one read per slot.
func (f *finder) search(cube uint32, given *abi.Capacities) search {
	s := f.searchPass(cube, given)
	if len(s.cands) == 0 && len(s.problems) == 0 {
		f.damaged = true
		if again := f.searchPass(cube, given); len(again.cands) > 0 {
			s = again
		}
		f.damaged = false
	}
	return s
}

// ruleCubeRange is the cube slot counts the search tries: the given one
// only, or from MinCubeSlots up to the smaller of MaxCubeSlots and
// the most whose slot headers alone the buffer holds.
func (f *finder) ruleCubeRange(cube uint32) (lo, hi uint64) {
	if cube != 0 {
		return uint64(cube), uint64(cube)
	}
	perCube := uint64(0)
	for _, r := range regions {
		perCube += uint64(r.SlotsPerCubeSlot) * abi.CoreHeaderSize
	}
	return uint64(abi.MinCubeSlots), min(uint64(MaxCubeSlots), f.size/perCube)
}

// searchPass is one pass of the search over the cube slot counts: the
// driver of the rules.
func (f *finder) searchPass(cube uint32, given *abi.Capacities) search {
	s := search{size: f.size}
	lo, hi := f.ruleCubeRange(cube)
	s.first = uint32(lo)
	var w walkState
	for c := lo; c <= hi; c++ {
		s.tried++
		w.reset(uint32(c))
		if p := f.walk(&w, cube != 0, given); p != nil {
			s.addProblem(p)
			continue
		}
		if w.rej.kind != 0 {
			s.addReject(uint32(c), &w.rej)
			if w.rej.kind == rPastEnd && !w.derived && (given != nil || w.rej.region <= 1) {
				c = s.skipPastEnd(uint32(c), hi, &w.rej)
			}
			continue
		}
		cd, rej := w.ruleMakesLayout(f)
		if rej.kind != 0 {
			s.addReject(uint32(c), &rej)
			continue
		}
		if cube != 0 {
			cd.cubeFrom = Evidence{Source: FromHost}
		}
		f.ruleSlotHeaders(cd)
		s.cands = append(s.cands, cd)
	}
	if len(s.cands) > 1 {
		f.ruleCrossCheck(s.cands)
	}
	s.allZero = f.allZero()
	return s
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

// ruleMakesLayout makes the walk's result a candidate, or rules the count
// out when its capacities make no layout (abi.NewLayout refuses them).
// The layout is built here, once per candidate.
func (w *walkState) ruleMakesLayout(f *finder) (*candidate, rejection) {
	l, err := abi.NewLayout(w.cube, w.caps)
	if err != nil {
		return nil, rejection{kind: rNotLayout}
	}
	cd := &candidate{cube: w.cube, caps: w.caps, layout: l, size: l.Size(), cubeFrom: w.cubeFrom.public(f), from: make([]Evidence, len(w.from))}
	for i, e := range w.from {
		cd.from[i] = e.public(f)
	}
	return cd, rejection{}
}

// walk applies the region rules to each region in buffer order for the
// cube slot count w.cube (region picks the rule), then rulePinned: w
// holds the candidate's capacities and evidence, or w.rej why there is
// none; a bad-capacity problem stops it.
func (f *finder) walk(w *walkState, cubeGiven bool, given *abi.Capacities) *Problem {
	q := regionQuery{cube: w.cube, cubeGiven: cubeGiven, given: given}
	for i, reg := range regions {
		q.i, q.t, q.n = i, reg.CoreType, uint64(reg.SlotsPerCubeSlot)*uint64(w.cube)
		st := f.region(&q)
		switch {
		case st.problem != nil:
			return st.problem
		case st.rej.kind != 0:
			w.rej = st.rej
			return nil
		}
		w.place(i, st, given != nil)
		q.start += q.n * abi.SlotStride(st.capacity)
	}
	w.cubeFrom, w.rej = f.rulePinned(w, cubeGiven, given, q.start)
	return nil
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
