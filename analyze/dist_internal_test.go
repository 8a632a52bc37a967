package analyze

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHistogramAsDense: the histogram lists the counts a dense array of
// every bucket holds, in bucket order, sparse and paged (few and many
// distinct buckets), and a group of a few values holds a few hundred
// bytes, not the dense 58 KiB.
func TestHistogramAsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, distinct := range []int{1, 5, sparseMax, sparseMax + 1, 300} {
		var h histogram
		dense := make([]uint64, histBuckets)
		values := make([]uint64, distinct)
		for i := range values {
			values[i] = rng.Uint64() >> rng.IntN(64)
		}
		for range 2000 {
			v := values[rng.IntN(distinct)]
			h.add(bucketOf(v))
			dense[bucketOf(v)]++
		}
		var got []int
		h.each(func(b int, n uint64) bool {
			assert.Equalf(t, n, dense[b], "%d distinct: bucket %d counts", distinct, b)
			got = append(got, b)
			return true
		})
		var want []int
		for b, n := range dense {
			if n > 0 {
				want = append(want, b)
			}
		}
		require.Lenf(t, got, len(want), "%d distinct", distinct)
		for i := range got {
			require.Equalf(t, want[i], got[i], "%d distinct: buckets out of order at %d", distinct, i)
		}
		assert.Falsef(t, distinct <= sparseMax && (h.pages != nil || cap(h.sparse) > sparseMax), "%d distinct buckets: paged (or %d listed), want a short list", distinct, cap(h.sparse))
	}
}
