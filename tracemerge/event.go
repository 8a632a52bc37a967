package tracemerge

import (
	"bytes"
	"io"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// member is one top-level member of an event object.
type member = jsonread.Field

// members lists the members of an object read (and checked) by
// jsonread.Reader. It reports false when raw is not an object.
func members(raw []byte, dst []member) ([]member, bool) { return jsonread.Fields(raw, dst) }

// get returns the value of key, nil when absent; of a repeated key, the
// last value, as Python's json module and encoding/json read it.
func get(ms []member, key string) []byte {
	for i := len(ms) - 1; i >= 0; i-- {
		if string(ms[i].Key) == key {
			return ms[i].Value
		}
	}
	return nil
}

// decimal is an exact decimal number: m × 10^-scale. Trace times are
// decimal text (microseconds, often with a fraction, CANN's as strings of
// 19 digits); a float64 would round them, so placement is computed in
// exact integer arithmetic on the digits.
type decimal struct {
	m     big.Int
	scale int
}

// maxScale bounds the fractional digits (and exponents) accepted, so a
// time like 1e-999999 cannot make a huge integer.
const maxScale = 64

// timeStatus says why a time could not be read.
type timeStatus int

const (
	timeOK timeStatus = iota
	timeNonFinite
	timeNotNumber
)

// parseTime reads a ts or dur value: a JSON number or a string holding a
// decimal number. It reports timeNonFinite for NaN and infinities
// (literals Python writes, or strings like "inf") and for numbers too
// large for a float64.
func parseTime(v []byte, d *decimal) timeStatus {
	quoted := false
	if len(v) >= 2 && v[0] == '"' {
		s, ok := jsonread.Unquote(v)
		if !ok {
			return timeNotNumber
		}
		v = []byte(strings.TrimSpace(s))
		quoted = true
	}
	switch strings.ToLower(strings.TrimLeft(string(v), "+-")) {
	case "nan", "inf", "infinity":
		return timeNonFinite
	}
	if quoted && len(v) > 0 && v[0] == '+' {
		v = v[1:]
	}
	if !jsonread.IsNumber(v) && !(quoted && isLooseDecimal(v)) {
		return timeNotNumber
	}
	return parseDecimal(v, d)
}

// isLooseDecimal accepts what JSON's number grammar refuses but a string
// time may hold: leading zeros, "5." and ".5".
func isLooseDecimal(v []byte) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := 0
	for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
		digits++
	}
	if i < len(v) && v[i] == '.' {
		i++
		for ; i < len(v) && '0' <= v[i] && v[i] <= '9'; i++ {
			digits++
		}
	}
	return digits > 0 && i == len(v)
}

// parseDecimal parses a checked number: sign, digits, fraction, exponent.
func parseDecimal(v []byte, d *decimal) timeStatus {
	neg := false
	if len(v) > 0 && v[0] == '-' {
		neg = true
		v = v[1:]
	}
	mant, exp := v, 0
	if e := bytes.IndexAny(v, "eE"); e >= 0 {
		mant = v[:e]
		x := 0
		es := v[e+1:]
		eneg := false
		if len(es) > 0 && (es[0] == '+' || es[0] == '-') {
			eneg = es[0] == '-'
			es = es[1:]
		}
		for _, c := range es {
			x = x*10 + int(c-'0')
			if x > 400 {
				break
			}
		}
		if eneg {
			x = -x
		}
		exp = x
	}
	whole, frac, _ := bytes.Cut(mant, []byte("."))
	digits := strings.TrimLeft(string(whole)+string(frac), "0")
	scale := len(frac) - exp
	// Past a float64's range the time is not finite for any reader.
	if len(digits) > 0 && len(digits)-scale > 309 {
		return timeNonFinite
	}
	if digits == "" {
		d.m.SetInt64(0)
		d.scale = 0
		return timeOK
	}
	if scale > maxScale {
		return timeNotNumber
	}
	d.m.SetString(digits, 10)
	if scale < 0 {
		d.m.Mul(&d.m, pow10(-scale))
		scale = 0
	}
	if neg {
		d.m.Neg(&d.m)
	}
	d.scale = scale
	return timeOK
}

var pow10s [maxScale + 1]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range pow10s {
		pow10s[i] = new(big.Int).Set(p)
		p.Mul(p, big.NewInt(10))
	}
}

func pow10(n int) *big.Int {
	if n <= maxScale {
		return pow10s[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// at returns d's mantissa at a larger scale s (d × 10^s as an integer).
func (d *decimal) at(s int, dst *big.Int) *big.Int {
	return dst.Mul(&d.m, pow10(s-d.scale))
}

func (d *decimal) set(x *decimal) *decimal {
	d.m.Set(&x.m)
	d.scale = x.scale
	return d
}

// cmp compares d and x exactly.
func (d *decimal) cmp(x *decimal) int {
	s := max(d.scale, x.scale)
	var a, b big.Int
	return d.at(s, &a).Cmp(x.at(s, &b))
}

// add sets d = x + y.
func (d *decimal) add(x, y *decimal) *decimal {
	s := max(x.scale, y.scale)
	var a, b big.Int
	d.m.Add(x.at(s, &a), y.at(s, &b))
	d.scale = s
	return d
}

// sub sets d = x - y.
func (d *decimal) sub(x, y *decimal) *decimal {
	s := max(x.scale, y.scale)
	var a, b big.Int
	d.m.Sub(x.at(s, &a), y.at(s, &b))
	d.scale = s
	return d
}

func (d *decimal) sign() int { return d.m.Sign() }

// append writes d as plain decimal text (no exponent), trailing
// fractional zeros trimmed.
func (d *decimal) append(dst []byte) []byte {
	var abs big.Int
	abs.Abs(&d.m)
	digits := abs.Text(10)
	if d.m.Sign() < 0 {
		dst = append(dst, '-')
	}
	if d.scale == 0 {
		return append(dst, digits...)
	}
	if len(digits) <= d.scale {
		digits = strings.Repeat("0", d.scale-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-d.scale], strings.TrimRight(digits[len(digits)-d.scale:], "0")
	dst = append(dst, whole...)
	if frac != "" {
		dst = append(dst, '.')
		dst = append(dst, frac...)
	}
	return dst
}

func (d *decimal) String() string { return string(d.append(nil)) }

// fixUTF8 returns b with every byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json and decode's JSON writer replace
// them, in dst's storage. Such bytes can only be inside strings (the
// reader refuses them elsewhere), where U+FFFD is valid JSON.
func fixUTF8(dst, b []byte) []byte {
	dst = dst[:0]
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

// utf8Writer passes bytes through fixUTF8, holding back a sequence cut
// by the end of one write until the next (or flush).
type utf8Writer struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

func (u *utf8Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(u.pending) > 0 {
		p = append(u.pending, p...)
		u.pending = nil
	}
	// Hold back an incomplete sequence at the end (at most 3 bytes).
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-3; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	u.pending = append(u.pending, p[cut:]...)
	u.buf = fixUTF8(u.buf, p[:cut])
	_, err := u.w.Write(u.buf)
	return n, err
}

// flush writes what was held back (an incomplete sequence: replaced).
func (u *utf8Writer) flush() error {
	if len(u.pending) == 0 {
		return nil
	}
	u.buf = fixUTF8(u.buf, u.pending)
	u.pending = nil
	_, err := u.w.Write(u.buf)
	return err
}
