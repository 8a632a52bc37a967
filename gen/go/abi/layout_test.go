package abi_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

func TestMaxRecordsPerCore(t *testing.T) {
	// The reference decoder: ((0xFFFFFFFF - 64) // 32 // 16) * 16.
	if abi.MaxRecordsPerCore != 134217712 {
		t.Errorf("MaxRecordsPerCore = %d", abi.MaxRecordsPerCore)
	}
	if s := abi.SlotStride(abi.MaxRecordsPerCore); s > abi.SlotStrideLimit {
		t.Errorf("the largest slot's stride %d exceeds the limit", s)
	}
	if s := abi.SlotStride(abi.MaxRecordsPerCore + abi.RecordCapacityAlignment); s <= abi.SlotStrideLimit {
		t.Errorf("MaxRecordsPerCore is not the largest aligned capacity: %d more records still fit", abi.RecordCapacityAlignment)
	}
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
			if !errors.As(err, &ce) || ce.Capacity != req {
				t.Fatalf("RoundUpCapacity(%d) = %d, %v; want a *CapacityError", req, c, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("RoundUpCapacity(%d): %v", req, err)
		}
		if c%abi.RecordCapacityAlignment != 0 || uint64(c) < req || uint64(c) >= req+abi.RecordCapacityAlignment {
			t.Fatalf("RoundUpCapacity(%d) = %d", req, c)
		}
		if err := abi.CheckCapacity(uint64(c)); err != nil {
			t.Fatalf("CheckCapacity refuses RoundUpCapacity's %d: %v", c, err)
		}
	})
	for req, want := range map[uint64]uint32{0: 0, 1: 16, 16: 16, 17: 32, abi.MaxRecordsPerCore: abi.MaxRecordsPerCore, abi.MaxRecordsPerCore - 15: abi.MaxRecordsPerCore} {
		if got, err := abi.RoundUpCapacity(req); err != nil || got != want {
			t.Errorf("RoundUpCapacity(%d) = %d, %v; want %d", req, got, err, want)
		}
	}
	_, err := abi.RoundUpCapacity(abi.MaxRecordsPerCore + 1)
	if err == nil || err.Error() != "abi: record capacity 134217713 exceeds MaxRecordsPerCore (134217712)" {
		t.Errorf("past the maximum: %v", err)
	}
}

func TestCheckCapacity(t *testing.T) {
	for c, ok := range map[uint64]bool{0: true, 16: true, 17: false, 8: false, abi.MaxRecordsPerCore: true, abi.MaxRecordsPerCore + 16: false, math.MaxUint64: false} {
		err := abi.CheckCapacity(c)
		if (err == nil) != ok {
			t.Errorf("CheckCapacity(%d) = %v", c, err)
		}
		// A nil *CapacityError must not become a non-nil error.
		if ok && err != nil {
			t.Errorf("CheckCapacity(%d) returned a non-nil error for a good capacity", c)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		a, v := uint64(64+32*uint64(caps.AIC)), uint64(64+32*uint64(caps.AIV))
		if l.NumSlots() != 3*int(c) || l.SlotCount(abi.CoreTypeAIC) != c || l.SlotCount(abi.CoreTypeAIV) != 2*c {
			t.Fatalf("slot counts: %d, %d, %d", l.NumSlots(), l.SlotCount(abi.CoreTypeAIC), l.SlotCount(abi.CoreTypeAIV))
		}
		i := rapid.Uint32Max(c-1).Draw(t, "aic")
		j := rapid.Uint32Max(2*c-1).Draw(t, "aiv")
		if got := l.SlotOffset(abi.CoreTypeAIC, i); got != uint64(i)*a {
			t.Fatalf("AIC slot %d at %d, want %d", i, got, uint64(i)*a)
		}
		if got, want := l.SlotOffset(abi.CoreTypeAIV, j), uint64(c)*a+uint64(j)*v; got != want {
			t.Fatalf("AIV slot %d at %d, want %d", j, got, want)
		}
		var sum uint64
		for k := 0; k < l.NumSlots(); k++ {
			s := l.Slot(k)
			if s.Offset != sum {
				t.Fatalf("slot %d (%s) at %d, want %d", k, s, s.Offset, sum)
			}
			if o, ok := l.SlotOf(s.CoreType, s.BlockID); !ok || o != s {
				t.Fatalf("SlotOf(%s) = %+v, %v; Slot(%d) = %+v", s, o, ok, k, s)
			}
			sum += s.Stride()
		}
		if want := uint64(c)*a + 2*uint64(c)*v; sum != want || l.Size() != want {
			t.Fatalf("strides sum to %d, Size %d, SPEC %d", sum, l.Size(), want)
		}
		size, err := abi.BufferSize(c, caps)
		if err != nil || size != l.Size() {
			t.Fatalf("BufferSize = %d, %v; want %d", size, err, l.Size())
		}
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
			if !errors.As(err, &le) {
				t.Fatalf("BufferSize(%d, %+v) = %d, %v; exact %s", c, caps, size, err, exact)
			}
		case err != nil || size != exact.Uint64():
			t.Fatalf("BufferSize(%d, %+v) = %d, %v; want %s", c, caps, size, err, exact)
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
		if !errors.As(err, &le) || le.Reason != c.reason || le.CubeSlots != c.cube {
			t.Errorf("BufferSize(%d, max) = %v, want %q", c.cube, err, c.reason)
		}
	}
	// The largest buffer that fits: every slot as large as it can be.
	if size, err := abi.BufferSize(1<<20, maxCaps); err != nil || size != 3<<20*uint64(abi.SlotStride(abi.MaxRecordsPerCore)) {
		t.Errorf("BufferSize(2^20, max) = %d, %v", size, err)
	}
}

func TestNewLayoutErrors(t *testing.T) {
	_, err := abi.NewLayout(abi.MinCubeSlots-1, abi.Capacities{})
	var le *abi.LayoutError
	if !errors.As(err, &le) || err.Error() != "abi: layout with 23 cube slots: fewer than MinCubeSlots (24)" {
		t.Errorf("23 cube slots: %v", err)
	}
	_, err = abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: 16, AIV: 24})
	var ce *abi.CapacityError
	if !errors.As(err, &ce) || ce.CoreType != abi.CoreTypeAIV || err.Error() != "abi: AIV record capacity 24 is not a multiple of RecordCapacityAlignment (16)" {
		t.Errorf("AIV capacity 24: %v", err)
	}
	if _, err := abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: abi.MaxRecordsPerCore + 16}); !errors.As(err, &ce) || ce.CoreType != abi.CoreTypeAIC {
		t.Errorf("AIC capacity past the maximum: %v", err)
	}
}

func TestSlot(t *testing.T) {
	l, err := abi.NewLayout(24, abi.Capacities{AIC: 16, AIV: 32})
	if err != nil {
		t.Fatal(err)
	}
	s := l.Slot(3)
	if s.String() != "AIC/3" || s.Capacity != 16 || s.Stride() != 64+32*16 || s.RecordOffset(2) != s.Offset+64+64 {
		t.Errorf("Slot(3) = %+v (%s)", s, s)
	}
	if s := l.Slot(24 + 17); s.String() != "AIV/17" || s.Offset != 24*(64+32*16)+17*(64+32*32) || s.Capacity != 32 {
		t.Errorf("Slot(41) = %+v", s)
	}
	if _, ok := l.SlotOf(abi.CoreTypeAIV, 48); ok {
		t.Errorf("SlotOf(AIV, 48) exists in a 24-cube layout")
	}
	if _, ok := l.SlotOf(abi.CoreType(7), 0); ok {
		t.Errorf("SlotOf(CoreType(7), 0) exists")
	}
	if got := l.SlotOffset(abi.CoreType(7), 0); got != l.Size() {
		t.Errorf("SlotOffset of an unknown core type = %d, want Size %d", got, l.Size())
	}
	for _, i := range []int{-1, l.NumSlots()} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "out of range") {
					t.Errorf("Slot(%d) did not panic as an index out of range: %v", i, r)
				}
			}()
			l.Slot(i)
		}()
	}
	if got := abi.Regions(); len(got) != 2 || got[0].CoreType != abi.CoreTypeAIC || got[1].SlotsPerCubeSlot != 2 {
		t.Errorf("Regions() = %+v", got)
	}
	var caps abi.Capacities
	if !caps.Set(abi.CoreTypeAIV, 48) || caps.For(abi.CoreTypeAIV) != 48 || caps.Set(abi.CoreType(9), 1) || caps.For(abi.CoreType(9)) != 0 {
		t.Errorf("Capacities.Set/For: %+v", caps)
	}
}

// SameCapacities gives every region of the schema the one capacity, and a
// core type with no region none.
func TestSameCapacities(t *testing.T) {
	caps := abi.SameCapacities(48)
	for _, r := range abi.Regions() {
		if got := caps.For(r.CoreType); got != 48 {
			t.Errorf("%s: capacity %d, want 48", r.CoreType, got)
		}
	}
	if got := caps.For(abi.CoreType(0xFFFF)); got != 0 {
		t.Errorf("a core type with no region: capacity %d, want 0", got)
	}
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
	if got := l.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if len(abi.Regions()) == 2 && want != "24 cube slots, AIC capacity 16, AIV capacity 256" {
		t.Errorf("today's schema: %q", want)
	}
}
