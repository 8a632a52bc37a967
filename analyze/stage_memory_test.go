package analyze_test

import (
	"runtime"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stagesCapture is a capture of n records, each of its own graph stage
// (desc_id GraphStageBase+i), over the 72 cores of 24 cube slots: the
// Gate family writes one stage per task.
func stagesCapture(t *testing.T, n int) *decode.Decoded {
	t.Helper()
	const cores = 72
	perCore := (n + cores - 1) / cores
	capacity := uint32((perCore + 15) / 16 * 16)
	b := capturetest.New(24, capacity, capacity)
	var slots []abi.Slot
	for i := range b.Layout.NumSlots() {
		slots = append(slots, b.Layout.Slot(i))
	}
	for _, s := range slots {
		b.Enter(s.CoreType, s.BlockID, 1000)
	}
	next := make([]uint64, len(slots))
	for i := range n {
		c := i % len(slots)
		s := slots[c]
		start := 1000 + next[c]
		next[c] += 10
		b.Span(s.CoreType, s.BlockID, start, start+5+uint64(i%7), abi.GraphStageBase+uint32(i%abi.GraphStageCount), uint32(i))
	}
	cp, err := capture.FromBytes("stages.bin", b.Bytes())
	require.NoError(t, err)
	d, err := decode.Decode(cp, capture.Request{CubeSlots: 24, Capacities: &b.Layout.Capacities})
	require.NoError(t, err)
	return d
}

// TestStageMemory: analyze allocates at most 1 KiB per distinct stage
// (so holds no more), however many stages a capture has: each group's
// first chunk of exact durations took 8 KiB whatever it held (65,536
// stages: 626 MiB of RSS).
func TestStageMemory(t *testing.T) {
	short.Skip(t, "a capture of 65,536 stages")
	const stages = 1 << 16
	small, big := stagesCapture(t, 64), stagesCapture(t, stages)
	alloc := func(d *decode.Decoded) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50})
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		require.GreaterOrEqual(t, len(r.Stages), 64)
		return after.TotalAlloc - before.TotalAlloc
	}
	base, got := alloc(small), alloc(big)
	per := float64(got-min(base, got)) / stages
	t.Logf("%d stages: %.0f bytes allocated a stage (%d in all; %d for 64)", stages, per, got, base)
	assert.LessOrEqual(t, per, float64(1024), "analyze allocates")
}
