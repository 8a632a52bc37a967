package render

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWholeHz(t *testing.T) {
	for _, tc := range []struct {
		mhz float64
		hz  uint64
		ok  bool
	}{
		{50, 50_000_000, true},
		{1.1, 1_100_000, true},
		{0.000001, 1, true},
		{0.0000001, 0, false},
		{1.0 / 3, 0, false},
		{0, 0, false},
		{-5, 0, false},
		{math.Inf(1), 0, false},
		{math.NaN(), 0, false},
		{1e20, 0, false}, // 1e26 Hz overflows uint64
	} {
		hz, ok := WholeHz(tc.mhz)
		assert.Equalf(t, tc.hz, hz, "WholeHz(%v)", tc.mhz)
		assert.Equalf(t, tc.ok, ok, "WholeHz(%v)", tc.mhz)
	}
}
