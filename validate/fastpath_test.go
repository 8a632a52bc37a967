package validate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// manyRecordsCapture draws a capture whose slots hold up to a few thousand
// records (more than one block of the scan), each slot drawn from a seed:
// records out of start order, overlapping, before their core's entry, with
// unknown desc_ids or ending before they start, each at a drawn rate
// (often 0, so that long runs pass the block check).
func manyRecordsCapture(t *rapid.T) []byte {
	capOf := func(name string) uint32 {
		return abi.RecordCapacityAlignment * rapid.SampledFrom([]uint32{1, 2, 100, 129, 260}).Draw(t, name)
	}
	b := capturetest.New(abi.MinCubeSlots, capOf("aic"), capOf("aiv"))
	rate := func(name string) float64 { return rapid.SampledFrom([]float64{0, 0, 0.0005, 0.01, 0.2}).Draw(t, name) }
	pBreak, pOverlap, pEarly, pDesc, pNeg := rate("unsorted"), rate("overlap"), rate("early"), rate("desc"), rate("negative")
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
	descs := []uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), abi.GraphStageBase + 3}
	bad := []uint32{0xFFFFFFF0, abi.TaskTypeBase + abi.TaskTypeCount + 1}
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		if i != 0 && i != int(b.Layout.CubeSlots) && rng.IntN(8) != 0 {
			continue // not entered (the first header of each region is, for the layout)
		}
		entry := 100_000 + rng.Uint64N(1000)
		b.Enter(s.CoreType, s.BlockID, entry)
		n := int(s.Capacity)
		if rng.IntN(3) == 0 {
			n = rng.IntN(n + 1)
		}
		at := entry
		if pEarly > 0 {
			at -= uint64(float64(n) * pEarly * 40) // the first records start before the entry
		}
		for j := range n {
			start := at
			at += 10
			end := start + 7
			switch r := rng.Float64(); {
			case r < pBreak:
				start -= 25
			case r < pBreak+pOverlap:
				end += 15
			case r < pBreak+pOverlap+pEarly:
				start = entry - 1 - rng.Uint64N(5)
			case r < pBreak+pOverlap+pEarly+pNeg:
				end = start - 1
			}
			desc := descs[j%len(descs)]
			if rng.Float64() < pDesc {
				desc = bad[rng.IntN(len(bad))]
			}
			b.Span(s.CoreType, s.BlockID, start, end, desc, uint32(j))
		}
	}
	return b.Bytes()
}

// propFastPaths: the block check and the parallel walk of slots find, keep
// and count exactly what the record hook alone does, walking the slots in
// order, whatever the cap, and an OnFinding hook sees the same findings in
// the same order; the scan learns the same of each slot (sorted or not,
// the earliest start) from the block check as from its own walk.
func propFastPaths(t *rapid.T) {
	buf := manyRecordsCapture(t)
	o := validate.Options{MaxFindings: rapid.SampledFrom([]int{1, 2, 5, 100, -1}).Draw(t, "max")}
	defer validate.SetExactOverlapLimit(rapid.SampledFrom([]int{1 << 16, 16, 2000}).Draw(t, "exact"))()
	// The parallel walk of slots needs two goroutines or more.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(rapid.IntRange(1, 4).Draw(t, "procs")))
	var seen []string
	if rapid.Bool().Draw(t, "onFinding") {
		o.OnFinding = func(f *validate.Finding) { seen = append(seen, f.String()) }
	}
	run := func(fast bool) (string, []string) {
		defer validate.SetFastPaths(fast)()
		seen = nil
		r, err := validate.CheckBytes("x.bin", buf, o)
		require.NoError(t, err)
		var text bytes.Buffer
		require.NoError(t, validate.WriteText(&text, r))
		d := validate.NewDocument(false, o.MaxFindings)
		d.Add(r)
		j, err := json.Marshal(d)
		require.NoError(t, err)
		return text.String() + string(j), seen
	}
	slowSum, err := validate.ScanSummary(buf, o, false)
	require.NoError(t, err)
	fastSum, err := validate.ScanSummary(buf, o, true)
	require.NoError(t, err)
	require.Equal(t, slowSum, fastSum, "the scan with the block check summed up")
	slow, slowSeen := run(false)
	fast, fastSeen := run(true)
	require.Equal(t, slow, fast, "the fast paths found")
	require.Equalf(t, fmt.Sprint(slowSeen), fmt.Sprint(fastSeen), "OnFinding saw %d findings with the fast paths, %d without, or in another order", len(fastSeen), len(slowSeen))
}

func TestFastPaths(t *testing.T) { rapid.Check(t, propFastPaths) }
