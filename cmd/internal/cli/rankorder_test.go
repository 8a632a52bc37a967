package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's root: the folder of go.mod, up from here.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		require.NotEqual(t, dir, up, "no go.mod above the test's folder")
		dir = up
	}
}

// clusterCaptures synthesizes n ranks of examples/moe_layer.yaml into a
// temporary folder as rank0.bin … rank<n-1>.bin, rank i with seed
// 1+i%seeds (so with seeds < n several ranks have the same makespan), and
// returns their paths in rank order.
func clusterCaptures(t *testing.T, n, seeds int) []string {
	t.Helper()
	dir := t.TempDir()
	made := map[int]string{}
	var paths []string
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("rank%d.bin", i))
		seed := 1 + i%seeds
		if first, ok := made[seed]; ok {
			require.NoError(t, os.Link(first, path))
		} else {
			_, errOut, code := runMain(t, "synth", filepath.Join(repoRoot(t), "examples/moe_layer.yaml"), "--seed", fmt.Sprint(seed), "-o", path)
			require.Equalf(t, 0, code, "synth: %s", errOut)
			made[seed] = path
		}
		paths = append(paths, path)
	}
	return paths
}

// The order the captures are given never shows: analyze (text and JSON)
// and report of the same twelve ranks, given in rank order and shuffled
// (glob order too: rank10 before rank2), write the same bytes. The JSON's
// ranks run by rank number, and the slowest rank is, of the ranks with
// the longest makespan (three ranks share each), the lowest, as worked out
// here from the makespans.
func TestRankOrderNeverLeaks(t *testing.T) {
	paths := clusterCaptures(t, 12, 4)
	glob := append([]string(nil), paths...)
	// What a shell's glob gives: rank0 rank1 rank10 rank11 rank2 ...
	glob = append(append(append([]string{}, glob[:2]...), glob[10:]...), glob[2:10]...)
	shuffled := append([]string(nil), paths...)
	rand.New(rand.NewPCG(4, 0)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	dir := t.TempDir()
	outputs := func(tag string, order []string) [][]byte {
		var got [][]byte
		for _, c := range []struct {
			name string
			args []string
		}{
			{"analyze.txt", []string{"analyze"}},
			{"analyze.json", []string{"analyze", "--format", "json"}},
			{"report.html", []string{"report"}},
		} {
			out := filepath.Join(dir, tag+"-"+c.name)
			args := append(append(append([]string{}, c.args...), order...), "-o", out)
			_, errOut, code := runMain(t, args...)
			require.Equalf(t, 0, code, "%v: %s", args, errOut)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			got = append(got, data)
		}
		return got
	}
	want := outputs("ordered", paths)
	for tag, order := range map[string][]string{"glob": glob, "shuffled": shuffled} {
		for i, got := range outputs(tag, order) {
			// True, not Equal: the outputs are too long for a diff to help.
			assert.Truef(t, bytes.Equal(got, want[i]), "%s order: output %d differs from the one of the captures in rank order (%d and %d bytes)", tag, i, len(got), len(want[i]))
		}
	}

	var rep struct {
		Ranks []struct {
			Rank           uint32 `json:"rank"`
			MakespanCycles uint64 `json:"makespan_cycles"`
		} `json:"ranks"`
		CrossRank struct {
			SlowestRank uint32 `json:"slowest_rank"`
			Ranks       []struct {
				Rank uint32 `json:"rank"`
			} `json:"ranks"`
		} `json:"cross_rank"`
	}
	require.NoError(t, json.Unmarshal(want[1], &rep))
	slowest, most := uint32(0), uint64(0)
	for i, k := range rep.Ranks {
		assert.Equalf(t, uint32(i), k.Rank, "ranks[%d]", i)
		assert.Equalf(t, uint32(i), rep.CrossRank.Ranks[i].Rank, "cross_rank.ranks[%d]", i)
		if k.MakespanCycles > most {
			slowest, most = k.Rank, k.MakespanCycles
		}
	}
	assert.Equalf(t, slowest, rep.CrossRank.SlowestRank, "slowest_rank (the lowest of the ranks of makespan %d)", most)
}
