package analyze_test

import (
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equalf(t, c.want, analyze.RankList(c.ranks, analyze.MaxNamed), "RankList(%v)", c.ranks)
	}
}

// Past MaxTextSections the text's summary says each note and warning
// once with the ranks that have it ("all N ranks" when every one does),
// at most --top of each, and the ranks that dropped records, the most
// first.
func TestClusterTextSharedLines(t *testing.T) {
	const n = analyze.MaxTextSections + 1
	var ranks []*analyze.Rank
	for i := range n {
		k := &analyze.Rank{Rank: uint32(i), Capture: "r.bin", CycleFrequencyMHz: 50, MakespanCycles: 1000 + uint64(i%5),
			Notes: []string{"every rank's note"}}
		switch i {
		case 3, 7, 8, 9:
			k.Warnings = []string{"a warning of four", "a warning of four"}
		case 5:
			k.Dropped = 30
		case 6:
			k.Dropped = 40
		}
		if i < 3 {
			k.Notes = append(k.Notes, "note "+string(rune('a'+i)))
		}
		ranks = append(ranks, k)
	}
	var b strings.Builder
	require.NoError(t, analyze.NewReport(ranks).WriteText(&b, 2))
	out := b.String()
	for _, want := range []string{
		"== 17 ranks: summary ==\nslowest: rank 4 (r.bin), makespan 1004 cycles",
		"\n2 of 17 ranks dropped records, 70 in all: the buffers were too small, the timelines have holes. The most: rank 6 (40), rank 5 (30).\n",
		"\nwarning (ranks 3, 7–9): a warning of four\n",
		"\nnote (all 17 ranks): every rank's note\nnote (rank 0): note a\n... 2 more notes (--top 0 shows all)\n",
	} {
		assert.Contains(t, out, want, "the text")
	}
}
