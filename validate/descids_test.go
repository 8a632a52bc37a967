package validate_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/kernelfamily"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// propDescIDs: Result.DescIDs are the distinct desc ids that
// kernelfamily.Scan reads from the decoded capture (what validate --strict
// read the capture a second time for), with the block check on or off, on
// one goroutine or several, and with more distinct ids than the block
// check's cache of 256 holds (ids pushed out of it and back).
func propDescIDs(t *rapid.T) {
	pool := []uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), 0xFFFFFFF0}
	for _, ns := range abi.Namespaces() {
		for i := range min(ns.Count(), 300) {
			pool = append(pool, ns.Base()+i)
		}
	}
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
	ids := pool[:rapid.IntRange(1, len(pool)).Draw(t, "ids")]
	b := capturetest.New(abi.MinCubeSlots, 16*rapid.SampledFrom([]uint32{1, 8, 64}).Draw(t, "aic"), 16*rapid.SampledFrom([]uint32{1, 8, 64}).Draw(t, "aiv"))
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		if i != 0 && i != int(b.Layout.CubeSlots) && rng.IntN(3) == 0 {
			continue
		}
		at := 1000 + rng.Uint64N(100)
		b.Enter(s.CoreType, s.BlockID, at)
		for j := range rng.IntN(int(s.Capacity) + 1) {
			b.Span(s.CoreType, s.BlockID, at, at+5, ids[rng.IntN(len(ids))], uint32(j))
			at += 10
		}
	}
	buf := b.Bytes()
	c, err := capture.FromBytes("x.bin", buf)
	require.NoError(t, err)
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	recs, err := kernelfamily.Scan(d)
	require.NoError(t, err)
	defer validate.SetFastPaths(rapid.Bool().Draw(t, "fast"))()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(rapid.IntRange(1, 4).Draw(t, "procs")))
	r, err := validate.CheckBytes("x.bin", buf, validate.Options{DescIDs: true})
	require.NoError(t, err)
	require.Truef(t, slices.Equal(r.DescIDs, recs.DescIDs), "validate's desc ids %#x, kernelfamily.Scan's %#x", r.DescIDs, recs.DescIDs)
	r, _ = validate.CheckBytes("x.bin", buf, validate.Options{})
	require.Nil(t, r.DescIDs, "desc ids not asked for")
}

func TestDescIDs(t *testing.T) { rapid.Check(t, propDescIDs) }
