package validate

import "testing"

// rangesFull keeps, per code, the lowest range marked full, and says a
// range is after a full one only when a lower range was marked; a serial
// walk (nil) never is.
func TestRangesFull(t *testing.T) {
	r := newRangesFull()
	r.markFull(idxOverlap, 3)
	r.markFull(idxOverlap, 5) // a later range changes nothing
	for rng, want := range []bool{false, false, false, false, true, true} {
		if got := r.fullBefore(idxOverlap, rng); got != want {
			t.Errorf("range %d after a full one: %v, want %v (range 3 full)", rng, got, want)
		}
	}
	if r.fullBefore(idxBeforeEntry, 7) {
		t.Error("a code no range filled is full")
	}
	r.markFull(idxOverlap, 1)
	if r.fullBefore(idxOverlap, 1) || !r.fullBefore(idxOverlap, 2) {
		t.Error("marking range 1 full did not lower the full range to 1")
	}
	var serial rangesFull
	serial.markFull(idxOverlap, 0)
	if serial.fullBefore(idxOverlap, 1) {
		t.Error("a serial walk has ranges")
	}
}
