package report

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The Waits chart of the example: 35,000 µs on a 250 px axis. Every
// 5,000 µs (36 px apart) the labels "10,000", "15,000" ran into each
// other; every 10,000 they have room.
func TestTickStepExample(t *testing.T) {
	assert.Equal(t, 10000.0, tickStep(250, 35000), "tickStep(250, 35000)")
	// "80" is narrow: 8 intervals
	assert.Equal(t, 10.0, tickStep(250, 80), "tickStep(250, 80)")
	// 30 px cannot hold "100,000": the step passes the end, and only 0
	// is labelled.
	assert.Equal(t, 200000.0, tickStep(30, 1e5), "tickStep(30, 1e5)")
}

// sansWidth is the advance of a tick label at 10 px in the metrics of
// Arial and Liberation Sans (digits 0.556 em, comma and period 0.278 em,
// minus 0.584 em), the fonts the page's system-ui falls back to.
func sansWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			w += 5.56
		case r == '-':
			w += 5.84
		default:
			w += 2.78
		}
	}
	return w
}

// propTicksFit: on any axis, the ticks are 0, step, 2·step, ... up to
// max, the step 1, 2 or 5 × 10^k, and no two centred labels come within
// 2 px of each other in real font metrics; nor is the step coarser than
// it must be (the next finer one would crowd them, or was already about
// 8 intervals).
func TestPropTicksFit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := math.Pow(10, rapid.Float64Range(-3, 10).Draw(t, "log10max"))
		w := rapid.Float64Range(40, 1200).Draw(t, "width")
		step := tickStep(w, max)
		p := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		m := math.Round(step / p)
		require.Falsef(t, m != 1 && m != 2 && m != 5, "step %v is not 1, 2 or 5 × 10^k", step)
		require.LessOrEqualf(t, math.Abs(step/p-m), 1e-9, "step %v is not 1, 2 or 5 × 10^k", step)
		var prevRight float64 = math.Inf(-1)
		for v := 0.0; v <= max*1.0000001; v += step {
			x := w * v / max
			lw := sansWidth(tickLabel(v, step))
			require.GreaterOrEqualf(t, x-lw/2, prevRight+2, "max %v on %v px, step %v: label %q at %.1f px runs into the one before", max, w, step, tickLabel(v, step), x)
			prevRight = x + lw/2
		}
		if finer := niceStep(max, 8); step > finer {
			// The step before this one was refused: its labels, in the
			// code's bound, would not fit.
			prev := finer
			for nextStep(prev) < step*0.999 {
				prev = nextStep(prev)
			}
			last := math.Floor(max*1.0000001/prev) * prev
			require.Lessf(t, w*prev/max, float64(len(tickLabel(last, prev)))*tickCharW+tickGap, "max %v on %v px: step %v, but %v fits", max, w, step, prev)
		}
	})
}
