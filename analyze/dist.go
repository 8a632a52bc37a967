package analyze

import (
	"math/bits"
	"slices"
)

// DefaultExactLimit is how many durations a group keeps exactly before
// its percentiles come from a histogram (8 bytes each: 512 KiB a group).
const DefaultExactLimit = 1 << 16

// Histogram buckets: values below 2^histBits have a bucket each; above,
// a bucket spans 1/2^histBits of its power of two, so a value's bucket
// [lo, lo+width) has width <= lo/128.
const (
	histBits    = 7
	histSub     = 1 << histBits
	histBuckets = (64 - histBits + 1) * histSub
)

// dist keeps the durations of one group: the count, total and maximum
// exactly, the values themselves while there are at most limit of them,
// then a log-bucketed histogram (HDR-like): fixed memory (58 KiB), and a
// percentile read from it is within 1/256 of the true value (the middle
// of a bucket whose width is at most 1/128 of its lower bound), and never
// above the maximum.
type dist struct {
	n, total, max uint64
	overflow      bool // total wrapped past 2^64
	exact         []uint64
	hist          []uint64 // histBuckets counts once exact overflowed, else nil
	limit         int
}

func newDist(limit int) *dist { return &dist{limit: limit} }

func (d *dist) add(v uint64) {
	d.n++
	var c uint64
	d.total, c = bits.Add64(d.total, v, 0)
	if c != 0 {
		d.overflow = true
	}
	d.max = max(d.max, v)
	if d.hist == nil {
		if len(d.exact) < d.limit {
			d.exact = append(d.exact, v)
			return
		}
		d.hist = make([]uint64, histBuckets)
		for _, x := range d.exact {
			d.hist[bucketOf(x)]++
		}
		d.exact = nil
	}
	d.hist[bucketOf(v)]++
}

// bucketOf returns the histogram bucket of v.
func bucketOf(v uint64) int {
	if v < histSub {
		return int(v)
	}
	shift := bits.Len64(v) - 1 - histBits // v>>shift is in [128, 256)
	return (shift+1)*histSub + int(v>>shift) - histSub
}

// bucketMid returns the middle of bucket b (its value when it holds one).
func bucketMid(b int) uint64 {
	if b < histSub {
		return uint64(b)
	}
	shift := b/histSub - 1
	lo := uint64(b%histSub+histSub) << shift
	return lo + (uint64(1)<<shift)/2
}

// Exact reports whether percentiles are exact (no histogram in use).
func (d *dist) Exact() bool { return d.hist == nil }

// rank returns the 0-based nearest-rank index of percentile p of n
// values: ceil(p/100 × n) − 1.
func rank(p, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	hi, lo := bits.Mul64(p, n)
	q, r := bits.Div64(hi, lo, 100)
	if r != 0 {
		q++
	}
	return max(q, 1) - 1
}

// percentiles returns the values at each p (in percent, by nearest rank).
func (d *dist) percentiles(ps ...uint64) []uint64 {
	out := make([]uint64, len(ps))
	if d.n == 0 {
		return out
	}
	if d.hist == nil {
		slices.Sort(d.exact)
		for i, p := range ps {
			out[i] = d.exact[rank(p, d.n)]
		}
		return out
	}
	for i, p := range ps {
		want, seen := rank(p, d.n), uint64(0)
		for b, c := range d.hist {
			if seen += c; seen > want {
				out[i] = min(bucketMid(b), d.max)
				break
			}
		}
	}
	return out
}
