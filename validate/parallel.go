package validate

import (
	"cmp"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// parallelMaxFindings is the largest cap per code under which slots are
// walked on several goroutines: each range of slots keeps up to the cap of
// every code until it is joined, so larger caps walk serially.
const parallelMaxFindings = 1000

// chunksPerWorker: the slots are cut into this many ranges per goroutine,
// of about the same bytes, which the goroutines take in turn (a range
// whose slots are full takes longer than one whose are not).
const chunksPerWorker = 4

// parallel says on how many goroutines Check walks the slots: Walkers
// (GOMAXPROCS when 0) when that is more than one, with no OnFinding hook
// (it sees findings in the order they are found), no range of slots, and a
// cap of at most parallelMaxFindings; else 1.
func (v *validator) parallel() int {
	w := v.o.Walkers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if !fastPaths || w < 2 || v.o.OnFinding != nil || v.o.Slots != nil || v.col.limit > parallelMaxFindings {
		return 1
	}
	return w
}

// scanParallel is c.Scan(l, opts) with the slots cut into ranges walked by
// workers goroutines, each range by a validator of its own; the ranges'
// findings, counts and totals are then joined in slot order, so the result
// is the serial walk's, byte for byte. A capture without records is walked
// again serially: the no-records error is the scan's to report.
func (v *validator) scanParallel(l abi.Layout, opts capture.ScanOptions, workers int) (*capture.Summary, error) {
	ranges := slotRanges(l, chunksPerWorker*workers)
	parts := make([]*validator, len(ranges))
	sums := make([]*capture.Summary, len(ranges))
	errs := make([]error, len(ranges))
	var next atomic.Int64
	var wg sync.WaitGroup
	full := newRangesFull()
	for range min(workers, len(ranges)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev *validator
			var buf []byte // the goroutine's read buffer, for each of its ranges
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ranges) {
					return
				}
				w := v.fork()
				w.ranges, w.rangeIdx = full, i
				if prev != nil {
					// The goroutine's buffers and desc_id cache go on.
					w.hbuf, w.spans, w.records, w.rbuf, w.descOK = prev.hbuf, prev.spans, prev.records, prev.rbuf, prev.descOK
				}
				prev = w
				o := opts
				o.Problem, o.Record, o.Slot, o.Block = w.problem, w.record, w.slot, w.block
				o.Slots, o.Buf = &ranges[i], &buf
				sums[i], errs[i] = v.c.Scan(l, o)
				if errs[i] == nil {
					errs[i] = w.err
				}
				parts[i] = w
			}
		}()
	}
	wg.Wait()
	sum := &capture.Summary{Layout: l}
	for i := range ranges {
		if errs[i] != nil {
			return nil, errs[i]
		}
		sum.Records += sums[i].Records
		sum.Dropped += sums[i].Dropped
		// Ranges are in buffer order: so are their active slots.
		sum.Active = append(sum.Active, sums[i].Active...)
	}
	if sum.Records == 0 {
		return v.c.Scan(l, opts)
	}
	for _, w := range parts {
		v.join(w)
	}
	return sum, nil
}

// rangesFull is shared by the ranges of slots of a parallel walk: for each
// code, the lowest range that has kept as many findings of it as are kept.
// A finding of that code in a later range is at a higher offset than all
// of them, so the join never keeps it: the block check only counts it.
type rangesFull []atomic.Int64

func newRangesFull() rangesFull {
	r := make(rangesFull, numCodes)
	for i := range r {
		r[i].Store(math.MaxInt64)
	}
	return r
}

// markFull records that range has kept its fill of Codes()[code].
func (r rangesFull) markFull(code, rng int) {
	if r == nil {
		return
	}
	for {
		at := r[code].Load()
		if int64(rng) >= at || r[code].CompareAndSwap(at, int64(rng)) {
			return
		}
	}
}

// fullBefore says whether a range before rng has kept its fill of
// Codes()[code]; never in a serial walk (nil).
func (r rangesFull) fullBefore(code, rng int) bool {
	return r != nil && r[code].Load() < int64(rng)
}

// slotRanges cuts the layout's slots into at most n ranges of about the
// same bytes, in slot order.
func slotRanges(l abi.Layout, n int) []capture.SlotRange {
	slots := l.NumSlots()
	total := l.Size()
	var ranges []capture.SlotRange
	from := 0
	var done uint64
	for i := range slots {
		s := l.Slot(i)
		done += abi.CoreHeaderSize + uint64(s.Capacity)*abi.ProfileRecordSize
		if done*uint64(n) >= total*uint64(len(ranges)+1) || i == slots-1 {
			ranges = append(ranges, capture.SlotRange{From: from, To: i + 1})
			from = i + 1
		}
	}
	return ranges
}

// fork returns a validator for a range of slots: the same capture, layout
// and options, state of its own.
func (v *validator) fork() *validator {
	o := v.o
	o.MaxFindings = v.col.limit
	w := newValidator(v.c, o)
	w.layout, w.hint = v.layout, v.hint
	return w
}

// join adds what w found in its range of slots, which follows every range
// joined before.
func (v *validator) join(w *validator) {
	v.col.join(w.col)
	v.dropped += w.dropped
	maps.Copy(v.ids, w.ids)
	v.droppingCores += w.droppingCores
	for _, n := range w.needed {
		if n.records > v.neededRecords(n.t) {
			v.setNeeded(n.t, n.records)
		}
	}
	for _, d := range w.planDiffs {
		found := false
		for i := range v.planDiffs {
			if v.planDiffs[i].t == d.t {
				v.planDiffs[i].headers += d.headers
				found = true
			}
		}
		if !found {
			v.planDiffs = append(v.planDiffs, d)
		}
	}
}

// join adds the counts and kept findings of o, whose findings were all
// found after c's: the kept ones are added in the order o found them, so
// that ties on offset keep it, and the cap keeps the lowest offsets of
// both.
func (c *collector) join(o *collector) {
	var kept []Finding
	codes := Codes()
	for i := range o.stats {
		if st := &o.stats[i]; st.count > 0 {
			c.statsOf(codes[i].Code, st.severity).count += st.count
			kept = append(kept, st.kept...)
		}
	}
	for code, st := range o.other {
		c.statsOf(code, st.severity).count += st.count
		kept = append(kept, st.kept...)
	}
	slices.SortFunc(kept, func(a, b Finding) int { return cmp.Compare(a.seq, b.seq) })
	for _, f := range kept {
		if c.statsOf(f.Code, f.Severity).admits(c.limit, f.Off) {
			c.add(f)
		}
	}
}
