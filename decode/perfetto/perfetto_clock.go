package perfetto

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/megakernel/cycleabi/decode/render"
)

// nsClock turns cycle counts into whole nanoseconds, rounded once, half
// up: round(cycles × 1000 / MHz), in integer arithmetic. A whole number
// of hertz (every SoC in the schema) takes 128-bit arithmetic; any other
// frequency is read as the shortest decimal that round-trips (1.1 MHz is
// 11/10 MHz, as the JSON writer reads it) and takes math/big.
type nsClock struct {
	nsPerCycle uint64 // 1e9/hz when that divides exactly, else 0
	hz         uint64 // whole hertz, else 0
	num, den   *big.Int
}

func newNsClock(mhz float64) nsClock {
	if hz, ok := render.WholeHz(mhz); ok {
		c := nsClock{hz: hz}
		if 1_000_000_000%hz == 0 {
			c.nsPerCycle = 1_000_000_000 / hz
		}
		return c
	}
	// mhz is positive and finite (Config.check), so it parses.
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(mhz, 'f', -1, 64))
	// ns = cycles × 1000 / (p/q) = cycles × 1000q / p.
	return nsClock{num: new(big.Int).Mul(r.Denom(), big.NewInt(1000)), den: new(big.Int).Set(r.Num())}
}

// ns returns the nanoseconds of cycles cycles; ok is false past maxTraceNs.
func (c *nsClock) ns(cycles uint64) (ns uint64, ok bool) {
	switch {
	case c.nsPerCycle != 0:
		hi, lo := bits.Mul64(cycles, c.nsPerCycle)
		return lo, hi == 0 && lo <= maxTraceNs
	case c.hz != 0:
		// (cycles×1e9 + hz/2) / hz, in 128 bits.
		hi, lo := bits.Mul64(cycles, 1_000_000_000)
		var carry uint64
		lo, carry = bits.Add64(lo, c.hz/2, 0)
		hi += carry
		if hi >= c.hz {
			return 0, false // the quotient needs more than 64 bits
		}
		q, _ := bits.Div64(hi, lo, c.hz)
		return q, q <= maxTraceNs
	}
	// (2·cycles·num + den) / (2·den)
	x := new(big.Int).SetUint64(cycles)
	x.Mul(x, c.num).Lsh(x, 1).Add(x, c.den)
	x.Quo(x, new(big.Int).Lsh(c.den, 1))
	if !x.IsUint64() || x.Uint64() > maxTraceNs {
		return 0, false
	}
	return x.Uint64(), true
}

// at returns the timestamp of cycle: offset plus the nanoseconds from
// anchor to cycle, a distance before the anchor rounded as its magnitude
// (as the JSON writer rounds a negative ts). ok is false when the result
// is negative or past maxTraceNs.
func (c *nsClock) at(cycle, anchor, offset uint64) (uint64, bool) {
	if cycle >= anchor {
		n, ok := c.ns(cycle - anchor)
		if !ok || n > maxTraceNs-offset {
			return 0, false
		}
		return offset + n, true
	}
	n, ok := c.ns(anchor - cycle)
	if !ok || n > offset {
		return 0, false
	}
	return offset - n, true
}
