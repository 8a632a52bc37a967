package kernelfamily

import (
	"maps"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"pgregory.net/rapid"
)

// TestScanAgreesWithWalk: Scan's distinct ids (read slot by slot) are the
// ids of every record decode's ordered walk hands out.
func TestScanAgreesWithWalk(t *testing.T) {
	c, err := capture.Open("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]struct{}{}
	n := 0
	if err := d.Records(func(r decode.Record) bool { want[r.DescID] = struct{}{}; n++; return true }); err != nil {
		t.Fatal(err)
	}
	got, err := Scan(d)
	if err != nil {
		t.Fatal(err)
	}
	if w := slices.Sorted(maps.Keys(want)); !slices.Equal(got.DescIDs, w) || n != 2974 {
		t.Errorf("Scan ids %#x, the walk's %#x (%d records)", got.DescIDs, w, n)
	}
}

// TestTaskDescs: the task table agrees with a map of the same notes, for
// task ids in the slice, past its end and above denseTasks (the map), a
// task with two ids being mixed; 0, which marks no entry, is never a
// candidate id.
func TestTaskDescs(t *testing.T) {
	if stageCandidate(0) {
		t.Fatal("desc id 0 is a stage candidate: 0 cannot mark a task with no entry")
	}
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
		if !maps.Equal(have, want) {
			t.Fatalf("table %v, notes %v", have, want)
		}
	})
}
