package decode

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/capturetest"
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
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.newMerge()
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	held := 0
	for _, s := range m.heap {
		held += cap(s.recs)
	}
	if want := int(d.Summary.Records); held > want {
		t.Errorf("windows hold %d records for %d live records", held, want)
	}
}
