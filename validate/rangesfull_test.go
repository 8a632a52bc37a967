package validate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rangesFull keeps, per code, the lowest range marked full, and says a
// range is after a full one only when a lower range was marked; a serial
// walk (nil) never is.
func TestRangesFull(t *testing.T) {
	r := newRangesFull()
	r.markFull(idxOverlap, 3)
	r.markFull(idxOverlap, 5) // a later range changes nothing
	for rng, want := range []bool{false, false, false, false, true, true} {
		assert.Equalf(t, want, r.fullBefore(idxOverlap, rng), "range %d after a full one", rng)
	}
	assert.False(t, r.fullBefore(idxBeforeEntry, 7), "a code no range filled is full")
	r.markFull(idxOverlap, 1)
	require.False(t, r.fullBefore(idxOverlap, 1), "marking range 1 full did not lower the full range to 1")
	assert.True(t, r.fullBefore(idxOverlap, 2), "marking range 1 full did not lower the full range to 1")
	var serial rangesFull
	serial.markFull(idxOverlap, 0)
	assert.False(t, serial.fullBefore(idxOverlap, 1), "a serial walk has ranges")
}
