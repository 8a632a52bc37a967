package jsontext

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// AppendUint appends the decimal form of v to dst, as
// strconv.AppendUint(dst, v, 10) does, but formats straight into dst's
// spare capacity: below 100 from a table of digit pairs, else eight digits
// at a time with no table and no loop (digits8). strconv formats into a
// scratch array, two digits a turn, and copies it out.
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	if v < 100 {
		return append(dst, digitPairs[2*v], digitPairs[2*v+1])
	}
	if v >= 1e8 {
		hi := v / 1e8
		dst = AppendUint(dst, hi) // at most twice: 2^64 has 20 digits
		return appendDigits(dst, digits8(v-hi*1e8), 8)
	}
	d := digits8(v)
	// The leading zeros are the low bytes that are 0.
	zeros := bits.TrailingZeros64(d) / 8
	return appendDigits(dst, d>>(8*zeros), 8-zeros)
}

// digits8 returns the eight decimal digits of v < 1e8, most significant
// in the lowest byte, each byte 0-9 (SWAR: the two halves of four digits
// in the word's two 32-bit lanes, split into pairs in 16-bit lanes, then
// into digits in bytes, each step a multiplication by a reciprocal that is
// exact for the lane's range).
func digits8(v uint64) uint64 {
	hi := v / 10000
	x := hi | (v-hi*10000)<<32                   // abcd | efgh<<32
	q := (x * 10486 >> 20) & 0x0000007f_0000007f // each lane / 100 (exact below 10000)
	x = q | (x-q*100)<<16                        // ab | cd<<16 | ef<<32 | gh<<48
	q = (x * 103 >> 10) & 0x000f000f_000f000f    // each lane / 10 (exact below 100)
	return q | (x-q*10)<<8
}

// appendDigits appends the n lowest bytes of d, digits 0-9, as ASCII.
func appendDigits(dst []byte, d uint64, n int) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 8)
	binary.LittleEndian.PutUint64(dst[l:l+8], d|0x30303030_30303030)
	return dst[:l+n]
}

// digitPairs holds "00" to "99".
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
