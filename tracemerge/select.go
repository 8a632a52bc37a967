package tracemerge

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// kernel is an outer-kernel candidate: a complete framework event with a
// finite ts >= 0 and a dur > 0, as upstream's merger takes them.
type kernel struct {
	name     string
	pid, tid []byte // raw JSON values
	// tsText and durText are the times as plain ASCII decimals (what
	// float() read), tsF and durF their float64 values: candidates are
	// ordered by tsF as upstream orders them, and placed by the exact
	// decimal.
	tsText, durText string
	tsF, durF       float64
	quoted          bool // ts was written as a string (CANN): write ours the same way
	device          bool
	score           int
	seq             int64 // place in traceEvents
	at              jsonread.Pos
	ts, dur         decimal // parsed from the texts once selected
	// deviceID is the device the event's args name (args.device,
	// device_id or "Device Id"), when hasDevice.
	deviceID  int64
	hasDevice bool
	deviceKey string
}

// before orders candidates as upstream's sort by float(ts) does: by tsF,
// ties in file order.
func (k *kernel) before(x *kernel) bool {
	return k.tsF < x.tsF || k.tsF == x.tsF && k.seq < x.seq
}

// bounded keeps the limit earliest candidates (by before) of those it is
// offered: a max-heap, so memory is limit candidates whatever the count
// offered.
type bounded struct {
	limit int
	ks    []*kernel
}

func (b *bounded) Len() int           { return len(b.ks) }
func (b *bounded) Less(i, j int) bool { return b.ks[j].before(b.ks[i]) }
func (b *bounded) Swap(i, j int)      { b.ks[i], b.ks[j] = b.ks[j], b.ks[i] }
func (b *bounded) Push(x any)         { b.ks = append(b.ks, x.(*kernel)) }
func (b *bounded) Pop() any {
	k := b.ks[len(b.ks)-1]
	b.ks = b.ks[:len(b.ks)-1]
	return k
}

// wants reports whether a candidate at (tsF, seq) would be kept.
func (b *bounded) wants(tsF float64, seq int64) bool {
	if len(b.ks) < b.limit {
		return true
	}
	top := b.ks[0]
	return tsF < top.tsF || tsF == top.tsF && seq < top.seq
}

func (b *bounded) offer(k *kernel) {
	if len(b.ks) < b.limit {
		heap.Push(b, k)
		return
	}
	b.ks[0] = k
	heap.Fix(b, 0)
}

// sorted returns the kept candidates, earliest first.
func (b *bounded) sorted() []*kernel {
	ks := slices.Clone(b.ks)
	slices.SortFunc(ks, func(x, y *kernel) int {
		return cmp.Or(cmp.Compare(x.tsF, y.tsF), cmp.Compare(x.seq, y.seq))
	})
	return ks
}

// devKey is what the fallback needs of a device kernel to rank windows;
// its other fields are read again from the trace for the n it picks.
type devKey struct {
	tsF, durF float64
	seq       int64
	score     int32
}

// rejects counts the framework events whose name matched but that are
// not candidates, by reason: what a user needs when nothing matched.
type rejects struct {
	phase, pid, tsNotNumber, tsNonFinite, tsNegative, durNotNumber, durNonFinite, durNotPositive int
	// unnamed is the reason an event is neither named nor a device
	// kernel; scan counts only named events, so it stays 0.
	unnamed int
	// megaKernel counts a MegaKernel's own records (cat
	// MegaKernelInternal: merged before, or a MegaKernel trace given as
	// the framework trace), never outer kernels.
	megaKernel int
}

func (r *rejects) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{r.tsNotNumber, "ts not a number (null, a boolean, text like \"12abc\")"},
		{r.tsNonFinite, "ts not finite"},
		{r.tsNegative, "ts below 0"},
		{r.durNotNumber, "dur absent or not a number"},
		{r.durNonFinite, "dur not finite"},
		{r.durNotPositive, "dur not above 0"},
		{r.pid, "another pid than --outer-pid"},
		{r.phase, "ph not X"},
		{r.megaKernel, "cat MegaKernelInternal (a MegaKernel's own records)"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d with %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

func (r *rejects) total() int {
	return r.megaKernel + r.phase + r.pid + r.tsNotNumber + r.tsNonFinite + r.tsNegative + r.durNotNumber + r.durNonFinite + r.durNotPositive
}

// nearMisses says, after "matches nothing", which events the name matched
// and why they were passed over.
func (m *merger) nearMisses() string {
	if m.rej.total() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d event(s) whose name matches are not candidates, which are complete events with a numeric finite ts >= 0 and dur > 0: %s)", m.rej.total(), m.rej.String())
}

// selectKernels pairs the invocations (in time order) with outer kernels
// by upstream's rules: the best-scored candidates whose name matches, by
// ts, from --kernel-index; without a name match (and without
// --kernel-pattern), the contiguous run of device kernels closest in
// duration to the invocations' spans.
func (m *merger) selectKernels() error {
	n := len(m.mk.inv)
	var selected []*kernel
	if m.matched == 0 {
		if m.o.KernelPatternSet {
			return &SelectionError{fmt.Sprintf("--kernel-pattern %s matches no outer-kernel candidate in %s%s", m.re, m.o.Framework, m.nearMisses())}
		}
		var err error
		if selected, err = m.fallback(); err != nil {
			return err
		}
	} else {
		all := m.best.sorted()
		if m.o.KernelIndex+n > m.bestCount {
			return &SelectionError{fmt.Sprintf("too few outer kernels: %d invocation(s) from --kernel-index %d need %d of the events matching %s with the best score (%d), but %s has %d", n, m.o.KernelIndex, m.o.KernelIndex+n, m.re, m.bestScore, m.o.Framework, m.bestCount)}
		}
		selected = all[m.o.KernelIndex : m.o.KernelIndex+n]
	}
	var hosts []string
	for _, k := range selected {
		if !k.device && !contains(hosts, k.name) {
			hosts = append(hosts, k.name)
		}
	}
	slices.Sort(hosts)
	if len(hosts) > 0 {
		if !m.o.AllowHostWrapper {
			return &SelectionError{fmt.Sprintf("the outer kernel(s) chosen for %s are host-only events %q (no device category or Task Type): their times are the host's; collect the framework profile with device activities, or pass --allow-host-wrapper for an approximate timeline", m.re, hosts)}
		}
		m.warn("placed under host-only outer event(s) %q (--allow-host-wrapper): alignment is approximate, device kernel events were unavailable", hosts)
	}
	for i, inv := range m.mk.inv {
		k := selected[i]
		if parseDecimal([]byte(k.tsText), &k.ts) != timeOK || parseDecimal([]byte(k.durText), &k.dur) != timeOK {
			return m.fr.ErrorAt(k.at, "outer kernel %q: ts %s or dur %s has more than %d fractional digits: not a time merge can place events at exactly", k.name, k.tsText, k.durText, maxScale)
		}
		// A viewer reads ts as a double: from 2^53 us on, a double cannot
		// tell whole microseconds apart, and the invocation's events would
		// collapse onto a few values.
		if end := k.tsF + inv.spanF; end >= 1<<53 {
			return m.fr.ErrorAt(k.at, "outer kernel %q at ts %s: the invocation's events would end at %g us, past 2^53 us, where a double (what viewers read ts as) no longer holds whole microseconds", k.name, k.tsText, end)
		}
		inv.outer = k
	}
	return nil
}

// fallbackChunk is how many device kernels (32 bytes each) the fallback
// holds at once; a trace with more is walked in that many at a time, in
// ts order, one more read of it for each chunk after the first.
var fallbackChunk = 1 << 18

// devHeap keeps the limit earliest device kernels offered (a max-heap).
type devHeap struct {
	limit int
	ks    []devKey
}

func (d devKey) before(x devKey) bool { return d.tsF < x.tsF || d.tsF == x.tsF && d.seq < x.seq }

func (h *devHeap) Len() int           { return len(h.ks) }
func (h *devHeap) Less(i, j int) bool { return h.ks[j].before(h.ks[i]) }
func (h *devHeap) Swap(i, j int)      { h.ks[i], h.ks[j] = h.ks[j], h.ks[i] }
func (h *devHeap) Push(x any)         { h.ks = append(h.ks, x.(devKey)) }
func (h *devHeap) Pop() any {
	k := h.ks[len(h.ks)-1]
	h.ks = h.ks[:len(h.ks)-1]
	return k
}

func (h *devHeap) offer(k devKey) {
	switch {
	case len(h.ks) < h.limit:
		heap.Push(h, k)
	case len(h.ks) > 0 && k.before(h.ks[0]):
		h.ks[0] = k
		heap.Fix(h, 0)
	}
}

// sorted returns the kept kernels, earliest first (the heap's own
// storage: offer no more).
func (h *devHeap) sorted() []devKey {
	slices.SortFunc(h.ks, func(x, y devKey) int { return cmp.Or(cmp.Compare(x.tsF, y.tsF), cmp.Compare(x.seq, y.seq)) })
	return h.ks
}

// runs slides a window of n over device kernels given in ts order and
// keeps the one upstream's fallback picks.
type runs struct {
	n, skip int
	spans   []float64
	seen    int
	win     []devKey
	best    []devKey
	dist    float64
	negSc   float64
}

func newRuns(inv []*invocation, skip int) *runs {
	w := &runs{n: len(inv), skip: skip}
	for _, inv := range inv {
		w.spans = append(w.spans, inv.spanF)
	}
	return w
}

func (w *runs) push(d devKey) {
	w.seen++
	if w.seen <= w.skip {
		return
	}
	if len(w.win) == w.n {
		copy(w.win, w.win[1:])
		w.win = w.win[:w.n-1]
	}
	w.win = append(w.win, d)
	if len(w.win) < w.n {
		return
	}
	dist, score := 0.0, 0
	for i, d := range w.win {
		span := w.spans[i]
		shorter := 0.0
		if d.durF < span {
			shorter = 1
		}
		dist += shorter + math.Abs(d.durF-span)/math.Max(span, 1)
		score += int(d.score)
	}
	// Upstream's min() over (distance, -score): the first of equals.
	neg := -float64(score)
	if w.best == nil || dist < w.dist || dist == w.dist && neg < w.negSc {
		w.best = append(w.best[:0], w.win...)
		w.dist, w.negSc = dist, neg
	}
}

// fallback is upstream's duration fallback: the device kernels by ts from
// --kernel-index, and the contiguous run of n whose durations are closest
// to the invocations' spans (a shorter kernel costs 1 more), ties to the
// higher total score, then the earlier run.
func (m *merger) fallback() ([]*kernel, error) {
	n := len(m.mk.inv)
	if m.o.KernelIndex+n > m.deviceCount {
		msg := fmt.Sprintf("no outer kernel: no candidate in %s matches %s%s, and the fallback has %d device kernel(s) (cat with kernel, npu, ascend or aicore, or a Task Type with kernel, ai_core, aicore, aic or aiv) where %d invocation(s) from --kernel-index %d need %d", m.o.Framework, m.re, m.nearMisses(), m.deviceCount, n, m.o.KernelIndex, m.o.KernelIndex+n)
		if m.mkRecords > 0 {
			msg += fmt.Sprintf("; %d of its events are a MegaKernel's own records (cat MegaKernelInternal), never outer kernels: is %s a MegaKernel trace? The framework trace (torch profiler, msprof) holds the kernel that launched the MegaKernel", m.mkRecords, m.o.Framework)
		}
		return nil, &SelectionError{msg}
	}
	w := m.inOrder
	if w == nil {
		// Out of ts order: walk them in order a chunk at a time.
		w = newRuns(m.mk.inv, m.o.KernelIndex)
		chunk := m.devices.sorted()
		m.devices = devHeap{}
		for {
			for _, d := range chunk {
				w.push(d)
			}
			if w.seen >= m.deviceCount || len(chunk) == 0 {
				break
			}
			last := chunk[len(chunk)-1]
			chunk = nil
			var err error
			if chunk, err = m.devicesAfter(last); err != nil {
				return nil, err
			}
		}
	}
	if w.seen != m.deviceCount || w.best == nil {
		return nil, &InputError{File: m.o.Framework, Msg: "the framework trace changed while it was merged"}
	}
	want := map[int64]int{}
	for i, d := range w.best {
		want[d.seq] = i
	}
	selected, err := m.reread(want)
	if err != nil {
		return nil, err
	}
	m.res.UsedFallbackKernelSelection = true
	m.warn("no outer kernel name matches %s; chose a contiguous run of device kernels by duration similarity, so alignment is approximate (--kernel-pattern picks them by name)", m.re)
	if m.rej.total() > 0 {
		m.warn("%d event(s) whose name matches %s are not candidates: %s", m.rej.total(), m.re, m.rej.String())
	}
	return selected, nil
}

// devicesAfter reads the framework trace again for the next
// fallbackChunk device kernels after last, in ts order.
func (m *merger) devicesAfter(last devKey) ([]devKey, error) {
	r, err := openReader(m.o.Framework)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h := devHeap{limit: fallbackChunk}
	var ms, args []member
	seq := int64(-1)
	err = eachEvent(r, func(raw []byte, at jsonread.Pos) error {
		seq++
		ms, _ = members(raw, ms)
		k, why := m.candidate(ms, &args, at, seq, false)
		if why != nil || !k.device {
			return nil
		}
		if d := (devKey{tsF: k.tsF, durF: k.durF, seq: seq, score: int32(k.score)}); last.before(d) {
			h.offer(d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h.sorted(), nil
}

// reread reads the framework trace again for the candidates at the
// places (seq) in want, returned in want's order.
func (m *merger) reread(want map[int64]int) ([]*kernel, error) {
	r, err := openReader(m.o.Framework)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([]*kernel, len(want))
	var ms, args []member
	seq := int64(-1)
	err = eachEvent(r, func(raw []byte, at jsonread.Pos) error {
		seq++
		i, ok := want[seq]
		if !ok {
			return nil
		}
		ms, _ = members(raw, ms)
		k, why := m.candidate(ms, &args, at, seq, true)
		if why != nil || !k.device {
			return r.ErrorAt(at, "the framework trace changed while it was merged")
		}
		out[i] = k.keep()
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range out {
		if k == nil {
			return nil, &InputError{File: m.o.Framework, Msg: "the framework trace changed while it was merged"}
		}
	}
	return out, nil
}

// eachEvent calls fn with each element of the trace's traceEvents (an
// object's, or the bare array). Of an object it reads every member, so
// that a trace that is not one JSON value is refused wherever it breaks.
func eachEvent(r *jsonread.Reader, fn func(raw []byte, at jsonread.Pos) error) error {
	if r.Peek() == '[' {
		return r.Array(true, "a trace event", fn)
	}
	return r.Object("a trace", func(key []byte, _ jsonread.Pos) error {
		if string(key) == "traceEvents" {
			return r.Array(false, "a trace event", fn)
		}
		return r.Skip()
	})
}
