package export

import (
	"testing"

	"github.com/megakernel/cycleabi/decode"
	"github.com/stretchr/testify/require"
)

// TestFeed: the records added come out of walk in order, across batches,
// the last one partial; a walk that stops early and returns leaves the
// producer free to go on to the end (drain), as does a consumer that never
// walks.
func TestFeed(t *testing.T) {
	n := 2*feedBatches*feedBatch + 17 // more than the batches hold
	for _, stopAt := range []int{-1, 0, feedBatch + 5} {
		f := newFeed(&recordPool{})
		got := make(chan []uint64, 1)
		go func() {
			var seen []uint64
			if stopAt != 0 {
				f.walk(func(r decode.Record) bool {
					seen = append(seen, r.StartCycle)
					return len(seen) != stopAt
				})
			}
			f.drain()
			got <- seen
		}()
		for i := range n {
			r := decode.Record{}
			r.StartCycle = uint64(i)
			f.add(&r)
		}
		f.close()
		seen := <-got
		want := n
		if stopAt >= 0 {
			want = stopAt
		}
		require.Lenf(t, seen, want, "stop at %d", stopAt)
		for i, c := range seen {
			require.Equalf(t, uint64(i), c, "stop at %d: record %d is the", stopAt, i)
		}
	}
}
