package export

import (
	"testing"

	"github.com/megakernel/cycleabi/decode"
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
		if len(seen) != want {
			t.Fatalf("stop at %d: %d records walked, want %d", stopAt, len(seen), want)
		}
		for i, c := range seen {
			if c != uint64(i) {
				t.Fatalf("stop at %d: record %d is the %dth added", stopAt, i, c)
			}
		}
	}
}
