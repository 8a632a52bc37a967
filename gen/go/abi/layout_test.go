package abi_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestMaxRecordsPerCore(t *testing.T) {
	// The reference decoder: ((0xFFFFFFFF - 64) // 32 // 16) * 16.
	assert.Equal(t, abi.MaxRecordsPerCore, 134217712, "MaxRecordsPerCore")
	s := abi.SlotStride(abi.MaxRecordsPerCore)
	assert.LessOrEqual(t, s, uint64(abi.SlotStrideLimit), "the largest slot's stride")
	assert.Greaterf(t, abi.SlotStride(abi.MaxRecordsPerCore+abi.RecordCapacityAlignment), uint64(abi.SlotStrideLimit), "MaxRecordsPerCore is not the largest aligned capacity: %d more records still fit", abi.RecordCapacityAlignment)
}

// TestRoundUpCapacity: the result is aligned, holds the requirement and
// wastes less than one alignment; past the maximum it is a *CapacityError.
func TestRoundUpCapacity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := rapid.OneOf(
			rapid.Uint64Max(abi.MaxRecordsPerCore+64),
			rapid.Uint64Range(abi.MaxRecordsPerCore-64, abi.MaxRecordsPerCore+64),
			rapid.Uint64(),
		).Draw(t, "required")
		c, err := abi.RoundUpCapacity(req)
		if req > abi.MaxRecordsPerCore {
			var ce *abi.CapacityError
			require.ErrorAsf(t, err, &ce, "RoundUpCapacity(%d) = %d, %v; want a *CapacityError", req, c, err)
			require.Equalf(t, req, ce.Capacity, "RoundUpCapacity(%d) = %d, %v; want a *CapacityError", req, c, err)
			return
		}
		require.NoErrorf(t, err, "RoundUpCapacity(%d)", req)
		require.Equalf(t, uint32(0), c%abi.RecordCapacityAlignment, "RoundUpCapacity = %d", c)
		require.GreaterOrEqualf(t, uint64(c), req, "RoundUpCapacity = %d", c)
		require.Lessf(t, uint64(c), req+abi.RecordCapacityAlignment, "RoundUpCapacity = %d", c)
		require.NoErrorf(t, abi.CheckCapacity(uint64(c)), "CheckCapacity refuses RoundUpCapacity's %d", c)
	})
	for req, want := range map[uint64]uint32{0: 0, 1: 16, 16: 16, 17: 32, abi.MaxRecordsPerCore: abi.MaxRecordsPerCore, abi.MaxRecordsPerCore - 15: abi.MaxRecordsPerCore} {
		got, err := abi.RoundUpCapacity(req)
		require.NoErrorf(t, err, "RoundUpCapacity(%d)", req)
		assert.Equalf(t, want, got, "RoundUpCapacity(%d)", req)
	}
	_, err := abi.RoundUpCapacity(abi.MaxRecordsPerCore + 1)
	assert.EqualErrorf(t, err, "abi: record capacity 134217713 exceeds MaxRecordsPerCore (134217712)", "past the maximum: %v", err)
}

func TestCheckCapacity(t *testing.T) {
	for c, ok := range map[uint64]bool{0: true, 16: true, 17: false, 8: false, abi.MaxRecordsPerCore: true, abi.MaxRecordsPerCore + 16: false, math.MaxUint64: false} {
		err := abi.CheckCapacity(c)
		assert.Equalf(t, ok, (err == nil), "CheckCapacity(%d) = %v", c, err)
		// A nil *CapacityError must not become a non-nil error.
		assert.Falsef(t, ok && err != nil, "CheckCapacity(%d) returned a non-nil error for a good capacity", c)
	}
}

// drawLayout draws a layout NewLayout accepts: cube slots from the minimum
// up, aligned capacities over the whole range.
func drawLayout(t *rapid.T, maxCube uint32) (uint32, abi.Capacities) {
	cube := rapid.Uint32Range(abi.MinCubeSlots, maxCube).Draw(t, "cubeSlots")
	capacity := func(label string) uint32 {
		return rapid.OneOf(
			rapid.Uint32Max(4),
			rapid.Uint32Max(abi.MaxRecordsPerCore/abi.RecordCapacityAlignment),
		).Draw(t, label) * abi.RecordCapacityAlignment
	}
	return cube, abi.Capacities{AIC: capacity("aic"), AIV: capacity("aiv")}
}

// TestLayoutMatchesSpec: slot offsets follow the formulas of gen/doc/ABI.md "Buffer layout", slots tile
// the buffer in order, and the size is the sum of the strides.
func TestLayoutMatchesSpec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, caps := drawLayout(t, 200)
		l, err := abi.NewLayout(c, caps)
		require.NoError(t, err)
		a, v := uint64(64+32*uint64(caps.AIC)), uint64(64+32*uint64(caps.AIV))
		require.Equal(t, 3*int(c), l.NumSlots(), "slot count")
		require.Equal(t, c, l.SlotCount(abi.CoreTypeAIC), "AIC slot count")
		require.Equal(t, 2*c, l.SlotCount(abi.CoreTypeAIV), "AIV slot count")
		i := rapid.Uint32Max(c-1).Draw(t, "aic")
		j := rapid.Uint32Max(2*c-1).Draw(t, "aiv")
		require.Equalf(t, uint64(i)*a, l.SlotOffset(abi.CoreTypeAIC, i), "AIC slot %d at", i)
		require.Equalf(t, uint64(c)*a+uint64(j)*v, l.SlotOffset(abi.CoreTypeAIV, j), "AIV slot %d at", j)
		var sum uint64
		for k := 0; k < l.NumSlots(); k++ {
			s := l.Slot(k)
			require.Equalf(t, sum, s.Offset, "slot %d (%s) at", k, s)
			o, ok := l.SlotOf(s.CoreType, s.BlockID)
			require.Truef(t, ok, "SlotOf, %v; Slot(%d)", ok, k)
			require.Equalf(t, s, o, "SlotOf, %v; Slot(%d)", ok, k)
			sum += s.Stride()
		}
		want := uint64(c)*a + 2*uint64(c)*v
		require.Equal(t, want, sum, "strides sum, SPEC")
		require.Equal(t, want, l.Size(), "Size, SPEC")
		size, err := abi.BufferSize(c, caps)
		require.NoError(t, err, "BufferSize")
		require.Equal(t, l.Size(), size, "BufferSize")

	})
}

// TestBufferSizeOverflow: BufferSize errs exactly when the exact size (in
// big integers) exceeds a uint64 or a region has more slots than u32 block
// ids number, for layouts across the whole range.
func TestBufferSizeOverflow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, caps := drawLayout(t, math.MaxUint32)
		exact := new(big.Int)
		for _, r := range abi.Regions() {
			slots := new(big.Int).SetUint64(uint64(r.SlotsPerCubeSlot) * uint64(c))
			exact.Add(exact, slots.Mul(slots, new(big.Int).SetUint64(abi.SlotStride(caps.For(r.CoreType)))))
		}
		tooMany := 2*uint64(c) > math.MaxUint32
		size, err := abi.BufferSize(c, caps)
		switch {
		case tooMany || !exact.IsUint64():
			var le *abi.LayoutError
			require.ErrorAsf(t, err, &le, "BufferSize(%d, %+v) = %d, %v; exact %s", c, caps, size, err, exact)
		case err != nil || size != exact.Uint64():
			require.FailNow(t, fmt.Sprintf("BufferSize(%d, %+v) = %d, %v; want %s", c, caps, size, err, exact))
		}
	})
	maxCaps := abi.Capacities{AIC: abi.MaxRecordsPerCore, AIV: abi.MaxRecordsPerCore}
	for _, c := range []struct {
		cube   uint32
		reason string
	}{
		{math.MaxUint32, "8589934590 AIV slots are more than a u32 block id numbers"},
		{math.MaxInt32, "the buffer size overflows a uint64"},
	} {
		_, err := abi.BufferSize(c.cube, maxCaps)
		var le *abi.LayoutError
		require.ErrorAsf(t, err, &le, "BufferSize, max) = %v", err)
		require.Equalf(t, c.reason, le.Reason, "BufferSize, max) = %v", err)
		assert.Equalf(t, c.cube, le.CubeSlots, "BufferSize, max) = %v", err)
	}
	// The largest buffer that fits: every slot as large as it can be.
	size, err := abi.BufferSize(1<<20, maxCaps)
	require.NoError(t, err, "BufferSize(2^20, max)")
	assert.Equal(t, 3<<20*uint64(abi.SlotStride(abi.MaxRecordsPerCore)), size, "BufferSize(2^20, max)")
}

func TestNewLayoutErrors(t *testing.T) {
	_, err := abi.NewLayout(abi.MinCubeSlots-1, abi.Capacities{})
	var le *abi.LayoutError
	require.ErrorAsf(t, err, &le, "23 cube slots: %v", err)
	assert.Equalf(t, "abi: layout with 23 cube slots: fewer than MinCubeSlots (24)", err.Error(), "23 cube slots: %v", err)
	_, err = abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: 16, AIV: 24})
	var ce *abi.CapacityError
	require.ErrorAsf(t, err, &ce, "AIV capacity 24: %v", err)
	require.Equalf(t, abi.CoreType(abi.CoreTypeAIV), ce.CoreType, "AIV capacity 24: %v", err)
	assert.Equalf(t, "abi: AIV record capacity 24 is not a multiple of RecordCapacityAlignment (16)", err.Error(), "AIV capacity 24: %v", err)
	_, err = abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: abi.MaxRecordsPerCore + 16})
	if assert.ErrorAs(t, err, &ce, "AIC capacity past the maximum") {
		assert.Equal(t, abi.CoreTypeAIC, ce.CoreType, "AIC capacity past the maximum: core type")
	}
}

func TestSlot(t *testing.T) {
	l, err := abi.NewLayout(24, abi.Capacities{AIC: 16, AIV: 32})
	require.NoError(t, err)
	s := l.Slot(3)
	require.Equalf(t, "AIC/3", s.String(), "Slot(3) = %+v (%s)", s, s)
	require.Equalf(t, uint32(16), s.Capacity, "Slot(3) = %+v (%s)", s, s)
	require.Equalf(t, uint64(64+32*16), s.Stride(), "Slot(3) = %+v (%s)", s, s)
	assert.Equalf(t, s.Offset+64+64, s.RecordOffset(2), "Slot(3) = %+v (%s)", s, s)
	s = l.Slot(24 + 17)
	assert.Equal(t, "AIV/17", s.String(), "Slot(41)")
	assert.Equal(t, uint64(24*(64+32*16)+17*(64+32*32)), s.Offset, "Slot(41) offset")
	assert.Equal(t, uint32(32), s.Capacity, "Slot(41) capacity")
	_, ok := l.SlotOf(abi.CoreTypeAIV, 48)
	assert.False(t, ok, "SlotOf(AIV, 48) exists in a 24-cube layout")
	_, ok = l.SlotOf(abi.CoreType(7), 0)
	assert.False(t, ok, "SlotOf(CoreType(7), 0) exists")

	assert.Equal(t, l.Size(), l.SlotOffset(abi.CoreType(7), 0), "SlotOffset of an unknown core type")
	for _, i := range []int{-1, l.NumSlots()} {
		func() {
			defer func() {
				r := recover()
				require.NotNilf(t, r, "Slot(%d) did not panic as an index out of range: %v", i, r)
				assert.Containsf(t, r.(string), "out of range", "Slot(%d) did not panic as an index out of range: %v", i, r)
			}()
			l.Slot(i)
		}()
	}
	got := abi.Regions()
	require.Len(t, got, 2, "Regions()")
	require.Equal(t, abi.CoreType(abi.CoreTypeAIC), got[0].CoreType, "Regions()")
	assert.Equal(t, uint32(2), got[1].SlotsPerCubeSlot, "Regions()")
	var caps abi.Capacities
	require.Truef(t, caps.Set(abi.CoreTypeAIV, 48), "Capacities.Set/For: %+v", caps)
	require.Equalf(t, uint32(48), caps.For(abi.CoreTypeAIV), "Capacities.Set/For: %+v", caps)
	require.Falsef(t, caps.Set(abi.CoreType(9), 1), "Capacities.Set/For: %+v", caps)
	assert.Equalf(t, uint32(0), caps.For(abi.CoreType(9)), "Capacities.Set/For: %+v", caps)
}

// SameCapacities gives every region of the schema the one capacity, and a
// core type with no region none.
func TestSameCapacities(t *testing.T) {
	caps := abi.SameCapacities(48)
	for _, r := range abi.Regions() {
		assert.Equalf(t, uint32(48), caps.For(r.CoreType), "%s: capacity", r.CoreType)
	}
	assert.Equal(t, uint32(0), caps.For(abi.CoreType(0xFFFF)), "a core type with no region: capacity")
}

// TestLayoutString: the one rendering of a layout every command shows,
// the cube slot count then each region's capacity, in buffer order.
func TestLayoutString(t *testing.T) {
	var caps abi.Capacities
	want := "24 cube slots"
	for i, r := range abi.Regions() {
		c := uint32(16 << (4 * i)) // 16, 256, 4096, ...: each region its own
		caps.Set(r.CoreType, c)
		want += fmt.Sprintf(", %s capacity %d", r.CoreType, c)
	}
	l := abi.Layout{CubeSlots: 24, Capacities: caps}
	assert.Equal(t, want, l.String(), "String()")
	assert.Falsef(t, len(abi.Regions()) == 2 && want != "24 cube slots, AIC capacity 16, AIV capacity 256", "today's schema: %q", want)
}
