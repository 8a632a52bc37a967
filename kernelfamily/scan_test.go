package kernelfamily

import (
	"maps"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestScanAgreesWithWalk: Scan's distinct ids (read slot by slot) are the
// ids of every record decode's ordered walk hands out.
func TestScanAgreesWithWalk(t *testing.T) {
	c, err := capture.Open("../examples/moe_layer.bin")
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	want := map[uint32]struct{}{}
	n := 0
	require.NoError(t, d.Records(func(r decode.Record) bool { want[r.DescID] = struct{}{}; n++; return true }))
	got, err := Scan(d)
	require.NoError(t, err)
	assert.Equal(t, slices.Sorted(maps.Keys(want)), got.DescIDs, "Scan's ids against the walk's")
	assert.Equal(t, 2974, n, "records walked")
}

// TestTaskDescs: the task table agrees with a map of the same notes, for
// task ids in the slice, past its end and above denseTasks (the map), a
// task with two ids being mixed; 0, which marks no entry, is never a
// candidate id.
func TestTaskDescs(t *testing.T) {
	require.False(t, stageCandidate(0), "desc id 0 is a stage candidate: 0 cannot mark a task with no entry")
	rapid.Check(t, func(t *rapid.T) {
		var got taskDescs
		want := map[uint32]uint32{}
		task := rapid.OneOf(rapid.Uint32Range(0, 40), rapid.Uint32Range(denseTasks-3, denseTasks+3), rapid.Uint32())
		for range rapid.IntRange(0, 200).Draw(t, "notes") {
			k, d := task.Draw(t, "task"), rapid.Uint32Range(1, 4).Draw(t, "desc")
			got.note(k, d)
			if prev, ok := want[k]; !ok {
				want[k] = d
			} else if prev != d {
				want[k] = mixed
			}
		}
		have := map[uint32]uint32{}
		for k, d := range got.all {
			have[k] = d
		}
		require.Truef(t, maps.Equal(have, want), "table %v, notes %v", have, want)
	})
}
