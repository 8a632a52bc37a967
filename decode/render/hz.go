package render

import (
	"math"
	"strconv"
	"strings"
)

// WholeHz returns mhz in hertz when that is a whole number, reading mhz as
// the shortest decimal that round-trips (so 1.1 MHz is 1,100,000 Hz, not
// the binary float's 1,100,000.0000000002). Both writers' clocks are
// exact integer arithmetic at such a frequency (decode/chromejson's
// microseconds, decode/perfetto's nanoseconds).
func WholeHz(mhz float64) (uint64, bool) {
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
