package decode

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A slot's window holds at most the slot's records: a capture of many
// cores with a few records each must not cost a full window per core.
func TestMergeWindowsFitTheirSlots(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	for _, ct := range abi.CoreTypes() {
		for id := range b.Layout.SlotCount(ct) {
			b.Enter(ct, id, 100).Span(ct, id, 200, 300, abi.RuntimeStageTriggerEvent, id)
		}
	}
	d, err := mustDecode("many.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	m, err := d.newMerge()
	require.NoError(t, err)
	defer m.close()
	held := 0
	for _, s := range m.srcs {
		held += cap(s.recs)
	}
	assert.LessOrEqual(t, held, int(d.Summary.Records), "windows hold")
}

// The out-of-order worst case, one slot of random start cycles with ties,
// gives the same walk whether the slot is sorted in one run in
// memory or in many runs spilled to TempDir, and the merge holds one run
// of records at most, never the slot.
func TestSpilledRunsSameWalk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.bin")
	const records = 20_000
	flags, err := benchgen.WriteSparse(path, records, 7)
	require.NoError(t, err)
	var aiv uint32
	_, err = fmt.Sscanf(flags, "--cube-slots 24 --aic-capacity 0 --aiv-capacity %d", &aiv)
	require.NoErrorf(t, err, "flags %q", flags)
	var want []byte
	for _, run := range []int{records, 1000, 999, 1} {
		c, err := capture.Open(path)
		require.NoError(t, err)
		defer c.Close()
		d, err := Decode(c, capture.Request{Capacities: &abi.Capacities{AIC: 0, AIV: aiv}})
		require.NoError(t, err)
		d.runRecords, d.TempDir = run, t.TempDir()
		m, err := d.newMerge()
		require.NoError(t, err)
		held := 0
		for _, s := range m.srcs {
			held = max(held, cap(s.recs))
		}
		m.close()
		assert.LessOrEqual(t, held, run, "run")
		got, err := walkOf(d)
		require.NoError(t, err)
		if want == nil {
			want = got
			continue
		}
		require.Truef(t, bytes.Equal(got, want), "runs of %d: walk differs from one run: %s", run, golden.Diff(got, want))
		entries, _ := os.ReadDir(d.TempDir)
		assert.Emptyf(t, entries, "runs of %d: left in TempDir", run)
	}
}

// Runs are runRecords long until there would be more than maxRuns of
// them; then they grow, so their number (and the read windows) stays
// bounded.
func TestRunLength(t *testing.T) {
	for _, c := range []struct{ records, want int }{
		{1, runRecords},
		{runRecords * maxRuns, runRecords},
		{runRecords*maxRuns + 1, runRecords + 1},
		{int(abi.MaxRecordsPerCore) * 72, (int(abi.MaxRecordsPerCore)*72 + maxRuns - 1) / maxRuns},
	} {
		got := runLength(c.records)
		assert.Equalf(t, c.want, got, "runLength(%d)", c.records)
		assert.LessOrEqualf(t, (c.records+got-1)/got, maxRuns, "runLength(%d) = %d", c.records, got)
	}
}

// Records that start at the last cycle there is (start = end = 2^64-1)
// come out in trace order with the rest, ties by (core_type, block_id):
// the merge marks a source that has run out with that same start cycle, and
// it must still lose to a live record there. Slots run out at different
// times, one before any other has reached the last cycle, one between.
func TestMergeLastCycle(t *testing.T) {
	const last = math.MaxUint64
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	aic, aiv := abi.CoreTypeAIC, abi.CoreTypeAIV
	b.Enter(aic, 0, 0).Span(aic, 0, 10, 20, abi.TaskTypeBase, 1) // runs out first
	b.Enter(aic, 1, 0).Span(aic, 1, 5, 6, abi.TaskTypeBase, 2).Span(aic, 1, last, last, abi.TaskTypeBase, 3)
	b.Enter(aiv, 0, 0).Span(aiv, 0, last, last, abi.TaskTypeBase, 4).Span(aiv, 0, last, last, abi.TaskTypeBase, 5)
	b.Enter(aic, 3, 0).Span(aic, 3, 30, 40, abi.TaskTypeBase, 6).Span(aic, 3, last-1, last, abi.TaskTypeBase, 7) // runs out between
	b.Enter(aiv, 2, 0).Span(aiv, 2, last, last, abi.TaskTypeBase, 8)
	d, err := mustDecode("last.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	var got []uint32
	require.NoError(t, d.Records(func(r Record) bool { got = append(got, r.TaskID); return true }))
	// By hand: (start, core_type, block_id); AIC before AIV.
	want := []uint32{2, 1, 6, 7, 3, 4, 5, 8}
	assert.Truef(t, slices.Equal(got, want), "tasks in trace order %v, want %v", got, want)
}

// play's winner is the node less puts first, its loser the other, for
// nodes that tie on start or rank, sit at the ends of both ranges, or are
// exhausted.
func TestPlay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) node {
			return node{
				start: rapid.OneOf(rapid.Just(uint64(0)), rapid.Just(uint64(7)), rapid.Just(uint64(math.MaxUint64)), rapid.Uint64()).Draw(t, label+" start"),
				src:   rapid.SampledFrom([]uint32{0, 1, 2, exhausted - 1, exhausted, exhausted | 1, math.MaxUint32}).Draw(t, label+" src"),
			}
		}
		a, b := draw("a"), draw("b")
		want, wantLoser := b, a
		if less(a, b) {
			want, wantLoser = a, b
		}
		w, l := play(a, b)
		require.Equalf(t, want, w, "play(%v, %v)", a, b)
		require.Equalf(t, wantLoser, l, "play(%v, %v)", a, b)
	})
}
