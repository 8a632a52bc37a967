package chromejson

import (
	"math/big"
	"math/bits"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// clock turns cycle counts into trace microseconds: plain decimals with at
// most three fractional digits (nanosecond resolution), trailing zeros
// trimmed, never exponent notation. Perfetto's JSON number parser misreads
// long fractions and exponents, so neither is ever written.
//
// When the frequency is a whole number of hertz (every SoC in the schema,
// and any --freq-mhz with at most six decimals) the nanoseconds are exact:
// ns = round(cycles * 1e9 / hz), computed in 128-bit integer arithmetic.
// Otherwise microseconds are cycles / MHz in float64, rounded to three
// decimals.
type clock struct {
	mhz float64
	hz  uint64 // 0 when the frequency is not a whole number of hertz
	// nsPerCycle is 1e9/hz when that divides exactly (50 MHz: 20 ns),
	// else 0: the common case is then one multiplication.
	nsPerCycle uint64
}

// newClock returns the clock of a frequency in MHz, which must be
// positive and finite (the caller checks).
func newClock(mhz float64) clock {
	c := clock{mhz: mhz}
	if hz, ok := render.WholeHz(mhz); ok {
		c.hz = hz
		if 1_000_000_000%hz == 0 {
			c.nsPerCycle = 1_000_000_000 / hz
		}
	}
	return c
}

// appendMicros appends the duration of cycles cycles in microseconds.
func (c *clock) appendMicros(dst []byte, cycles uint64) []byte {
	if c.nsPerCycle != 0 {
		hi, ns := bits.Mul64(cycles, c.nsPerCycle)
		if hi == 0 {
			return appendNanosAsMicros(dst, ns)
		}
		return appendBigNanosAsMicros(dst, hi, ns)
	}
	if c.hz != 0 {
		// round(cycles*1e9/hz) = (cycles*1e9 + hz/2) / hz, in 128 bits.
		hi, lo := bits.Mul64(cycles, 1_000_000_000)
		var carry uint64
		lo, carry = bits.Add64(lo, c.hz/2, 0)
		hi += carry
		// Divide the 128-bit numerator in two steps so that each
		// bits.Div64 has its high word below the divisor.
		qhi, r := hi/c.hz, hi%c.hz
		qlo, _ := bits.Div64(r, lo, c.hz)
		if qhi == 0 {
			return appendNanosAsMicros(dst, qlo)
		}
		return appendBigNanosAsMicros(dst, qhi, qlo)
	}
	us := float64(cycles) / c.mhz
	return appendFloatMicros(dst, us)
}

// appendSignedMicros appends (a - b) cycles in microseconds, negative when
// a < b (a record that starts before the anchor).
func (c *clock) appendSignedMicros(dst []byte, a, b uint64) []byte {
	if a >= b {
		return c.appendMicros(dst, a-b)
	}
	n := len(dst)
	dst = c.appendMicros(append(dst, '-'), b-a)
	if len(dst) == n+2 && dst[n+1] == '0' {
		// Rounded to zero: write 0, not -0.
		dst[n] = '0'
		dst = dst[:n+1]
	}
	return dst
}

// maxExactNanos bounds the nanosecond counts appendSpan adjusts: below
// 2^53 a count and its microseconds/1000 are exact and correctly rounded
// float64s, so the check it makes is the viewer's own arithmetic. A trace
// reaches it after 104 days.
const maxExactNanos = 1 << 53

// appendSpan appends a record's ts (start - anchor), then sep, then its
// dur (end - start), both in microseconds.
//
// A viewer adds ts and dur as IEEE doubles to find where a slice ends, and
// drops a slice that ends past the start of the next one on its thread
// (Chrome DevTools' trace engine does). Printed independently, the two
// rounded decimals can add up to more than the end's own timestamp:
// 64471.58 + 0.16 = 64471.740000000005 > 64471.74. So dur is the largest
// value of at most three decimals, no larger than the duration rounded on
// its own, whose double sum with ts does not exceed the end's timestamp as
// a double: a record that ends where the next starts (or before) stays so
// in the viewer. It is at most one or two nanoseconds short of the
// duration rounded on its own, and equal to it in the common case.
func (c *clock) appendSpan(dst []byte, start, end, anchor uint64, sep *key) []byte {
	ts, dur, ok := c.span(start, end, anchor)
	if !ok {
		// Out of the exact range (or an invalid record, which decode
		// refuses before it gets here): printed as rounded on their own.
		dst = c.appendSignedMicros(dst, start, anchor)
		dst = sep.put(dst)
		return c.appendMicros(dst, end-start)
	}
	if ts < 0 {
		// A count that rounds to zero is 0 here, so never "-0".
		dst = appendNanosAsMicros(append(dst, '-'), uint64(-ts))
	} else {
		dst = appendNanosAsMicros(dst, uint64(ts))
	}
	dst = sep.put(dst)
	return appendNanosAsMicros(dst, uint64(dur))
}

// span returns the ts and dur, in nanoseconds, that appendSpan prints for
// a record from start to end; false when they are out of its exact range
// and appendSpan prints them rounded on their own.
func (c *clock) span(start, end, anchor uint64) (ts, dur int64, ok bool) {
	ts, tsOK := c.signedNanos(start, anchor)
	te, teOK := c.signedNanos(end, anchor)
	dur, durOK := c.nanos(end - start)
	if !tsOK || !teOK || !durOK || end < start {
		return 0, 0, false
	}
	end64 := float64(te) / 1000
	for dur > 0 && float64(ts)/1000+float64(dur)/1000 > end64 {
		dur--
	}
	return ts, dur, true
}

// nanos returns the nanoseconds of cycles cycles as appendMicros prints
// them, when they are below maxExactNanos.
func (c *clock) nanos(cycles uint64) (int64, bool) {
	switch {
	case c.nsPerCycle != 0:
		hi, ns := bits.Mul64(cycles, c.nsPerCycle)
		return int64(ns), hi == 0 && ns < maxExactNanos
	case c.hz != 0:
		hi, lo := bits.Mul64(cycles, 1_000_000_000)
		var carry uint64
		lo, carry = bits.Add64(lo, c.hz/2, 0)
		hi += carry
		if hi >= c.hz {
			return 0, false
		}
		ns, _ := bits.Div64(hi, lo, c.hz)
		return int64(ns), ns < maxExactNanos
	}
	// The float path: the digits appendFloatMicros prints, as an integer.
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], float64(cycles)/c.mhz, 'f', 3, 64)
	var ns uint64
	for _, ch := range b {
		if ch == '.' {
			continue
		}
		if ns >= maxExactNanos/10 {
			return 0, false
		}
		ns = ns*10 + uint64(ch-'0')
	}
	return int64(ns), true
}

// signedNanos returns the nanoseconds of a - b cycles, negative when
// a < b, as appendSignedMicros prints them.
func (c *clock) signedNanos(a, b uint64) (int64, bool) {
	if a >= b {
		return c.nanos(a - b)
	}
	ns, ok := c.nanos(b - a)
	return -ns, ok
}

// appendNanosAsMicros appends ns/1000 with up to three decimals, trailing
// zeros trimmed.
func appendNanosAsMicros(dst []byte, ns uint64) []byte {
	dst = jsontext.AppendUint(dst, ns/1000)
	return appendMilliFraction(dst, ns%1000)
}

// appendMilliFraction appends ".ddd" for frac in [1, 999], trailing zeros
// trimmed; nothing for 0.
func appendMilliFraction(dst []byte, frac uint64) []byte {
	f := &milliFractions[frac]
	dst = slices.Grow(dst, len(f.text))
	l := len(dst)
	*(*[4]byte)(dst[l : l+4]) = f.text
	return dst[:l+int(f.n)]
}

// milliFractions holds what appendMilliFraction appends for each frac:
// one 4-byte store, its digits computed once.
var milliFractions = func() (t [1000]struct {
	text [4]byte
	n    uint8
}) {
	for frac := 1; frac < len(t); frac++ {
		d := []byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for d[len(d)-1] == '0' {
			d = d[:len(d)-1]
		}
		t[frac].n = uint8(copy(t[frac].text[:], d))
	}
	return t
}()

// appendBigNanosAsMicros handles nanosecond counts past 2^64 (cycle counts
// near 2^64 at low frequencies); no real capture gets here.
func appendBigNanosAsMicros(dst []byte, hi, lo uint64) []byte {
	ns := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	ns.Or(ns, new(big.Int).SetUint64(lo))
	us, frac := new(big.Int).QuoRem(ns, big.NewInt(1000), new(big.Int))
	dst = us.Append(dst, 10)
	return appendMilliFraction(dst, frac.Uint64())
}

// appendFloatMicros appends a non-negative float with at most three
// decimals, trailing zeros trimmed; 'f' formatting never uses an exponent.
func appendFloatMicros(dst []byte, us float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, us, 'f', 3, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if len(dst) == n {
		dst = append(dst, '0')
	}
	return dst
}
