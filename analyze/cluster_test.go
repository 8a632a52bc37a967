package analyze

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestCrossRankSpreads: for random ranks, each stage's min, median and max
// across ranks (and who holds them), and the slow ranks of the makespans
// and of each stage, are what a plain sort of the ranks' figures gives.
func TestCrossRankSpreads(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 12).Draw(t, "ranks")
		stages := []string{"Dispatch", "GMM1", "SwiGLU", "Combine"}
		var ranks []*Rank
		for i := range n {
			k := &Rank{Rank: uint32(i), MakespanCycles: rapid.Uint64Range(1, 1000).Draw(t, "makespan"), Totals: &Totals{}}
			for _, s := range stages {
				if rapid.Bool().Draw(t, "has "+s) {
					k.Stages = append(k.Stages, Stat{Name: s, TotalCycles: rapid.Uint64Range(0, 1000).Draw(t, "cycles")})
				}
			}
			ranks = append(ranks, k)
		}
		r := NewReport(ranks)
		x := r.CrossRank

		med := func(v []uint64) float64 {
			s := append([]uint64(nil), v...)
			sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
			if len(s)%2 == 1 {
				return float64(s[len(s)/2])
			}
			return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
		}
		var ms []uint64
		for _, k := range ranks {
			ms = append(ms, k.MakespanCycles)
		}
		var slow []uint32
		for _, k := range ranks {
			if float64(k.MakespanCycles) > 1.05*med(ms) {
				slow = append(slow, k.Rank)
			}
		}
		var got []uint32
		for _, s := range x.SlowRanks {
			got = append(got, s.Rank)
		}
		require.Equalf(t, fmt.Sprint(slow), fmt.Sprint(got), "slow ranks %v, want %v (makespans %v)", got, slow, ms)
		seen := map[string]bool{}
		for _, sp := range x.Stages {
			seen[sp.Name] = true
			var v []uint64
			var holders []uint32
			for _, k := range ranks {
				for _, st := range k.Stages {
					if st.Name == sp.Name {
						v = append(v, st.TotalCycles)
						holders = append(holders, k.Rank)
					}
				}
			}
			lo, hi := v[0], v[0]
			for _, c := range v {
				lo, hi = min(lo, c), max(hi, c)
			}
			require.Equal(t, len(v), sp.Ranks, "%s: %+v: ranks", sp.Name, sp)
			require.Equal(t, lo, sp.MinCycles, "%s: %+v: min", sp.Name, sp)
			require.Equal(t, hi, sp.MaxCycles, "%s: %+v: max", sp.Name, sp)
			require.Equal(t, med(v), sp.MedianCycles, "%s: %+v: median", sp.Name, sp)
			// The holder of the max (min) is the first rank with that value.
			for i, c := range v {
				if c == hi {
					require.Equalf(t, holders[i], sp.MaxRank.Rank, "%s: max at rank", sp.Name)
					break
				}
			}
			slowN := 0
			for _, c := range v {
				if float64(c) > 1.05*med(v) {
					slowN++
				}
			}
			require.Lenf(t, sp.Slow, slowN, "%s", sp.Name)
			for i := 1; i < len(sp.Slow); i++ {
				require.GreaterOrEqualf(t, cyclesOf(ranks, sp.Name, sp.Slow[i-1].Rank), cyclesOf(ranks, sp.Name, sp.Slow[i].Rank), "%s: slow ranks not slowest first", sp.Name)
			}
		}
		for _, k := range ranks {
			for _, st := range k.Stages {
				require.Truef(t, seen[st.Name], "stage %s missing from the spreads", st.Name)
			}
		}
	})
}

func cyclesOf(ranks []*Rank, stage string, rank uint32) uint64 {
	for _, st := range ranks[rank].Stages {
		if st.Name == stage {
			return st.TotalCycles
		}
	}
	return 0
}
