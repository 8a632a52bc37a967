package report

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
)

// Timelines keeps, rank after rank, only the timelines the page can draw:
// at the end exactly those of the detailed ranks (every rank up to
// MaxDetailedRanks, else the first slowest: worked out here from the
// makespans, not by detail), never more than MaxDetailedRanks+1 at once
// (one between ranks when told there are more ranks than that), and it
// never declines a rank the page then draws.
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
			checkTimelines(t, tc, expect)
		}
	}
}

// checkTimelines feeds Timelines ranks of the makespans spans, told their
// number first when expect.
func checkTimelines(t *testing.T, spans []uint64, expect bool) {
	t.Helper()
	name := fmt.Sprintf("%v (expected: %v)", spans, expect)
	want := map[int]bool{}
	if len(spans) <= MaxDetailedRanks {
		for i := range spans {
			want[i] = true
		}
	} else {
		slow := 0
		for i, s := range spans {
			if s > spans[slow] {
				slow = i
			}
		}
		want[slow] = true
	}
	var s Timelines
	most := MaxDetailedRanks + 1
	if expect {
		s.Expect(len(spans))
		if len(spans) > MaxDetailedRanks {
			most = 1
		}
	}
	made := map[*analyze.Timeline]int{}
	ranks := &analyze.Report{}
	for i, span := range spans {
		r := &analyze.Rank{MakespanCycles: span}
		ranks.Ranks = append(ranks.Ranks, r)
		var tl *analyze.Timeline
		if s.Wants(r) {
			tl = &analyze.Timeline{Bins: i}
			made[tl] = i
		} else if want[i] {
			t.Errorf("%s: rank %d is drawn but its timeline was not wanted", name, i)
		}
		s.Add(r, tl)
		held := 0
		for _, tl := range s.List() {
			if tl != nil {
				held++
			}
		}
		if held > most {
			t.Errorf("%s: %d timelines held after rank %d", name, held, i)
		}
	}
	list := s.List()
	if len(list) != len(spans) {
		t.Fatalf("%s: %d entries for %d ranks", name, len(list), len(spans))
	}
	for i, tl := range list {
		if want[i] != (tl != nil) {
			t.Errorf("%s: rank %d drawn %v, timeline kept %v", name, i, want[i], tl != nil)
		}
		if tl != nil && made[tl] != i {
			t.Errorf("%s: entry %d holds rank %d's timeline", name, i, made[tl])
		}
	}
	var wantIdx []int
	for i := range spans {
		if want[i] {
			wantIdx = append(wantIdx, i)
		}
	}
	if d := detailed(ranks); len(spans) > 0 && fmt.Sprint(d) != fmt.Sprint(wantIdx) {
		t.Errorf("%s: the page details %v, want %v", name, d, wantIdx)
	}
}
