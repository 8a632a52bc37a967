package analyze

import (
	"math"
	"math/bits"
	"slices"
)

// DefaultExactLimit is how many durations one analysis keeps exactly, over
// all its groups (8 bytes each: 4 MiB). A group that grows once the budget
// is spent switches to a histogram and gives its values' share back.
const DefaultExactLimit = 1 << 19

// chunkLen is the length of the chunks exact values are kept in (no
// copying as they grow).
const chunkLen = 1024

// Histogram buckets: values below 2^histBits have a bucket each; above,
// a bucket spans 1/2^histBits of its power of two, so a value's bucket
// [lo, lo+width) has width <= lo/128.
const (
	histBits    = 7
	histSub     = 1 << histBits
	histBuckets = (64 - histBits + 1) * histSub
)

// dist keeps the durations of one group: the count, total and maximum
// exactly, the values themselves while the analysis's budget of exact
// values lasts, then a log-bucketed histogram (HDR-like): at most 58 KiB
// (a few hundred bytes for a few values), and a
// percentile read from it is within 1/256 of the true value (the middle
// of a bucket whose width is at most 1/128 of its lower bound), and never
// above the maximum.
type dist struct {
	n, total, max uint64     // total saturates at 2^64-1 (see satAdd)
	exact         [][]uint64 // chunks of chunkLen values
	hist          *histogram // the counts once exact overflowed, else nil
	budget        *int       // exact values the analysis may still keep
}

func newDist(budget *int) *dist { return &dist{budget: budget} }

func (d *dist) add(v uint64) {
	d.n++
	d.total = satAdd(d.total, v)
	d.max = max(d.max, v)
	if d.hist == nil {
		if *d.budget > 0 {
			*d.budget--
			last := len(d.exact) - 1
			switch {
			case last < 0:
				// The first chunk grows as it fills (by append, to
				// chunkLen): a group of a few values, one per stage of a
				// capture of 65,536 stages, took 8 KiB for its chunk.
				d.exact = [][]uint64{make([]uint64, 0, 2)}
				last = 0
			case len(d.exact[last]) >= chunkLen:
				d.exact = append(d.exact, make([]uint64, 0, chunkLen))
				last++
			}
			d.exact[last] = append(d.exact[last], v)
			return
		}
		d.hist = new(histogram)
		for _, c := range d.exact {
			for _, x := range c {
				d.hist.add(bucketOf(x))
			}
			*d.budget += len(c)
		}
		d.exact = nil
	}
	d.hist.add(bucketOf(v))
}

// histogram counts values by bucket: a short sorted list of the buckets
// in use while there are at most sparseMax (a group of a few values, one
// per stage of a capture of 65,536 stages, took the whole 58 KiB), then
// pages of histSub buckets (1 KiB each), made as values reach them.
type histogram struct {
	sparse []histCount
	pages  *[histBuckets / histSub]*[histSub]uint64
}

type histCount struct {
	b int32
	n uint64
}

// sparseMax is how many buckets a histogram lists before it pages.
const sparseMax = 32

func (h *histogram) add(b int) {
	if h.pages == nil {
		i, found := slices.BinarySearchFunc(h.sparse, int32(b), func(c histCount, b int32) int { return int(c.b - b) })
		if found {
			h.sparse[i].n++
			return
		}
		if len(h.sparse) < sparseMax {
			h.sparse = slices.Insert(h.sparse, i, histCount{b: int32(b), n: 1})
			return
		}
		h.pages = new([histBuckets / histSub]*[histSub]uint64)
		for _, c := range h.sparse {
			h.inc(int(c.b), c.n)
		}
		h.sparse = nil
	}
	h.inc(b, 1)
}

func (h *histogram) inc(b int, n uint64) {
	p := h.pages[b/histSub]
	if p == nil {
		p = new([histSub]uint64)
		h.pages[b/histSub] = p
	}
	p[b%histSub] += n
}

// each calls fn with each bucket in use and its count, in bucket order,
// until fn returns false.
func (h *histogram) each(fn func(b int, n uint64) bool) {
	if h.pages == nil {
		for _, c := range h.sparse {
			if !fn(int(c.b), c.n) {
				return
			}
		}
		return
	}
	for i, p := range h.pages {
		if p == nil {
			continue
		}
		for j, n := range p {
			if n > 0 && !fn(i*histSub+j, n) {
				return
			}
		}
	}
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
		all := make([]uint64, 0, d.n)
		for _, c := range d.exact {
			all = append(all, c...)
		}
		slices.Sort(all)
		for i, p := range ps {
			out[i] = all[rank(p, d.n)]
		}
		return out
	}
	for i, p := range ps {
		want, seen := rank(p, d.n), uint64(0)
		d.hist.each(func(b int, c uint64) bool {
			if seen += c; seen > want {
				out[i] = min(bucketMid(b), d.max)
				return false
			}
			return true
		})
	}
	return out
}

// satAdd returns a+b, or 2^64-1 when that overflows: sums of cycles
// only get there from records of absurd lengths, and a saturated sum
// says so where a wrapped one would mislead.
func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}
