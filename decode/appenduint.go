package decode

import "math/bits"

// appendUint appends the decimal form of v to dst, as
// strconv.AppendUint(dst, v, 10) does, but formats straight into dst's
// spare capacity, two digits at a time: strconv formats into a scratch
// array and copies it out, which was a fifth of decode's time.
func appendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	n := decimalLen(v)
	l := len(dst)
	if cap(dst)-l < n {
		dst = append(dst, make([]byte, n)...)
	} else {
		dst = dst[:l+n]
	}
	i := l + n
	for v >= 100 {
		q := v / 100
		r := (v - q*100) * 2
		i -= 2
		dst[i], dst[i+1] = digitPairs[r], digitPairs[r+1]
		v = q
	}
	if v >= 10 {
		dst[i-2], dst[i-1] = digitPairs[2*v], digitPairs[2*v+1]
	} else {
		dst[i-1] = byte('0' + v)
	}
	return dst
}

// decimalLen is the number of decimal digits of v > 0: log10 from the bit
// length (1233/4096 ≈ log10(2)), corrected by one comparison.
func decimalLen(v uint64) int {
	t := bits.Len64(v) * 1233 >> 12
	if v >= pow10[t] {
		t++
	}
	return t
}

var pow10 = [20]uint64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
