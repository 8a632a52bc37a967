package kernelnames

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A TaskNames answers as the map it was built from, whether its ids are
// dense or sparse and in whatever order they came; a second naming of an
// id is found (at once in the dense table, at the end in the sparse one).
func TestTaskNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxID := rapid.SampledFrom([]uint32{100, 1 << 17, 1<<32 - 1}).Draw(t, "maxID")
		ids := rapid.SliceOfN(rapid.Uint32Range(0, maxID), 0, 300).Draw(t, "ids")
		names := []string{"Gate", "Combine", "", "Dispatch_π"}
		want := map[uint32]string{}
		var tn TaskNames
		dupSeen := false
		for i, id := range ids {
			name := names[i%len(names)]
			_, dup := want[id]
			if !dup {
				want[id] = name
			}
			if ok := tn.add(id, name); !ok && !dup {
				t.Fatalf("add(%d) refused an id not named before", id)
			} else if !ok {
				dupSeen = true
			}
		}
		_, finished := tn.finish()
		hasDup := len(want) < len(ids)
		if hasDup != (dupSeen || !finished) {
			t.Fatalf("duplicates: %v; found by add %v, by finish %v", hasDup, dupSeen, !finished)
		}
		if hasDup {
			return
		}
		if got := maps.Collect(tn.All()); len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("All: %v, want %v", got, want)
		}
		var order []uint32
		for id := range tn.All() {
			order = append(order, id)
		}
		if !slices.IsSorted(order) {
			t.Fatalf("All is not in id order: %v", order)
		}
		if tn.Len() != len(want) {
			t.Fatalf("Len %d, want %d", tn.Len(), len(want))
		}
		for _, id := range append(ids, 0, 1, maxID, maxID/2, 1<<16, 1<<32-1) {
			name, ok := tn.Lookup(id)
			wantName, wantOK := want[id]
			if name != wantName || ok != wantOK {
				t.Fatalf("Lookup(%d) = %q, %v; want %q, %v", id, name, ok, wantName, wantOK)
			}
		}
	})
}

// Dense ids are held in the table indexed by id, sparse ones in the
// sorted pairs (TestTaskStages in the JSON writer reads both).
func TestTaskNamesTableKind(t *testing.T) {
	dense := TaskNamesOf(map[uint32]string{0: "A", 1: "", 2: "A", 5: `B"\`, 7: "A"})
	sparse := TaskNamesOf(map[uint32]string{0: "A", 1: "", 7: "A", 0xFFFFFFFF: "Z\n"})
	if dense.pairs != nil || sparse.pairs == nil {
		t.Errorf("dense pairs %v, sparse pairs %v", dense.pairs, sparse.pairs)
	}
}
