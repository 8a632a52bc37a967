package jsontext

import "strconv"

// AppendFloat appends f the way the reference decoder's JSON shows a
// Python float: the shortest decimal that reads back as f, with ".0" when
// it is whole (so that a reader sees a float, not an integer), and never
// an exponent.
func AppendFloat(dst []byte, f float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, ch := range dst[n:] {
		if ch == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}
