package export

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNsExact: export's start_ns and end_ns are d·1000/f ns rounded to the
// nearest (half away from zero) in exact arithmetic, checked against
// big.Rat near 2^53 cycles from the anchor (where float64 was 20 ns off),
// near the int64 limit, and at frequencies whose 1000/f fits 64 bits and
// ones whose does not (0.001 MHz, 1.1 MHz); past int64 is out of range,
// -2^63 is not.
func TestNsExact(t *testing.T) {
	want := func(d uint64, neg bool, mhz float64) (int64, bool) {
		f := new(big.Rat).SetFloat64(mhz)
		r := new(big.Rat).Quo(new(big.Rat).SetUint64(d), f)
		r.Mul(r, big.NewRat(1000, 1))
		q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
		if rem.Lsh(rem, 1).Cmp(r.Denom()) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if neg {
			q.Neg(q)
		}
		if !q.IsInt64() {
			return 0, false
		}
		return q.Int64(), true
	}
	ds := []uint64{0, 1, 2, 3, 7, 1e9, math.MaxUint64, math.MaxUint64 / 1000}
	for _, c := range []uint64{1 << 53, 1 << 62, 1 << 63, 461168601842738790, 9223372036854775} {
		for k := -3; k <= 3; k++ {
			ds = append(ds, c+uint64(k))
		}
	}
	for _, mhz := range []float64{50, 1000, 1800, 1.1, 0.001, 3, 1e6, 24.576} {
		s := newNsScale(mhz)
		for _, d := range ds {
			for _, neg := range []bool{false, true} {
				got, ok := s.ns(d, neg)
				w, wok := want(d, neg, mhz)
				assert.Equalf(t, w, got, "%v MHz, %d cycles (negative %v)", mhz, d, neg)
				assert.Equalf(t, wok, ok, "%v MHz, %d cycles (negative %v)", mhz, d, neg)
			}
		}
	}
	got, ok := newNsScale(50).ns(1<<53+1, false)
	assert.Equal(t, int64((1<<53+1)*20), got, "2^53+1 cycles at 50 MHz")
	assert.True(t, ok, "2^53+1 cycles at 50 MHz")
	got, ok = newNsScale(1000).ns(1<<63, true)
	assert.Equal(t, int64(math.MinInt64), got, "2^63 cycles at 1000 MHz")
	assert.True(t, ok, "2^63 cycles at 1000 MHz")
}
