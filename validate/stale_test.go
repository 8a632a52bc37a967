package validate

import (
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staleCapture is a launch of four cores entering at about cycle 1e9 and
// running 125,000 cycles (2.5 ms at 50 MHz), and one core (AIV/1) whose
// slot an earlier launch wrote 1.6e9 cycles (32.7 s) before: a buffer not
// zeroed between launches.
func staleCapture() []byte {
	b := capturetest.New(24, 16, 16)
	const at = 2_000_000_000
	for i, c := range []struct {
		t     abi.CoreType
		block uint32
	}{{abi.CoreTypeAIC, 0}, {abi.CoreTypeAIC, 1}, {abi.CoreTypeAIV, 0}, {abi.CoreTypeAIV, 2}} {
		entry := uint64(at + i*7)
		b.Enter(c.t, c.block, entry).Span(c.t, c.block, entry+100, entry+125_000, 0x20067, 1)
	}
	old := uint64(at - 1_635_000_000)
	b.Enter(abi.CoreTypeAIV, 1, old).Span(abi.CoreTypeAIV, 1, old+100, old+120_000, 0x20067, 1)
	return b.Bytes()
}

// TestStaleSlotFound: a core whose span lies far outside the other
// cores' is a stale-slot warning at its entry_cycle, naming the likely
// cause (a buffer not zeroed between launches); the launch's own cores,
// entering a few cycles apart, draw none.
func TestStaleSlotFound(t *testing.T) {
	r, err := CheckBytes("stale.bin", staleCapture(), Options{})
	require.NoError(t, err)
	var got []Finding
	for _, f := range r.Findings {
		if f.Code == CodeStaleSlot {
			got = append(got, f)
		}
	}
	require.Len(t, got, 1, "stale-slot findings")
	require.Equal(t, "AIV/1", got[0].Slot, "stale-slot findings")
	for _, want := range []string{"entry_cycle=365000000, 1634880000 cycles before the span of the other 4 cores (2000000000..2000125021)", "not zeroed between launches", "zero the profiling buffer before every launch"} {
		assert.Contains(t, got[0].String(), want, "finding")
	}
	// Without the stale core: nothing.
	b := capturetest.New(24, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1100, 2000, 0x20067, 1)
	b.Enter(abi.CoreTypeAIV, 0, 1500).Span(abi.CoreTypeAIV, 0, 1600, 9000, 0x20067, 1)
	r, err = CheckBytes("fresh.bin", b.Bytes(), Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, r.Count(CodeStaleSlot), "a fresh launch drew")
}
