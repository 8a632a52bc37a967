package chromejson

import (
	"math/bits"
	"strconv"

	"github.com/megakernel/cycleabi/decode"
)

// renderedNanos returns the nanoseconds a trace shows for a - b cycles
// (what appendSignedMicros writes, read back), false when they do not fit
// in an int64.
func (c *clock) renderedNanos(a, b uint64) (int64, bool) {
	if c.nsPerCycle != 0 {
		// Whole nanoseconds a cycle: what appendMicros prints, exactly.
		neg, d := a < b, a-b
		if neg {
			d = b - a
		}
		hi, ns := bits.Mul64(d, c.nsPerCycle)
		if hi != 0 || ns >= 1<<62 {
			return 0, false
		}
		if neg {
			return -int64(ns), true
		}
		return int64(ns), true
	}
	var buf [48]byte
	s := c.appendSignedMicros(buf[:0], a, b)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var ns, frac int64
	digits := 0
	inFrac := false
	for _, ch := range s {
		if ch == '.' {
			inFrac = true
			continue
		}
		d := int64(ch - '0')
		if inFrac {
			frac = frac*10 + d
			digits++
			continue
		}
		if ns > (1<<62)/10 {
			return 0, false
		}
		ns = ns*10 + d
	}
	for ; digits < 3; digits++ {
		frac *= 10
	}
	if ns > (1<<62)/1000 {
		return 0, false
	}
	ns = ns*1000 + frac
	if neg {
		ns = -ns
	}
	return ns, true
}

// slice returns the interval [ts, ts+dur] in nanoseconds that the trace
// shows for record r of slot active.
func (r *renderer) slice(ref decode.RecordRef) (lo, hi int64, ok bool) {
	start, end := ref.StartCycle+r.place.Shift(), ref.EndCycle+r.place.Shift()
	if ts, dur, ok := r.clock.span(start, end, r.anchor); ok {
		return ts, ts + dur, true
	}
	lo, ok1 := r.clock.renderedNanos(start, r.anchor)
	dur, ok2 := r.clock.renderedNanos(end, start)
	return lo, lo + dur, ok1 && ok2 && dur < 1<<62
}

// flowTimes chooses the binding timestamps of an arrow from p to w, in
// trace nanoseconds: s in the middle of p's slice, f in w's slice at or
// after s (the middle of w's slice, or s when that is later). Both are
// inside their slices as the trace shows them, and s <= f; false when the
// rounding of the slices leaves no such pair (p's middle after w's end).
func (r *renderer) flowTimes(p, w decode.RecordRef) (s, f int64, ok bool) {
	plo, phi, ok1 := r.slice(p)
	wlo, whi, ok2 := r.slice(w)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	s = plo + (phi-plo)/2
	f = max(s, wlo+(whi-wlo)/2)
	return s, f, s <= whi
}

// appendNanos appends signed nanoseconds as microseconds.
func appendNanos(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	return appendNanosAsMicros(b, uint64(ns))
}

// appendFlows appends the arrows into wait record rec (",\n" before each
// event) and counts them in st.
func (r *renderer) appendFlows(b []byte, rec *decode.Record) []byte {
	deps := r.deps
	e, ok := deps.WaitEvent(&rec.ProfileRecord)
	if !ok {
		return b
	}
	st := &r.flowStats
	st.Waits++
	w := rec.Ref()
	if !deps.FlowsOf(e, w, r.cfg.FlowMode, func(p decode.RecordRef) {
		if r.cfg.MaxFlows > 0 && st.Arrows >= uint64(r.cfg.MaxFlows) {
			st.Capped++
			return
		}
		s, f, ok := r.flowTimes(p, w)
		if !ok {
			st.Unbound++
			return
		}
		st.Arrows++
		id := r.flowBase + st.Arrows
		for _, end := range [2]struct {
			ph     string
			active int32
			ts     int64
		}{{`","cat":"dependency","ph":"s","id":`, p.Active, s}, {`","cat":"dependency","ph":"f","bp":"e","id":`, w.Active, f}} {
			b = append(b, ",\n{\"name\":\"event "...)
			b = strconv.AppendUint(b, uint64(e), 10)
			b = append(b, end.ph...)
			b = strconv.AppendUint(b, id, 10)
			b = append(b, r.slots[end.active].pidTid...)
			b = appendNanos(b, end.ts)
			b = append(b, '}')
		}
	}) {
		st.WaitsWithoutProducer++
	}
	return b
}
