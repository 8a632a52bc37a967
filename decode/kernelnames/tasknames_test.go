package kernelnames

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
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
				require.FailNow(t, fmt.Sprintf("add(%d) refused an id not named before", id))
			} else if !ok {
				dupSeen = true
			}
		}
		_, finished := tn.finish()
		hasDup := len(want) < len(ids)
		require.Equalf(t, (dupSeen || !finished), hasDup, "duplicates; found by add %v, by finish %v", dupSeen, !finished)
		if hasDup {
			return
		}
		got := maps.Collect(tn.All())
		require.Lenf(t, got, len(want), "All, want %v", want)
		require.Falsef(t, len(want) > 0 && !reflect.DeepEqual(got, want), "All, want %v", want)
		var order []uint32
		for id := range tn.All() {
			order = append(order, id)
		}
		require.Truef(t, slices.IsSorted(order), "All is not in id order: %v", order)
		require.Equal(t, len(want), tn.Len(), "Len")
		for _, id := range append(ids, 0, 1, maxID, maxID/2, 1<<16, 1<<32-1) {
			name, ok := tn.Lookup(id)
			wantName, wantOK := want[id]
			require.Equalf(t, wantName, name, "Lookup(%d)", id)
			require.Equalf(t, wantOK, ok, "Lookup(%d)", id)
		}
	})
}

// Dense ids are held in the table indexed by id, sparse ones in the
// sorted pairs (TestTaskStages in the JSON writer reads both).
func TestTaskNamesTableKind(t *testing.T) {
	dense := TaskNamesOf(map[uint32]string{0: "A", 1: "", 2: "A", 5: `B"\`, 7: "A"})
	sparse := TaskNamesOf(map[uint32]string{0: "A", 1: "", 7: "A", 0xFFFFFFFF: "Z\n"})
	require.Nilf(t, dense.pairs, "dense pairs, sparse pairs %v", sparse.pairs)
	require.NotNilf(t, sparse.pairs, "dense pairs, sparse pairs %v", sparse.pairs)
}
