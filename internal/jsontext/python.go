package jsontext

import (
	"math"
	"strconv"
)

// AppendPyFloat appends f as Python's repr writes a float: the shortest
// digits that read back as f, in fixed notation with ".0" when whole while
// the decimal exponent is in [-4, 16), else as d.ddde±XX; inf, -inf, nan
// for the values JSON has no number for (json.dumps writes those as
// Infinity, -Infinity and NaN: AppendPyJSONFloat).
func AppendPyFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	at := len(e) - 1
	for e[at] != 'e' {
		at--
	}
	x, _ := strconv.Atoi(string(e[at+1:]))
	var dig [24]byte
	digits := append(dig[:0], e[0])
	if at > 1 {
		digits = append(digits, e[2:at]...)
	}
	if x < -4 || x >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if x < 0 {
			dst, x = append(dst, '-'), -x
		} else {
			dst = append(dst, '+')
		}
		if x < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(x), 10)
	}
	switch {
	case x < 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -x-1; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	case x+1 >= len(digits):
		dst = append(dst, digits...)
		for i := 0; i < x+1-len(digits); i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, '.', '0')
	default:
		dst = append(dst, digits[:x+1]...)
		dst = append(dst, '.')
		dst = append(dst, digits[x+1:]...)
	}
	return dst
}

// AppendPyJSONFloat appends f as Python's json.dumps writes a float:
// its repr, with Infinity, -Infinity and NaN for the values JSON has no
// number for.
func AppendPyJSONFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	}
	return AppendPyFloat(dst, f)
}

// AppendPyString appends s as a JSON string literal the way Python's
// json.dumps(..., ensure_ascii=False) writes it: quote and backslash
// escaped, \b \f \n \r \t by name, the other control characters as
// \u00xx, everything else (U+2028 and U+2029 included) as it is.
func AppendPyString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
