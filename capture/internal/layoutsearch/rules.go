package layoutsearch

import (
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The rules of the layout search, in the order they apply (docs/layout.md
// states them in the same order, by these names), and the pass that
// applies them over the cube slot counts (search, searchPass, walk),
// reading the buffer through evidence.go and keeping what it finds in
// search.go's types. walk applies the region
// rules to each region in turn for one cube slot count, region picking
// the one whose case the header where the region starts is; each
// concludes with a step: the region's capacity and the evidence for it,
// the rejection that rules the count out, or the bad-capacity problem that
// stops it. rulePinned then needs something found to depend on the count,
// and ruleSlotHeaders and ruleCrossCheck hold each candidate to the
// headers. gen/py's find_layout has the same rules by the same names;
// words.go words each rejection.

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

// regionQuery is what a region rule looks at: region i of a walk of cube
// cube slots, starting at buffer offset start.
type regionQuery struct {
	i         int
	t         abi.CoreType
	start     uint64 // buffer offset of the region's slot 0
	n         uint64 // the region's slot count
	cube      uint32
	cubeGiven bool
	given     *abi.Capacities
}

// step is a region rule's conclusion: capacity and ev, or rej (kind not
// 0), or problem.
type step struct {
	capacity uint32
	// ev is where the capacity came from; a zero ev (given capacities and
	// nothing live from the region on) is no evidence.
	ev      evidence
	rej     rejection
	problem *Problem
}

// reason is why a rule rules a cube slot count out.
type reason uint8

// The reasons a cube slot count is ruled out.
const (
	_            reason = iota
	rPastEnd            // the region would start past the end of the buffer
	rWrongStart         // the header where the region starts names another slot
	rBudget             // no live header within the scan budget
	rZeroMiddle         // every header from a region that is not the last on is zero
	rNoSizeFit          // an all-zero last region whose capacity fits no exact size
	rBadCapacity        // the first live header after an unused one states no capacity a layout has
	rMisplaced          // the first live header after an unused one is not where the layout puts it
	rNoDerived          // no capacity of an all-zero region puts the next region's header there
	rOtherRegion        // the first live header after an unused one names neither this region nor the next
	rNotLayout          // the capacities make no layout
	rUnpinned           // nothing found depends on the cube slot count
)

// rejection is why a walk ruled its cube slot count out.
type rejection struct {
	kind   reason
	region int
	at     uint64 // buffer offset of the header concerned
	h      abi.CoreHeader
}

func (q *regionQuery) reject(kind reason, at uint64, h abi.CoreHeader) step {
	return step{rej: rejection{kind: kind, region: q.i, at: at, h: h}}
}

// region applies to one region the rule whose case it is, by what the
// header where the region starts holds.
func (f *finder) region(q *regionQuery) step {
	if q.start+abi.CoreHeaderSize > f.size {
		return q.rulePastEnd()
	}
	h := f.header(q.start)
	switch {
	case h.IsZero():
		return f.ruleUnusedStart(q)
	case h.CoreType == q.t && h.BlockID == 0 || q.i == 0 || q.cubeGiven:
		return f.ruleLiveStart(q, h)
	}
	return f.ruleDamagedStart(q, h)
}

// rulePastEnd: a region that would start past the end of the buffer rules
// the count out (and, unless a capacity before it depends on the count,
// every larger count: searchPass skips them).
func (q *regionQuery) rulePastEnd() step { return q.reject(rPastEnd, 0, abi.CoreHeader{}) }

// ruleLiveStart: a live header where the region starts gives the region's
// capacity (the given one when the request gives capacities). A capacity
// no layout has is a bad-capacity problem at that header. The header
// names the region's slot 0, or the region's start does not depend on the
// count (the first region, or a given count): then a header naming another
// slot is read all the same, and ruleSlotHeaders counts it.
func (f *finder) ruleLiveStart(q *regionQuery, h abi.CoreHeader) step {
	st := step{ev: evidence{src: FromHeaders, t: q.t, off: q.start}}
	if q.given != nil {
		st.capacity = q.given.For(q.t)
		return st
	}
	if p := f.badCapacity(h, abi.Slot{CoreType: q.t}, q.start); p != nil {
		return step{problem: p}
	}
	st.capacity = h.RecordCapacity
	return st
}

// ruleDamagedStart: a live header where a later region starts that names
// another slot rules the count out; in the second pass (finder.damaged),
// past the records it counts, the first live header may still place the
// region (pastDamaged), and ruleSlotHeaders then counts the damaged
// header against the candidate.
func (f *finder) ruleDamagedStart(q *regionQuery, h abi.CoreHeader) step {
	if f.damaged {
		if k, at, ok := f.pastDamaged(q.start, q.n, h, q.given, q.t); ok {
			return step{capacity: k, ev: evidence{src: FromHeaders, t: q.t, block: f.header(at).BlockID, off: at}}
		}
	}
	return q.reject(rWrongStart, q.start, h)
}

// pastDamaged handles a region whose slot-0 header at start names another
// slot: past the records that header counts, the first live header must
// name a later slot b of the same region with an aligned capacity K, at
// start + b*stride(K). It returns K (or the given capacity) and where that
// header is.
func (f *finder) pastDamaged(start, n uint64, h abi.CoreHeader, given *abi.Capacities, t abi.CoreType) (uint32, uint64, bool) {
	skip := start + abi.CoreHeaderSize + uint64(h.RecordCount)*abi.ProfileRecordSize
	skip = (skip + abi.CoreHeaderSize - 1) / abi.CoreHeaderSize * abi.CoreHeaderSize
	if skip+abi.CoreHeaderSize > f.size {
		return 0, 0, false
	}
	at, hx, st := f.firstLive(skip)
	if st != liveFound || hx.CoreType != t || hx.BlockID == 0 || uint64(hx.BlockID) >= n {
		return 0, 0, false
	}
	k := hx.RecordCapacity
	if given != nil {
		k = given.For(t)
	} else if abi.CheckCapacity(uint64(k)) != nil {
		return 0, 0, false
	}
	if start+uint64(hx.BlockID)*abi.SlotStride(k) != at {
		return 0, 0, false
	}
	return k, at, true
}

// ruleUnusedStart: where the region starts the header is zero (the core
// never ran), so the first live header after it places the region: one
// of the region itself (ruleSameRegion), of the next region
// (ruleNextRegion), or, with given capacities, of a later one
// (ruleLaterRegion). With none up to the end of the buffer, ruleZeroTail
// decides. Past the zero scan's budget, or a live header that states a
// capacity no layout has or names another region, rules the count out.
func (f *finder) ruleUnusedStart(q *regionQuery) step {
	at, h, st := f.firstLive(q.start + abi.CoreHeaderSize)
	switch st {
	case liveBudget:
		return q.reject(rBudget, 0, abi.CoreHeader{})
	case liveNone:
		return f.ruleZeroTail(q)
	}
	j := regionIndex(h.CoreType)
	k := h.RecordCapacity
	if q.given != nil && j >= 0 {
		k = q.given.For(h.CoreType)
	} else if abi.CheckCapacity(uint64(k)) != nil {
		return q.reject(rBadCapacity, at, h)
	}
	switch {
	case j == q.i:
		return q.ruleSameRegion(at, h, k)
	case j == q.i+1:
		return q.ruleNextRegion(at, h, k)
	case q.given != nil && j > q.i+1:
		return q.ruleLaterRegion(at, h, k, j)
	}
	return q.reject(rOtherRegion, at, h)
}

// ruleSameRegion: the first live header after an unused slot 0 names slot
// b of the same region with capacity k (the given one when given); it
// must sit at start + b*stride(k), and k is the capacity.
func (q *regionQuery) ruleSameRegion(at uint64, h abi.CoreHeader, k uint32) step {
	if h.BlockID == 0 || uint64(h.BlockID) >= q.n || q.start+uint64(h.BlockID)*abi.SlotStride(k) != at {
		return q.reject(rMisplaced, at, h)
	}
	return step{capacity: k, ev: evidence{src: FromHeaders, t: h.CoreType, block: h.BlockID, off: at}}
}

// ruleNextRegion: the first live header after an unused slot 0 names slot
// b of the next region with capacity k, so every header of this region is
// zero; its capacity is the one whose stride puts that header where it
// is: stride = (at - b*stride(k) - start) / (slots of the region), a whole
// stride of an aligned capacity (with given capacities, the given stride
// must put it there). The capacity is derived: region starts after it no
// longer grow with the count.
func (q *regionQuery) ruleNextRegion(at uint64, h abi.CoreHeader, k uint32) step {
	back := uint64(h.BlockID) * abi.SlotStride(k)
	next := uint64(regions[q.i+1].SlotsPerCubeSlot) * uint64(q.cube)
	span := at - q.start // at > start
	if uint64(h.BlockID) >= next || back > span {
		return q.reject(rMisplaced, at, h)
	}
	var v uint32
	var ok bool
	if q.given != nil {
		v = q.given.For(q.t)
		ok = span-back == q.n*abi.SlotStride(v)
	} else if stride, exact := exactStride(span-back, q.n); exact {
		v, ok = capacityOfStride(stride)
	}
	if !ok {
		return q.reject(rNoDerived, at, h)
	}
	return step{capacity: v, ev: evidence{src: FromHeaders, t: h.CoreType, block: h.BlockID, off: at, derived: true}}
}

// ruleLaterRegion: with given capacities, the first live header after an
// unused slot 0 may name slot b of any later region j (every region
// between is all zero); it must sit where the given strides of the
// regions before j put it.
func (q *regionQuery) ruleLaterRegion(at uint64, h abi.CoreHeader, k uint32, j int) step {
	place := q.start
	for _, r := range regions[q.i:j] {
		place += uint64(r.SlotsPerCubeSlot) * uint64(q.cube) * abi.SlotStride(q.given.For(r.CoreType))
	}
	if uint64(h.BlockID) >= uint64(regions[j].SlotsPerCubeSlot)*uint64(q.cube) || place+uint64(h.BlockID)*abi.SlotStride(k) != at {
		return q.reject(rMisplaced, at, h)
	}
	return step{capacity: q.given.For(q.t), ev: evidence{src: FromHeaders, t: h.CoreType, block: h.BlockID, off: at}}
}

// ruleZeroTail: every header from the region's start to the end of the
// buffer is zero. Given capacities stand (no evidence); otherwise only the
// last region can be placed, with the capacity that makes the layout end
// exactly with the buffer, if one does.
func (f *finder) ruleZeroTail(q *regionQuery) step {
	if q.given != nil {
		return step{capacity: q.given.For(q.t)}
	}
	if q.i != len(regions)-1 {
		return q.reject(rZeroMiddle, 0, abi.CoreHeader{})
	}
	if stride, ok := exactStride(f.size-q.start, q.n); ok {
		if v, ok := capacityOfStride(stride); ok {
			return step{capacity: v, ev: evidence{src: FromSize}}
		}
	}
	return q.reject(rNoSizeFit, 0, abi.CoreHeader{})
}

// rulePinned: once every region is placed, something found must depend on
// the cube slot count, unless it is given: a header past the first region,
// a capacity derived from where one sits, or the size rule (w.cubeFrom).
// With given capacities and nothing live past the first region, the count
// whose layout ends exactly with the buffer (end, the layout's size) is
// pinned by the size. It returns what pins the count, or the rejection.
func (f *finder) rulePinned(w *walkState, cubeGiven bool, given *abi.Capacities, end uint64) (evidence, rejection) {
	switch {
	case w.cubeFrom.src != "" || cubeGiven:
		return w.cubeFrom, rejection{}
	case given != nil && end == f.size:
		return evidence{src: FromSize}, rejection{}
	}
	return evidence{}, rejection{kind: rUnpinned}
}

// ruleSlotHeaders checks every slot header of a candidate's layout that the buffer
// holds, and the header right after the layout.
func (f *finder) ruleSlotHeaders(cd *candidate) {
	l := cd.layout
	note := func(msg string) {
		if cd.mismatches == 0 {
			cd.first = msg
		}
		cd.mismatches++
	}
	for i := range l.NumSlots() {
		s := l.Slot(i)
		if s.Offset+abi.CoreHeaderSize > f.size {
			break
		}
		h := f.header(s.Offset)
		if h.IsZero() {
			continue
		}
		if h.CoreType != s.CoreType || h.BlockID != s.BlockID || h.RecordCapacity != s.Capacity {
			note(fmt.Sprintf("the header at @%#x to name %s with capacity %d (it names %s with capacity %d)",
				f.file(s.Offset), s, s.Capacity, headerName(h), h.RecordCapacity))
		}
	}
	// The first live header after the layout must not be a slot of the
	// last region that the layout is too short to hold, where the region's
	// stride would put it.
	if end := cd.size; end+abi.CoreHeaderSize <= f.size {
		last := regions[len(regions)-1].CoreType
		n, stride := l.SlotCount(last), abi.SlotStride(l.Capacities.For(last))
		if at, h, st := f.firstLive(end); st == liveFound && h.CoreType == last && h.BlockID >= n &&
			end+uint64(h.BlockID-n)*stride == at {
			note(fmt.Sprintf("room for %s, whose header follows the layout at @%#x", headerName(h), f.file(at)))
		}
	}
}

// ruleCrossCheck holds every candidate to the live headers the others were
// found from: under a candidate, such a header must sit where a slot's
// header is (ruleSlotHeaders checked those), past the layout, or among the records
// a live slot wrote; in an unused slot, or past a slot's record_count,
// nothing was ever written.
func (f *finder) ruleCrossCheck(cands []*candidate) {
	var seen []uint64
	for _, other := range cands {
		for _, e := range append([]Evidence{other.cubeFrom}, other.from...) {
			if e.Source != FromHeaders {
				continue
			}
			off := uint64(e.Off - f.buf.Base)
			if slices.Contains(seen, off) {
				continue
			}
			seen = append(seen, off)
			for _, cd := range cands {
				s, ok := slotAt(cd.layout, off)
				if !ok || off == s.Offset {
					continue
				}
				h := f.header(s.Offset)
				written := uint64(min(h.RecordCount, s.Capacity))
				if h.IsZero() || off >= s.RecordOffset(uint32(written)) {
					if cd.mismatches == 0 {
						cd.first = fmt.Sprintf("no live header at @%#x (%s), which falls in room %s never wrote", f.file(off), e.Slot, s)
					}
					cd.mismatches++
				}
			}
		}
	}
}

// slotAt returns the slot of l whose bytes hold buffer offset off.
func slotAt(l abi.Layout, off uint64) (abi.Slot, bool) {
	for _, r := range regions {
		n := l.SlotCount(r.CoreType)
		if n == 0 {
			continue
		}
		start, stride := l.SlotOffset(r.CoreType, 0), abi.SlotStride(l.Capacities.For(r.CoreType))
		if off >= start && off < start+uint64(n)*stride {
			return l.SlotOf(r.CoreType, uint32((off-start)/stride))
		}
	}
	return abi.Slot{}, false
}
