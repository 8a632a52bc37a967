package jsontrace

import (
	"fmt"
	"math"
	"strconv"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// CheckFrequency returns nil when mhz is a system-counter frequency in
// the range a trace's cycleFrequencyMHz and --freq-mhz are held to
// (MinFrequencyMHz to MaxFrequencyMHz), else an error naming what (the
// value's source: "--freq-mhz"), the value and the range.
func CheckFrequency(what string, mhz float64) error {
	if mhz >= MinFrequencyMHz && mhz <= MaxFrequencyMHz {
		return nil
	}
	return fmt.Errorf("%s %v is not a system-counter frequency (%v to %v MHz)", what, mhz, MinFrequencyMHz, MaxFrequencyMHz)
}

// durSlackUs is how far an event's dur may be from its cycles at the
// trace's frequency: 3 ns. Upstream's export writes the division in full
// (17 significant digits); cycleabi decode writes three decimals of a µs
// and may shorten a dur by a nanosecond or two so that a viewer's ts + dur
// does not pass the next record's ts (decode/chromejson). A frequency 20
// times off does not come near.
const durSlackUs = 3e-3

// eventFreq bounds the cycle frequency a capture's events imply: each
// event of c cycles and dur d µs says the frequency is within
// [c/(d+slack), c/(d-slack)]. The bounds are intersected as events come
// (no event is kept); the estimate is taken from the event with the
// most cycles, the most precise.
type eventFreq struct {
	n          int
	lo, hi     float64
	loAt, hiAt jsonread.Pos
	bestCycles uint64
	bestDur    float64
	bestAt     jsonread.Pos
	// clash says which two events disagree, "" while none do.
	clash   string
	clashAt jsonread.Pos
}

// add takes one event's cycles and raw dur; an event without a numeric
// positive dur, or of no cycles, says nothing. The first two events
// whose bounds no longer meet are kept for err.
func (f *eventFreq) add(cycles uint64, dur []byte, at jsonread.Pos) {
	d, err := strconv.ParseFloat(string(dur), 64)
	if err != nil || !(d > 0) || math.IsInf(d, 0) || cycles == 0 || f.clash != "" {
		return
	}
	c := float64(cycles)
	lo := c / (d + durSlackUs)
	hi := math.Inf(1)
	if d > durSlackUs {
		hi = c / (d - durSlackUs)
	}
	if f.n == 0 {
		f.lo, f.hi = 0, math.Inf(1)
	}
	f.n++
	if lo > f.lo {
		f.lo, f.loAt = lo, at
	}
	if hi < f.hi {
		f.hi, f.hiAt = hi, at
	}
	if f.lo > f.hi {
		f.clash = fmt.Sprintf("the trace states no cycle frequency and its events disagree on it: the event at line %d (byte %d) takes at least %.6g MHz (end_cycle - start_cycle over dur), the event at line %d (byte %d) at most %.6g MHz",
			f.loAt.Line, f.loAt.Offset, f.lo, f.hiAt.Line, f.hiAt.Offset, f.hi)
		f.clashAt = at
	}
	if cycles > f.bestCycles {
		f.bestCycles, f.bestDur, f.bestAt = cycles, d, at
	}
}

// mhz returns the frequency the events imply and a sentence saying how
// it was found; 0 when no event has cycles and a duration. The estimate
// is given with the fewest decimals (up to 6) that stay within 1e-9 of
// it: the writer's 50 MHz comes back as 50, not 49.99999999999999.
func (f *eventFreq) mhz() (float64, string) {
	if f.n == 0 {
		return 0, ""
	}
	m := float64(f.bestCycles) / f.bestDur
	for k := 0.0; k <= 6; k++ {
		p := math.Pow(10, k)
		if r := math.Round(m*p) / p; math.Abs(r-m) <= 1e-9*m {
			m = r
			break
		}
	}
	return m, fmt.Sprintf("the trace states no cycle frequency (cycleFrequencyMHz): %s MHz from its %d events' cycles over their durations (the event at line %d: %d cycles in %s µs; all agree within %g µs); --freq-mhz or --soc overrides",
		strconv.FormatFloat(m, 'f', -1, 64), f.n, f.bestAt.Line, f.bestCycles, strconv.FormatFloat(f.bestDur, 'f', -1, 64), durSlackUs)
}

// merge takes o's events into f, as if f had been given them too.
func (f *eventFreq) merge(o *eventFreq) {
	switch {
	case f.clash != "" || o.n == 0:
		return
	case o.clash != "" || f.n == 0:
		*f = *o
		return
	}
	f.n += o.n
	if o.lo > f.lo {
		f.lo, f.loAt = o.lo, o.loAt
	}
	if o.hi < f.hi {
		f.hi, f.hiAt = o.hi, o.hiAt
	}
	if f.lo > f.hi {
		f.clash = fmt.Sprintf("the trace states no cycle frequency and its events disagree on it: the event at line %d (byte %d) takes at least %.6g MHz (end_cycle - start_cycle over dur), the event at line %d (byte %d) at most %.6g MHz",
			f.loAt.Line, f.loAt.Offset, f.lo, f.hiAt.Line, f.hiAt.Offset, f.hi)
		f.clashAt = f.loAt
		if f.hiAt.Offset > f.loAt.Offset {
			f.clashAt = f.hiAt
		}
	}
	if o.bestCycles > f.bestCycles {
		f.bestCycles, f.bestDur, f.bestAt = o.bestCycles, o.bestDur, o.bestAt
	}
}

// eventFrequency gives every capture of the trace that states no
// frequency (nor a SoC that has one) the one frequency all of those
// captures' events imply: a window's invocations are read at one figure,
// not each at its own (an invocation whose events had no cycles fell back
// to 50 MHz while its sibling's said 1000), and invocations whose events
// disagree are the error events that disagree are.
func (r *reader) eventFrequency(sorted []*Source) {
	var all eventFreq
	var unstated []*Source
	for _, s := range sorted {
		if s.FrequencyMHz == 0 {
			all.merge(&s.freq)
			unstated = append(unstated, s)
		}
	}
	for _, s := range unstated {
		notes := s.Notes[s.freqNote:]
		s.Notes = s.Notes[:s.freqNote:s.freqNote]
		s.setEventFrequency(r.path, &all)
		s.Notes = append(s.Notes, notes...)
	}
}

// setEventFrequency sets the frequency of s, whose trace (at path) states
// none, to the one f, the trace's events, implies, saying how in a note;
// or, when they imply none, disagree on it or imply one no system counter
// runs at, leaves it 0 and says so (FreqErr for the last two: a flag
// decides).
func (s *Source) setEventFrequency(path string, f *eventFreq) {
	refuse := func(msg string, at jsonread.Pos) {
		s.FreqErr = &Error{File: path, Line: at.Line, Offset: at.Offset, Msg: msg + "; give --freq-mhz or --soc"}
		s.Notes = append(s.Notes, msg+"; read at the frequency --freq-mhz or --soc gives")
	}
	if f.clash != "" {
		refuse(f.clash, f.clashAt)
		return
	}
	mhz, how := f.mhz()
	if mhz == 0 {
		s.Notes = append(s.Notes, "the trace states no cycle frequency (cycleFrequencyMHz), nor do its events (no event has cycles and a duration): --soc or --freq-mhz gives it")
		return
	}
	if CheckFrequency("", mhz) != nil {
		refuse(fmt.Sprintf("the trace states no cycle frequency (cycleFrequencyMHz), and its events imply %v MHz (the event at line %d: %d cycles in %s µs), which is not a system-counter frequency (%v to %v MHz)",
			mhz, f.bestAt.Line, f.bestCycles, strconv.FormatFloat(f.bestDur, 'f', -1, 64), MinFrequencyMHz, MaxFrequencyMHz), f.bestAt)
		return
	}
	s.FrequencyMHz, s.FromEvents = mhz, true
	s.Notes = append(s.Notes, how)
}
