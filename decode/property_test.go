package decode

import (
	"cmp"
	"math/big"
	"os"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// propMergeOrder: the k-way merge yields exactly a stable sort of all live
// records by (start_cycle, core_type, block_id), the reference decoder's
// order, whatever the window size and however many slots are out of order.
func propMergeOrder(t *rapid.T) {
	g := capturedraw.Draw(t)
	d, err := mustDecode("gen.bin", g.B.Bytes(), g.Opts)
	require.NoError(t, err)
	d.chunk = rapid.IntRange(0, 5).Draw(t, "chunk")
	// Out-of-order slots cut into runs of 1 to 5 records (0: the default,
	// one run per slot here), some spilled, some in memory.
	d.runRecords = rapid.IntRange(0, 5).Draw(t, "runRecords")
	d.TempDir = tempDir
	want, err := scanRecords(d)
	require.NoError(t, err)
	slices.SortStableFunc(want, func(a, b liveRecord) int {
		return cmp.Or(cmp.Compare(a.StartCycle, b.StartCycle), cmp.Compare(a.Slot.CoreType, b.Slot.CoreType), cmp.Compare(a.Slot.BlockID, b.Slot.BlockID))
	})
	stopAt := rapid.IntRange(0, len(want)).Draw(t, "stopAt")
	for pass, limit := range []int{len(want), stopAt} {
		var got []liveRecord
		err = d.Records(func(r Record) bool {
			got = append(got, liveRecord{ProfileRecord: r.ProfileRecord, Slot: d.Slot(&r), Index: r.Index, Entry: r.EntryCycle})
			require.Equalf(t, d.Slot(&r).CoreType, r.CoreType, "record of %s/%d from slot %s", r.CoreType, r.BlockID, d.Slot(&r))
			require.Equalf(t, d.Slot(&r).BlockID, r.BlockID, "record of %s/%d from slot %s", r.CoreType, r.BlockID, d.Slot(&r))
			return len(got) < limit
		})
		require.NoError(t, err)
		if limit == 0 {
			limit = min(1, len(want)) // yield is called once before it can say stop
		}
		require.Truef(t, slices.Equal(got, want[:limit]), "pass %d: merge order differs from a stable sort:\n got %v\nwant %v", pass, got, want[:limit])
	}
}

// tempDir is where propMergeOrder spills; checked empty afterwards.
var tempDir = os.TempDir()

func TestMergeOrder(t *testing.T) {
	tempDir = t.TempDir()
	rapid.Check(t, propMergeOrder)
	entries, _ := os.ReadDir(tempDir)
	assert.Empty(t, entries, "spill files left behind")
}

func FuzzMergeOrder(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propMergeOrder)) }

func itoa(n int) string          { return u64toa(uint64(n)) }
func u64toa(n uint64) string     { return new(big.Int).SetUint64(n).String() }
func must[T any](v T, _ error) T { return v }
