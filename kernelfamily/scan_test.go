package kernelfamily

import (
	"maps"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
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
