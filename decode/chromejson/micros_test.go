package chromejson

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/megakernel/cycleabi/decode/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMicros(t *testing.T) {
	for _, tc := range []struct {
		mhz    float64
		cycles uint64
		want   string
	}{
		{50, 0, "0"},
		{50, 1, "0.02"},
		{50, 50, "1"},
		{50, 51, "1.02"},
		{50, 123456789, "2469135.78"},
		{50, math.MaxUint64, "368934881474191032.3"}, // past 2^64 ns
		{1000, 1, "0.001"},
		{1000, 1500, "1.5"},
		{1000, math.MaxUint64, "18446744073709551.615"},
		{1.1, 1, "0.909"}, // 909.09 ns; 1.1 MHz read as 1,100,000 Hz exactly
		{1.1, 11, "10"},   // exactly 10 µs, no binary-float residue
		{3, 1, "0.333"},   // 333.33 ns
		{3, 2, "0.667"},   // 666.67 ns rounds up
		{16, 1, "0.063"},  // 62.5 ns rounds half up
		{3000, 1, "0"},    // 0.33 ns
		{0.000001, 1, "1000000"},
		{0.000001, math.MaxUint64, "18446744073709551615000000"},
		{0.0000001, 1, "10000000"},    // 0.1 Hz: not whole, float path
		{0.0000003, 1, "3333333.333"}, // float path, three decimals
		{1.0 / 3, 1, "3"},             // float path
	} {
		c := newClock(tc.mhz)
		assert.Equalf(t, tc.want, string(c.appendMicros(nil, tc.cycles)), "%v MHz, %d cycles", tc.mhz, tc.cycles)
	}
}

func TestMicrosNoExponent(t *testing.T) {
	c := newClock(1e-300)
	got := string(c.appendMicros(nil, 1))
	assert.Falsef(t, strings.ContainsAny(got, "eE+-."), "1 cycle at 1e-300 MHz: got %s, want 300 plain digits", got)
	assert.GreaterOrEqualf(t, len(got), 300, "1 cycle at 1e-300 MHz: got %s, want 300 plain digits", got)
}

func TestSignedMicros(t *testing.T) {
	for _, tc := range []struct {
		mhz  float64
		a, b uint64
		want string
	}{
		{50, 150, 100, "1"},
		{50, 100, 150, "-1"},
		{50, 100, 101, "-0.02"},
		{3000, 100, 101, "0"}, // rounds to zero: no "-0"
		{1.0 / 3, 100, 101, "-3"},
		{0.0000003, 0, 1, "-3333333.333"},
	} {
		c := newClock(tc.mhz)
		assert.Equalf(t, "x"+tc.want, string(c.appendSignedMicros([]byte("x"), tc.a, tc.b)), "%v MHz, %d - %d cycles:, want x%s", tc.mhz, tc.a, tc.b, tc.want)
	}
}

// The integer path equals exact rational arithmetic rounded half up.
func TestMicrosExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		hz := rapid.Uint64Range(1, 1e13).Draw(t, "hz")
		cycles := rapid.Uint64().Draw(t, "cycles")
		mhz := float64(hz) / 1e6
		c := newClock(mhz)
		got, ok := render.WholeHz(mhz)
		if !ok || got != hz {
			// Not every hz survives the trip through a float64 MHz.
			t.Skip("hz not representable")
		}
		ns := new(big.Int).Mul(new(big.Int).SetUint64(cycles), big.NewInt(1e9))
		ns.Add(ns, new(big.Int).SetUint64(hz/2))
		ns.Quo(ns, new(big.Int).SetUint64(hz))
		us, frac := new(big.Int).QuoRem(ns, big.NewInt(1000), new(big.Int))
		want := us.String()
		if f := frac.Int64(); f != 0 {
			want += strings.TrimRight("."+strings.Repeat("0", 3-len(frac.String()))+frac.String(), "0")
		}
		require.Equalf(t, want, string(c.appendMicros(nil, cycles)), "%d Hz, %d cycles", hz, cycles)
	})
}

// A frequency past uint64 hertz (render.WholeHz) takes the float path.
func TestClockPastUint64Hz(t *testing.T) {
	c := newClock(1e20)
	assert.Equal(t, "0.1", string(c.appendMicros(nil, 1e19)), "1e20 MHz")
}

// exactMicros is (a - b) cycles at mhz in microseconds, as an exact
// rational: the reference the printed decimals are held to. The
// frequency is read as the shortest decimal that gives mhz, as the clock
// reads it (1.1 MHz is 1,100,000 Hz).
func exactMicros(a, b uint64, mhz float64) *big.Rat {
	d := new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)))
	f, _ := new(big.Rat).SetString(strconv.FormatFloat(mhz, 'f', -1, 64))
	return d.Quo(d, f)
}

// space separates ts and dur in the tests of appendSpan.
var space = newKey(" ")

// A record that ends where the next record of its core starts (or before)
// must end there or before in a viewer that adds ts and dur as doubles;
// dur stays a decimal of at most three places within 2.5 ns of the exact
// duration, and ts is the start rounded on its own. The guarantee holds
// while the trace is shorter than 2^53 ns (104 days).
func TestSpanBackToBack(t *testing.T) {
	rapid.Check(t, propSpanBackToBack)
}

func propSpanBackToBack(t *rapid.T) {
	mhz := rapid.OneOf(
		rapid.SampledFrom([]float64{50, 1000, 3, 1.1, 19.2, 24, 100, 7.3, 1800, 1.0 / 3, 0.7}),
		rapid.Map(rapid.Uint64Range(1_000_000, 5_000_000_000), func(hz uint64) float64 { return float64(hz) / 1e6 }),
	).Draw(t, "mhz")
	c := newClock(mhz)
	// Cycle counts whose nanoseconds stay below 2^53, from any anchor.
	maxDelta := uint64(float64(maxExactNanos) / 1000 * mhz / 4)
	anchor := rapid.Uint64Range(maxDelta, math.MaxUint64-maxDelta).Draw(t, "anchor")
	cycle := anchor - rapid.Uint64Range(0, maxDelta/4).Draw(t, "before")
	n := rapid.IntRange(2, 40).Draw(t, "records")
	type printed struct{ ts, dur string }
	var spans []printed
	var bounds []uint64
	for range n {
		start := cycle
		end := start + rapid.OneOf(rapid.Uint64Range(0, 100), rapid.Uint64Range(0, maxDelta/(4*uint64(n)))).Draw(t, "dur")
		cycle = end + rapid.SampledFrom([]uint64{0, 0, 0, 1, 7}).Draw(t, "gap")
		b := string(c.appendSpan(nil, start, end, anchor, &space))
		ts, dur, _ := strings.Cut(b, " ")
		spans = append(spans, printed{ts, dur})
		bounds = append(bounds, start, end)
	}
	for i, s := range spans {
		start, end := bounds[2*i], bounds[2*i+1]
		require.Equalf(t, string(c.appendSignedMicros(nil, start, anchor)), s.ts, "record %d: ts", i)
		_, frac, ok := strings.Cut(s.dur, ".")
		require.Falsef(t, strings.ContainsAny(s.dur, "-eE"), "record %d: dur %s is not a plain decimal of at most three places", i, s.dur)
		require.Falsef(t, ok && (len(frac) > 3 || strings.HasSuffix(frac, "0")), "record %d: dur %s is not a plain decimal of at most three places", i, s.dur)
		dur, ok := new(big.Rat).SetString(s.dur)
		require.Truef(t, ok, "record %d: dur %q", i, s.dur)
		diff := new(big.Rat).Sub(dur, exactMicros(end, start, mhz))
		f, _ := diff.Float64()
		require.LessOrEqualf(t, f, 0.0005+1e-12, "record %d: dur %s", i, s.dur)
		require.GreaterOrEqualf(t, f, -0.0025-1e-12, "record %d: dur %s", i, s.dur)
		if i+1 == len(spans) {
			continue
		}
		ts, _ := strconv.ParseFloat(s.ts, 64)
		d, _ := strconv.ParseFloat(s.dur, 64)
		next, _ := strconv.ParseFloat(spans[i+1].ts, 64)
		require.LessOrEqualf(t, ts+d, next, "record %d: ts %s + dur %s passes the next record's ts %s (end %d, next start %d)", i, s.ts, s.dur, spans[i+1].ts, end, bounds[2*i+2])
	}
}

// The example of the report: 64471.58 + 0.16 passes 64471.74 as doubles.
func TestSpanExample(t *testing.T) {
	c := newClock(50)
	// ts 64471.58 µs = 3223579 cycles at 50 MHz; dur 0.16 µs = 8 cycles.
	got := string(c.appendSpan(nil, 3223579, 3223587, 0, &space))
	assert.Equal(t, "64471.58 0.159", got)
	assert.Equal(t, "64471.74 0.16", string(c.appendSpan(nil, 3223587, 3223595, 0, &space)))
}
