package analyze_test

import (
	"testing"

	"github.com/megakernel/cycleabi/analyze"
)

// TestRankList: runs of consecutive ranks as ranges, at most most parts.
func TestRankList(t *testing.T) {
	for _, c := range []struct {
		ranks []uint32
		want  string
	}{
		{[]uint32{5}, "rank 5"},
		{[]uint32{1, 2, 3, 7, 9, 10}, "ranks 1–3, 7, 9–10"},
		{[]uint32{0, 2, 4, 6, 8, 10, 12, 14}, "ranks 0, 2, 4, 6, 8, 10, and 2 more"},
	} {
		if got := analyze.RankList(c.ranks, analyze.MaxNamed); got != c.want {
			t.Errorf("RankList(%v) = %q, want %q", c.ranks, got, c.want)
		}
	}
}
