package report

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Timelines keeps, rank after rank, only the timelines the page can draw:
// at the end exactly those of the detailed ranks (every rank up to
// MaxDetailedRanks, else the slowest, of equals the lowest rank: worked
// out here from the makespans, not by detail), never more than
// MaxDetailedRanks+1 at once (one between ranks when told there are more
// ranks than that), and it never declines a rank the page then draws. The
// ranks come in a shuffled order of rank numbers: List gives the
// timelines in the report's order (rank order), whatever order they came in.
func TestTimelinesKeepsWhatThePageDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][]uint64{{}, {5}, {3, 3, 3, 3}, {1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}, {2, 9, 9, 1, 9, 3}, {7, 7, 7, 7, 7, 7, 7}}
	for range 200 {
		spans := make([]uint64, rng.IntN(40))
		for i := range spans {
			spans[i] = rng.Uint64N(6)
		}
		cases = append(cases, spans)
	}
	for _, tc := range cases {
		for _, expect := range []bool{false, true} {
			checkTimelines(t, tc, rng.Perm(len(tc)), expect)
		}
	}
}

// checkTimelines feeds Timelines ranks of the makespans spans, the i-th
// numbered rank numbers[i], told their number first when expect.
func checkTimelines(t *testing.T, spans []uint64, numbers []int, expect bool) {
	t.Helper()
	name := fmt.Sprintf("%v ranks %v (expected: %v)", spans, numbers, expect)
	want := map[int]bool{} // by rank number
	if len(spans) <= MaxDetailedRanks {
		for _, r := range numbers {
			want[r] = true
		}
	} else {
		slow := 0
		for i, s := range spans {
			if s > spans[slow] || s == spans[slow] && numbers[i] < numbers[slow] {
				slow = i
			}
		}
		want[numbers[slow]] = true
	}
	var s Timelines
	most := MaxDetailedRanks + 1
	if expect {
		s.Expect(len(spans))
		if len(spans) > MaxDetailedRanks {
			most = 1
		}
	}
	made := map[*analyze.Timeline]uint32{}
	var ranks []*analyze.Rank
	for i, span := range spans {
		r := &analyze.Rank{Rank: uint32(numbers[i]), MakespanCycles: span}
		ranks = append(ranks, r)
		var tl *analyze.Timeline
		if s.Wants(r) {
			tl = &analyze.Timeline{Bins: i}
			made[tl] = r.Rank
		} else {
			assert.Falsef(t, want[numbers[i]], "%s: rank %d is drawn but its timeline was not wanted", name, numbers[i])
		}
		s.Add(r, tl)
		held := len(s.held)
		assert.LessOrEqualf(t, held, most, "%s timelines held after rank %d", name, i)
	}
	rep := analyze.NewReport(ranks)
	list := s.List(rep)
	require.Lenf(t, list, len(spans), "%s", name)
	var wantIdx []int
	for i, tl := range list {
		r := rep.Ranks[i].Rank
		require.Equalf(t, uint32(i), r, "%s: the report's rank at %d, not in rank order", name, i)
		assert.Equalf(t, want[int(r)], (tl != nil), "%s: rank %d drawn, timeline kept %v", name, r, tl != nil)
		assert.Falsef(t, tl != nil && made[tl] != r, "%s: entry %d (rank %d) holds rank %d's timeline", name, i, r, made[tl])
		if want[int(r)] {
			wantIdx = append(wantIdx, i)
		}
	}
	assert.Falsef(t, len(spans) > 0 && fmt.Sprint(detailed(rep)) != fmt.Sprint(wantIdx), "%s: the page details, want %v", name, wantIdx)
}
