package tracemerge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoRankWindow is a window of rank 0 and rank 1 as upstream's export
// writes one: every event at pid (pidPerRank: pid = rank), args.rank on
// each event (withArgRank), invocation ids 0 and 1 (sharedIDs: both
// ranks' invocations are id 0).
func twoRankWindow(pidPerRank, withArgRank, sharedIDs bool) map[string]any {
	ev := func(name string, ts float64, rank, id int) map[string]any {
		e := upInternal(name, ts, 5, id, "AIC", rank)
		if pidPerRank {
			e["pid"] = rank
		}
		if withArgRank {
			e["args"].(map[string]any)["rank"] = rank
		}
		return e
	}
	id1 := 1
	if sharedIDs {
		id1 = 0
	}
	return map[string]any{
		"traceEvents": []any{ev("R0a", 10, 0, 0), ev("R0b", 20, 0, 0), ev("R1", 12, 1, id1)},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "windowIndex": 0, "invocations": []any{
			map[string]any{"invocationId": 0, "direction": "forward", "kernelName": "HyperMegaMoe", "rank": 0, "deviceId": 4},
			map[string]any{"invocationId": id1, "direction": "forward", "kernelName": "HyperMegaMoe", "rank": 1, "deviceId": 5},
		}},
	}
}

// TestMergeKeepsRanksApart: a window of two ranks is two ranks, whatever
// its events' pids: without --rank merge asks for one, and --rank 1
// merges rank 1's events alone, labelled rank 1, on threads of their own.
func TestMergeKeepsRanksApart(t *testing.T) {
	fw := writeJSON(t, "fw.json", []any{upOuter("HyperMegaMoe_abc123", "1000.0", "50.0", true, 7)})
	for _, c := range []struct {
		name                              string
		pidPerRank, withArgRank, sharedID bool
	}{
		{"pid 0, args.rank", false, true, false},
		{"pid 0, args.rank, shared invocation ids", false, true, true},
		{"pid 0, no args.rank", false, false, false},
		{"pid = rank, shared invocation ids", true, false, true},
		{"pid = rank, args.rank, shared invocation ids", true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			mk := writeJSON(t, "mk.json", twoRankWindow(c.pidPerRank, c.withArgRank, c.sharedID))
			_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: -1})
			want := "holds ranks 0, 1: merge one at a time with --rank R"
			require.ErrorContainsf(t, err, want, "no --rank: error %v, want one containing %q", err, want)
			for rank, names := range map[int][]string{0: {"R0a", "R0b"}, 1: {"R1"}} {
				m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: int64(rank)})
				require.NoErrorf(t, err, "rank %d", rank)
				var got []string
				for _, e := range m.internal() {
					got = append(got, e["name"].(string))
					args := e["args"].(map[string]any)
					assert.Equalf(t, float64(rank), number(t, args["cycle_trace_rank"]), "rank %d: %s has cycle_trace_rank", rank, e["name"])
					d := number(t, args["cycle_trace_device_id"])
					assert.Equalf(t, float64(rank+4), d, "rank %d: %s has cycle_trace_device_id, want %d", rank, e["name"], rank+4)
				}
				assert.Equalf(t, strings.Join(names, ","), strings.Join(got, ","), "rank %d merged %v, want %v", rank, got, names)
				assert.Equalf(t, float64(1), number(t, m.res["mergedInvocationCount"]), "rank %d: mergedInvocationCount", rank)
			}
		})
	}
	// Both ranks at pid 0 sharing invocation id 0 and no args.rank: which
	// rank an event is of is not known, and merge says so.
	mk := writeJSON(t, "mk.json", twoRankWindow(false, false, true))
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1})
	want := "invocation 0 is of ranks 0, 1 (megaKernelCycleTrace.invocations) and its events of pid 0 state no args.rank"
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
}

// TestMergeSameTraceTwiceRefused: merge X X (a MegaKernel trace given as
// the framework trace too) has no outer kernel: its own records
// (MegaKernelInternal, whose cat holds "kernel") are never candidates, and
// the error says the framework trace looks like a MegaKernel trace (it
// chose a WaitDependency as the outer kernel).
func TestMergeSameTraceTwiceRefused(t *testing.T) {
	mk := writeJSON(t, "mk.json", map[string]any{
		"traceEvents": []any{
			upInternal("WaitDependency", 10, 50, -1, "AIV", 0),
			upInternal("GMM1", 20, 5, -1, "AIC", 0),
		},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "rank": 0, "kernelName": "MegaKernel"},
	})
	_, err := runMerge(t, Options{Framework: mk, MegaKernel: mk, Rank: -1})
	for _, want := range []string{"no outer kernel", "2 of its events are a MegaKernel's own records (cat MegaKernelInternal)", "is " + mk + " a MegaKernel trace?"} {
		require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
	}
}
