package decode

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
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
	if hz, ok := wholeHz(mhz); ok {
		c.hz = hz
		if 1_000_000_000%hz == 0 {
			c.nsPerCycle = 1_000_000_000 / hz
		}
	}
	return c
}

// wholeHz returns mhz in hertz when that is a whole number, reading mhz as
// the shortest decimal that round-trips (so 1.1 MHz is 1,100,000 Hz, not
// the binary float's 1,100,000.0000000002).
func wholeHz(mhz float64) (uint64, bool) {
	if !(mhz > 0) || math.IsInf(mhz, 0) {
		return 0, false
	}
	s := strconv.FormatFloat(mhz, 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 6 {
		return 0, false
	}
	digits := whole + frac + strings.Repeat("0", 6-len(frac))
	hz, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || hz == 0 {
		return 0, false
	}
	return hz, true
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

// appendNanosAsMicros appends ns/1000 with up to three decimals, trailing
// zeros trimmed.
func appendNanosAsMicros(dst []byte, ns uint64) []byte {
	dst = strconv.AppendUint(dst, ns/1000, 10)
	return appendMilliFraction(dst, ns%1000)
}

// appendMilliFraction appends ".ddd" for frac in [1, 999], trailing zeros
// trimmed; nothing for 0.
func appendMilliFraction(dst []byte, frac uint64) []byte {
	if frac == 0 {
		return dst
	}
	d := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 4
	for d[n-1] == '0' {
		n--
	}
	return append(dst, d[:n]...)
}

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

// appendMHz appends a frequency the way the reference decoder's JSON shows
// a Python float: shortest round-trip decimal, ".0" when whole, no exponent.
func appendMHz(dst []byte, mhz float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, mhz, 'f', -1, 64)
	for _, ch := range dst[n:] {
		if ch == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}
