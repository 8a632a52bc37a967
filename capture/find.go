package capture

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

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

// describe renders a candidate and what it would need, for a message
// listing several.
func (cd *candidate) describe(f *finder, req Request) string {
	s := fmt.Sprintf("%s, %s", paren(cd.layout), f.how(cd, req))
	switch {
	case cd.mismatches > 0:
		s += fmt.Sprintf(": would need %s", cd.first)
		if cd.mismatches > 1 {
			s += fmt.Sprintf(" (and %d more headers to change)", cd.mismatches-1)
		}
	case cd.size > f.size:
		s += fmt.Sprintf(": would need %d more bytes", cd.size-f.size)
	}
	return s
}

// reject is a cube slot count (or a run of them) the search ruled out.
type reject struct {
	cube, last uint32
	r          rejection
}

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

// perfect returns the candidates that fit: every header agrees, and the
// buffer holds the layout.
func (s search) perfect() []*candidate {
	var fit []*candidate
	for _, cd := range s.cands {
		if cd.fits(s.size) {
			fit = append(fit, cd)
		}
	}
	return fit
}

// planned returns the one of cands that is the host plan's layout, if any.
func (s search) planned(p *Plan, cands []*candidate) *candidate {
	if p == nil {
		return nil
	}
	for _, cd := range cands {
		if cd.cube == p.CubeSlots && cd.caps == p.Capacities {
			return cd
		}
	}
	return nil
}

// onlyProblem returns the bad-capacity problem when it is the one thing
// that stopped every cube slot count the headers support.
func (s search) onlyProblem() *Problem {
	if len(s.problems) == 1 {
		return s.problems[0]
	}
	return nil
}

// finder runs the search over one capture; it remembers the runs of zero
// bytes it has read so that no byte is scanned twice.
type finder struct {
	c       *Capture
	size    uint64
	runs    []zeroRun // the zero runs scanned
	scanned uint64
	// damaged enables rule 2's reading past a damaged first header: a
	// second pass, when the strict one found no candidate.
	damaged bool
	scanBuf []byte
	hdrBuf  [abi.CoreHeaderSize]byte
	// first is the buffer's first header, where every C starts region 0.
	first     abi.CoreHeader
	firstRead bool
	allZeroK  int8 // 0 unknown, 1 yes, -1 no
}

// search finds the layouts a capture's headers and size support. It is
// the layout search of cycleabi, and the rules below are all of it (docs/layout.md
// repeats them; gen/py's find_layout mirrors them, and
// tests/agreement holds it to this search):
//
// The unknowns are the cube slot count C and one record capacity per
// region of abi.Regions() (the schema's regions, in buffer order: AIC with
// C slots, then AIV with 2C). Region i starts where region i-1 ends, and
// its slot b at start + b*stride(capacity). Every slot offset is a
// multiple of 64. A header is live when its seven fields are not all zero.
//
//  1. C is tried from MinCubeSlots up to the smallest of MaxFoundCubeSlots
//     and size/(64*slots per cube slot) (only the given C when the request
//     gives one). For each C the regions are walked in order:
//  2. The header where the region starts must be zero or name the region's
//     slot 0. A live one gives the region's capacity (a capacity that is
//     not a multiple of 16 or exceeds MaxRecordsPerCore is a bad-capacity
//     problem at that header). One that names another slot (a damaged
//     header) rules C out, unless, past the records it counts, the first
//     live header names a later slot b of the region with capacity K at
//     start + b*stride(K); then K is the capacity, and the damaged header
//     counts against the candidate; this is a second pass, run only when
//     the first found no candidate. (In the first region, whose start does
//     not depend on C, and for a given C, a damaged header's capacity is
//     read all the same.)
//  3. When it is zero, the first live header after it is read (the first
//     64-byte block at a multiple of 64 whose header fields are not all
//     zero; at most zeroScanBudget bytes per resolution are read looking).
//     If it names slot b of the same region with capacity K, it must sit
//     at start + b*stride(K): K is the capacity. If it names slot b of the
//     next region with capacity K, this region's headers are all zero, and
//     its capacity is the one whose stride puts that header at its place:
//     stride = (offset - b*stride(K) - start) / (slots of the region),
//     which must be a whole stride of an aligned capacity. With given
//     capacities it may name a slot of any later region, which must sit
//     where they put it (every region between is then all zero). Anything
//     else rules C out.
//  4. When every byte after it is zero and it is the last region, its
//     capacity is the one that makes the layout end exactly with the
//     buffer, if one does; otherwise C is ruled out.
//  5. Given capacities replace the ones read (the headers still have to be
//     where the given capacities put them), and the walk must have found
//     something whose place depends on C (a header after the first region,
//     or the size rule), unless C is given; with given capacities and
//     nothing live past the first region, C is the one whose layout ends
//     exactly with the buffer.
//
// Each C that survives is a candidate, checked against every slot header
// of its layout (each must be zero or name exactly its own slot and the
// candidate's capacity), against the first live header after its layout
// (which must not be a slot of the last region past the layout's last, at
// the place the region's stride gives it), and against the live headers
// the other candidates were found from (each must sit at one of its slot
// headers, past its layout, or among the records a live slot wrote: an
// unused slot, and the room past a slot's record_count, hold zeros). A
// candidate fits when none disagrees and the buffer holds the layout;
// Resolve takes the only one that fits, and never picks among several.
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

// searchPass is one pass of the search over the cube slot counts.
func (f *finder) searchPass(cube uint32, given *abi.Capacities) search {
	s := search{size: f.size}
	perCube := uint64(0)
	for _, r := range regions {
		perCube += uint64(r.SlotsPerCubeSlot) * abi.CoreHeaderSize
	}
	lo, hi := uint64(abi.MinCubeSlots), min(uint64(MaxFoundCubeSlots), f.size/perCube)
	if cube != 0 {
		lo, hi = uint64(cube), uint64(cube)
	}
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
			s.addReject(uint32(c), f, &w.rej)
			if w.rej.kind == rPastEnd && !w.derived && (given != nil || w.rej.region <= 1) {
				// The regions before it have capacities that do not
				// depend on the count (given, or the first region's,
				// read where it starts whatever C is): every larger
				// count starts that region later still.
				for c++; c <= hi; c++ {
					s.tried++
					s.addReject(uint32(c), f, &w.rej)
				}
			}
			continue
		}
		cd, err := w.candidate(f)
		if err != nil {
			s.addReject(uint32(c), f, &rejection{kind: rNotLayout})
			continue
		}
		if cube != 0 {
			cd.cubeFrom = Evidence{Source: FromHost}
		}
		f.verify(cd)
		s.cands = append(s.cands, cd)
	}
	if len(s.cands) > 1 {
		f.crossCheck(s.cands)
	}
	s.allZero = f.allZero()
	return s
}

// crossCheck holds every candidate to the live headers the others were
// found from: under a candidate, such a header must sit where a slot's
// header is (verify checked those), past the layout, or among the records
// a live slot wrote; in an unused slot, or past a slot's record_count,
// nothing was ever written.
func (f *finder) crossCheck(cands []*candidate) {
	var seen []uint64
	for _, other := range cands {
		for _, e := range append([]Evidence{other.cubeFrom}, other.from...) {
			if e.Source != FromHeaders {
				continue
			}
			off := uint64(e.Off - f.c.Base)
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
func (s *search) addReject(c uint32, f *finder, r *rejection) {
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

// evidence is an Evidence before its strings are made: the walk runs for
// thousands of cube slot counts and allocates nothing.
type evidence struct {
	src     LayoutSource
	t       abi.CoreType
	block   uint32
	off     uint64 // buffer offset
	derived bool
}

func (e evidence) public(f *finder) Evidence {
	out := Evidence{Source: e.src, Derived: e.derived}
	if e.src == FromHeaders {
		out.Slot, out.Off = abi.Slot{CoreType: e.t, BlockID: e.block}.String(), f.file(e.off)
	}
	return out
}

// The reasons a cube slot count is ruled out.
const (
	_            = iota
	rPastEnd     // the region would start past the end of the buffer
	rWrongStart  // the header where the region starts names another slot
	rBudget      // no live header within the scan budget
	rZeroMiddle  // every header from a region that is not the last on is zero
	rNoSizeFit   // an all-zero last region whose capacity fits no exact size
	rBadCapacity // the first live header after an unused one states no capacity a layout has
	rMisplaced   // the first live header after an unused one is not where the layout puts it
	rNoDerived   // no capacity of an all-zero region puts the next region's header there
	rOtherRegion // the first live header after an unused one names neither this region nor the next
	rNotLayout   // the capacities make no layout
	rUnpinned    // nothing found depends on the cube slot count
)

// rejection is why a walk ruled its cube slot count out.
type rejection struct {
	kind   int
	region int
	at     uint64 // buffer offset of the header concerned
	h      abi.CoreHeader
}

func (r *rejection) String(f *finder) string {
	first := abi.Slot{CoreType: regions[r.region].CoreType}.String()
	t := regions[r.region].CoreType
	switch r.kind {
	case rPastEnd:
		return fmt.Sprintf("%s would start past the end of the buffer", first)
	case rWrongStart:
		return fmt.Sprintf("the header where %s would start, @%#x, names %s", first, f.file(r.at), headerName(r.h))
	case rBudget:
		return fmt.Sprintf("%s is unused and no live header follows within %d MiB", first, zeroScanBudget>>20)
	case rZeroMiddle:
		return fmt.Sprintf("every header from %s on is zero, so the capacities of its region and the next cannot be read", first)
	case rNoSizeFit:
		return fmt.Sprintf("every %s header is zero and no %s capacity makes the layout end with the buffer", t, t)
	case rBadCapacity:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, states capacity %d, which no layout has", first, f.file(r.at), r.h.RecordCapacity)
	case rMisplaced:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, names %s, which this layout does not put there", first, f.file(r.at), headerName(r.h))
	case rNoDerived:
		return fmt.Sprintf("every %s header is zero, and no %s capacity puts %s at @%#x", t, t, headerName(r.h), f.file(r.at))
	case rOtherRegion:
		return fmt.Sprintf("%s is unused and the first live header after it, @%#x, names %s", first, f.file(r.at), headerName(r.h))
	case rNotLayout:
		return "its capacities make no layout"
	}
	return "no header past the first region is live, so nothing fixes the cube slot count"
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

// candidate makes the walk's result a candidate: its layout is built
// here, once per candidate.
func (w *walkState) candidate(f *finder) (*candidate, error) {
	l, err := abi.NewLayout(w.cube, w.caps)
	if err != nil {
		return nil, err
	}
	cd := &candidate{cube: w.cube, caps: w.caps, layout: l, size: l.Size(), cubeFrom: w.cubeFrom.public(f), from: make([]Evidence, len(w.from))}
	for i, e := range w.from {
		cd.from[i] = e.public(f)
	}
	return cd, nil
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

// verify checks every slot header of a candidate's layout that the buffer
// holds, and the header right after the layout.
func (f *finder) verify(cd *candidate) {
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

// badCapacity is the problem of a header whose record_capacity no layout
// can have, nil when it is fine.
func (f *finder) badCapacity(h abi.CoreHeader, slot abi.Slot, off uint64) *Problem {
	if abi.CheckCapacity(uint64(h.RecordCapacity)) == nil {
		return nil
	}
	return &Problem{File: f.c.Name, Code: CodeBadCapacity, Off: f.file(off) + abi.CoreHeaderRecordCapacityOffset,
		Slot: slot.String(), Record: -1, Value: fmt.Sprintf("record_capacity=%d", h.RecordCapacity),
		Expected: fmt.Sprintf("a multiple of %d at most %d", abi.RecordCapacityAlignment, abi.MaxRecordsPerCore)}
}

func (f *finder) file(off uint64) int64 { return f.c.Base + int64(off) }

// header reads the header at buffer offset off; a zero header when the
// buffer does not hold one there or it cannot be read.
func (f *finder) header(off uint64) abi.CoreHeader {
	if off+abi.CoreHeaderSize > f.size {
		return abi.CoreHeader{}
	}
	if f.firstRead && off == 0 {
		return f.first // read once per C otherwise
	}
	b, err := f.c.view(int64(off), abi.CoreHeaderSize, f.hdrBuf[:])
	if err != nil {
		return abi.CoreHeader{}
	}
	h, _ := abi.DecodeCoreHeader(b)
	if off == 0 {
		f.first, f.firstRead = h, true
	}
	return h
}

// headerName names what a header says it is: "AIV/3", or "core_type=7
// block_id=3" for a core type with no region.
func headerName(h abi.CoreHeader) string {
	if regionIndex(h.CoreType) < 0 {
		return fmt.Sprintf("core_type=%d block_id=%d", uint32(h.CoreType), h.BlockID)
	}
	return abi.Slot{CoreType: h.CoreType, BlockID: h.BlockID}.String()
}

func regionIndex(t abi.CoreType) int {
	for i, r := range regions {
		if r.CoreType == t {
			return i
		}
	}
	return -1
}

// exactStride returns bytes/slots when it divides exactly.
func exactStride(bytes, slots uint64) (uint64, bool) {
	if slots == 0 || bytes%slots != 0 {
		return 0, false
	}
	return bytes / slots, true
}

// capacityOfStride returns the capacity whose slot stride is stride, if an
// aligned capacity within MaxRecordsPerCore has it.
func capacityOfStride(stride uint64) (uint32, bool) {
	if stride < abi.CoreHeaderSize || (stride-abi.CoreHeaderSize)%abi.ProfileRecordSize != 0 {
		return 0, false
	}
	k := (stride - abi.CoreHeaderSize) / abi.ProfileRecordSize
	if abi.CheckCapacity(k) != nil {
		return 0, false
	}
	return uint32(k), true
}

// zeroRun records that the header fields of every 64-byte block in
// [from, next) are zero; next is the first live header's block (found),
// or the end of the buffer.
type zeroRun struct {
	from, next uint64
	found      bool
	h          abi.CoreHeader
}

type liveState int

const (
	liveFound  liveState = iota // a live header
	liveNone                    // no live header before the end of the buffer
	liveBudget                  // zeroScanBudget ran out
)

// scanChunk is how much the zero scan reads at once.
const scanChunk = 64 << 10

// firstLive returns the first block at or after from (a multiple of 64)
// whose header fields are not all zero.
func (f *finder) firstLive(from uint64) (uint64, abi.CoreHeader, liveState) {
	for _, r := range f.runs {
		if r.from <= from && from <= r.next {
			if r.found {
				return r.next, r.h, liveFound
			}
			return 0, abi.CoreHeader{}, liveNone
		}
	}
	run := zeroRun{from: from, next: f.size}
	at := from
	for at+abi.CoreHeaderSize <= f.size {
		if f.scanned >= zeroScanBudget {
			return 0, abi.CoreHeader{}, liveBudget
		}
		n := min(scanChunk, (f.size-at)/abi.CoreHeaderSize*abi.CoreHeaderSize)
		if cap(f.scanBuf) < int(n) {
			f.scanBuf = make([]byte, scanChunk)
		}
		b, err := f.c.view(int64(at), int(n), f.scanBuf)
		if err != nil {
			return 0, abi.CoreHeader{}, liveBudget
		}
		f.scanned += n
		for blk := 0; blk < len(b); blk += abi.CoreHeaderSize {
			if !nonzero(b[blk : blk+abi.CoreHeaderSize]) {
				continue
			}
			h, _ := abi.DecodeCoreHeader(b[blk:])
			if h.IsZero() { // only its padding is not zero
				continue
			}
			run.next, run.found, run.h = at+uint64(blk), true, h
			f.runs = append(f.runs, run)
			return run.next, h, liveFound
		}
		at += n
	}
	f.runs = append(f.runs, run)
	return 0, abi.CoreHeader{}, liveNone
}

// nonzero reports whether b (a multiple of 8 bytes long) holds a nonzero byte.
func nonzero(b []byte) bool {
	for i := 0; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != 0 {
			return true
		}
	}
	return false
}

// allZero reports whether the buffer holds no live header at all.
func (f *finder) allZero() bool {
	if f.allZeroK == 0 {
		f.allZeroK = -1
		if h := f.header(0); h.IsZero() {
			if _, _, st := f.firstLive(abi.CoreHeaderSize); st == liveNone {
				f.allZeroK = 1
			}
		}
	}
	return f.allZeroK == 1
}
