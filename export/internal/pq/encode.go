package pq

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// appendPacked appends vals bit-packed at width w, least significant bit
// first (the RLE/bit-packing hybrid's and delta's packing); len(vals)*w is
// a multiple of 8 and every value fits in w bits.
func appendPacked(dst []byte, vals []uint64, w uint) []byte {
	if w == 0 {
		return dst
	}
	var acc uint64
	var n uint // bits held in acc
	for _, v := range vals {
		acc |= v << n
		if n+w < 64 {
			n += w
			continue
		}
		dst = binary.LittleEndian.AppendUint64(dst, acc)
		spill := n + w - 64
		acc = 0
		if spill > 0 {
			acc = v >> (w - spill)
		}
		n = spill
	}
	for ; n > 0; n -= 8 {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// appendHybrid appends vals in the RLE/bit-packing hybrid encoding at
// width w (definition and repetition levels, dictionary indexes): a run of
// 8 or more equal values is a repeated run, what lies between runs
// bit-packed groups of 8 (the last padded with zeros; the reader knows the
// count). scratch is reused for the groups.
func appendHybrid(dst []byte, vals []uint32, w uint, scratch *[]uint64) []byte {
	runAt := func(i int) int {
		j := i + 1
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		return j - i
	}
	valueBytes := int(w+7) / 8
	for i := 0; i < len(vals); {
		if n := runAt(i); n >= 8 {
			dst = binary.AppendUvarint(dst, uint64(n)<<1)
			for k, v := 0, vals[i]; k < valueBytes; k++ {
				dst = append(dst, byte(v>>(8*k)))
			}
			i += n
			continue
		}
		start := i
		for i < len(vals) {
			if i > start && runAt(i) >= 8 {
				break
			}
			i = min(i+8, len(vals))
		}
		groups := (i - start + 7) / 8
		g := (*scratch)[:0]
		for _, v := range vals[start:i] {
			g = append(g, uint64(v))
		}
		for len(g) < 8*groups {
			g = append(g, 0)
		}
		*scratch = g
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		dst = appendPacked(dst, g, w)
	}
	return dst
}

// appendLevels appends levels of width w as a format-1 data page holds
// them: their length in 4 bytes, then the hybrid encoding.
func appendLevels(dst []byte, levels []uint32, w uint, scratch *[]uint64) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendHybrid(dst, levels, w, scratch)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// Delta encoding's shape: blocks of 128 values in 4 miniblocks of 32.
const (
	deltaBlock      = 128
	deltaMiniblocks = 4
	deltaMini       = deltaBlock / deltaMiniblocks
)

// appendDelta appends vals (at least one) in the DELTA_BINARY_PACKED
// encoding, computed in width bits (32 or 64) as a reader of the column's
// physical type computes them: the deltas wrap, and the first value and
// the blocks' least deltas are the width's signed integers.
func appendDelta(dst []byte, vals []uint64, width uint, scratch *[]uint64) []byte {
	signed := func(v uint64) int64 {
		if width == 32 {
			return int64(int32(uint32(v)))
		}
		return int64(v)
	}
	mask := uint64(math.MaxUint64) >> (64 - width)
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMiniblocks)
	dst = binary.AppendUvarint(dst, uint64(len(vals)))
	dst = binary.AppendUvarint(dst, zigzag(signed(vals[0])))
	d := (*scratch)[:0]
	for b := 1; b < len(vals); b += deltaBlock {
		e := min(b+deltaBlock, len(vals))
		d = d[:0]
		minDelta := int64(math.MaxInt64)
		for i := b; i < e; i++ {
			delta := (vals[i] - vals[i-1]) & mask
			d = append(d, delta)
			minDelta = min(minDelta, signed(delta))
		}
		dst = binary.AppendUvarint(dst, zigzag(minDelta))
		for i := range d {
			d[i] = (d[i] - uint64(minDelta)) & mask
		}
		// Miniblocks past the last value have a width of 0 and no bytes;
		// the last one with values is padded with zeros to 32.
		n := len(d)
		for len(d)%deltaMini != 0 {
			d = append(d, 0)
		}
		widthsAt := len(dst)
		dst = append(dst, make([]byte, deltaMiniblocks)...)
		for m := 0; m*deltaMini < n; m++ {
			mini := d[m*deltaMini : (m+1)*deltaMini]
			var or uint64
			for _, v := range mini {
				or |= v
			}
			w := uint(bits.Len64(or))
			dst[widthsAt+m] = byte(w)
			dst = appendPacked(dst, mini, w)
		}
	}
	*scratch = d
	return dst
}
