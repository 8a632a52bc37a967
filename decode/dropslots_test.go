package decode

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
)

// TestWithSlotsChanged: a capture whose bytes changed after its slots
// were dropped is refused when they are scanned again.
func TestWithSlotsChanged(t *testing.T) {
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	b := capturetest.New(24, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1200, mm, 1).Span(abi.CoreTypeAIC, 0, 1300, 1400, mm, 2)
	buf := b.Bytes()
	d, err := mustDecode("c.bin", buf, capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
	require.NoError(t, err)
	d.DropSlots()
	// One record fewer.
	b.SetHeader32(abi.CoreTypeAIC, 0, abi.CoreHeaderRecordCountOffset, 1)
	copy(buf, b.Bytes())
	ran := false
	err = d.WithSlots(func() error { ran = true; return nil })
	require.Errorf(t, err, "ran %v, error %v", ran, err)
	require.Falsef(t, ran, "ran %v, error %v", ran, err)
	require.Containsf(t, err.Error(), "c.bin: changed since it was first read: 2 records", "ran %v, error %v", ran, err)
}
