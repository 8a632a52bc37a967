package abi

// This file is hand-written: the buffer layout over the schema's region
// table (regions, in layout_gen.go). Nothing here names a region; a schema
// with other regions, another header or another record regenerates the
// tables and this code follows them.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// Region is a run of slots of one core type in the buffer: SlotsPerCubeSlot*C
// slots (C = the layout's cube slot count), block ids 0 to SlotsPerCubeSlot*C-1.
type Region struct {
	// CoreType is the core type of every slot in the region.
	CoreType CoreType
	// SlotsPerCubeSlot is the region's slot count per cube slot.
	SlotsPerCubeSlot uint32
}

// Regions returns the regions in buffer order; the slice is the caller's to keep.
func Regions() []Region {
	return append([]Region(nil), regions[:]...)
}

// SameCapacities returns the capacities that give every region capacity.
func SameCapacities(capacity uint32) Capacities {
	var c Capacities
	for _, r := range regions {
		c.Set(r.CoreType, capacity)
	}
	return c
}

// CapacityError reports a record capacity the layout cannot use: one that is
// not a multiple of RecordCapacityAlignment or exceeds MaxRecordsPerCore.
type CapacityError struct {
	// CoreType is the region whose capacity it is; 0 when the capacity is not a region's.
	CoreType CoreType
	// Capacity is the refused capacity or requirement, in records.
	Capacity uint64
	// Reason says what is wrong with it ("exceeds MaxRecordsPerCore (134217712)").
	Reason string
}

// Error implements error.
func (e *CapacityError) Error() string {
	if e.CoreType == 0 {
		return fmt.Sprintf("abi: record capacity %d %s", e.Capacity, e.Reason)
	}
	return fmt.Sprintf("abi: %s record capacity %d %s", e.CoreType, e.Capacity, e.Reason)
}

// The reasons a capacity is refused, with the schema's constant names.
var (
	reasonTooMany   = fmt.Sprintf("exceeds MaxRecordsPerCore (%d)", MaxRecordsPerCore)
	reasonUnaligned = fmt.Sprintf("is not a multiple of %s (%d)", capacityAlignmentName, capacityAlignment)
)

// RoundUpCapacity returns the smallest capacity that holds required records:
// required rounded up to a multiple of RecordCapacityAlignment. A requirement
// beyond MaxRecordsPerCore is a *CapacityError: records are never dropped
// silently by planning too small a buffer.
func RoundUpCapacity(required uint64) (uint32, error) {
	if required > MaxRecordsPerCore {
		return 0, &CapacityError{Capacity: required, Reason: reasonTooMany}
	}
	// MaxRecordsPerCore is a multiple of the alignment, so rounding up stays within it.
	return uint32((required + capacityAlignment - 1) / capacityAlignment * capacityAlignment), nil
}

// CheckCapacity returns a *CapacityError unless capacity is a multiple of
// RecordCapacityAlignment and at most MaxRecordsPerCore.
func CheckCapacity(capacity uint64) error {
	// Return a nil error, not a nil *CapacityError.
	if err := checkCapacity(capacity); err != nil {
		return err
	}
	return nil
}

// checkCapacity is CheckCapacity with a concrete result type.
func checkCapacity(capacity uint64) *CapacityError {
	if capacity > MaxRecordsPerCore {
		return &CapacityError{Capacity: capacity, Reason: reasonTooMany}
	}
	if capacity%capacityAlignment != 0 {
		return &CapacityError{Capacity: capacity, Reason: reasonUnaligned}
	}
	return nil
}

// SlotStride returns the size in bytes of a slot holding capacity records: its
// CoreHeader followed by capacity ProfileRecords. For a capacity CheckCapacity
// accepts it is at most SlotStrideLimit.
func SlotStride(capacity uint32) uint64 {
	return headerSize + recordSize*uint64(capacity)
}

// LayoutError reports a buffer layout that cannot exist (too few cube slots,
// more slots than a block id can number, or a size past 2^64-1 bytes).
type LayoutError struct {
	// CubeSlots is the layout's cube slot count C.
	CubeSlots uint32
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *LayoutError) Error() string {
	return fmt.Sprintf("abi: layout with %d cube slots: %s", e.CubeSlots, e.Reason)
}

// Layout is the arrangement of slots in the profiling buffer: the regions in
// buffer order (C AIC slots and 2C AIV slots), where C = CubeSlots. Build it
// with NewLayout, which checks it; the methods assume a checked layout.
type Layout struct {
	// CubeSlots is C, the cube slot count; at least MinCubeSlots.
	CubeSlots uint32
	// Capacities are the record capacities of each region's slots.
	Capacities Capacities
}

// NewLayout returns the layout of cubeSlots cube slots whose regions hold caps
// records per slot. It returns a *LayoutError when cubeSlots is below
// MinCubeSlots, a region has more slots than a u32 block id numbers, or the
// buffer size overflows a uint64, and a *CapacityError (naming the region) for
// a capacity CheckCapacity refuses.
func NewLayout(cubeSlots uint32, caps Capacities) (Layout, error) {
	if cubeSlots < minCubeSlots {
		return Layout{}, &LayoutError{CubeSlots: cubeSlots, Reason: fmt.Sprintf("fewer than %s (%d)", minCubeSlotsName, minCubeSlots)}
	}
	for _, r := range regions {
		if err := checkCapacity(uint64(caps.For(r.CoreType))); err != nil {
			err.CoreType = r.CoreType
			return Layout{}, err
		}
		// Block ids are u32: a region cannot have more slots than they number.
		if slots := uint64(r.SlotsPerCubeSlot) * uint64(cubeSlots); slots > math.MaxUint32 {
			return Layout{}, &LayoutError{CubeSlots: cubeSlots, Reason: fmt.Sprintf("%d %s slots are more than a u32 block id numbers", slots, r.CoreType)}
		}
	}
	if _, ok := bufferSize(cubeSlots, caps); !ok {
		return Layout{}, &LayoutError{CubeSlots: cubeSlots, Reason: "the buffer size overflows a uint64"}
	}
	return Layout{CubeSlots: cubeSlots, Capacities: caps}, nil
}

// BufferSize returns the size in bytes of the buffer of cubeSlots cube slots
// with capacities caps: the sum of every slot's stride. It refuses what
// NewLayout refuses, including a size that overflows a uint64.
func BufferSize(cubeSlots uint32, caps Capacities) (uint64, error) {
	l, err := NewLayout(cubeSlots, caps)
	if err != nil {
		return 0, err
	}
	return l.Size(), nil
}

// bufferSize sums the strides of every slot, reporting false on overflow.
func bufferSize(cubeSlots uint32, caps Capacities) (uint64, bool) {
	var size uint64
	for _, r := range regions {
		slots := uint64(r.SlotsPerCubeSlot) * uint64(cubeSlots)
		hi, bytes := bits.Mul64(slots, SlotStride(caps.For(r.CoreType)))
		var carry uint64
		size, carry = bits.Add64(size, bytes, 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
	}
	return size, true
}

// Size returns the size in bytes of the whole buffer: the sum of every slot's
// stride. NewLayout checked it fits; for a Layout built without it, a size
// that overflows is reported as math.MaxUint64 (no buffer is that large).
func (l Layout) Size() uint64 {
	size, ok := bufferSize(l.CubeSlots, l.Capacities)
	if !ok {
		return math.MaxUint64
	}
	return size
}

// String renders the layout as every message of cycleabi shows one: "24
// cube slots, AIC capacity 16, AIV capacity 32", one capacity per region
// in buffer order.
func (l Layout) String() string {
	b := strconv.AppendUint(nil, uint64(l.CubeSlots), 10)
	b = append(b, " cube slots"...)
	for _, r := range Regions() {
		b = append(b, ", "...)
		b = append(b, r.CoreType.String()...)
		b = append(b, " capacity "...)
		b = strconv.AppendUint(b, uint64(l.Capacities.For(r.CoreType)), 10)
	}
	return string(b)
}

// NumSlots returns the number of slots in the buffer: every region's
// SlotsPerCubeSlot*CubeSlots (3*CubeSlots for AIC×1 + AIV×2).
func (l Layout) NumSlots() int {
	n := 0
	for _, r := range regions {
		n += int(r.SlotsPerCubeSlot) * int(l.CubeSlots)
	}
	return n
}

// SlotCount returns the number of slots of core type t (block ids 0 to
// SlotCount(t)-1), 0 for a core type with no region.
func (l Layout) SlotCount(t CoreType) uint32 {
	for _, r := range regions {
		if r.CoreType == t {
			return r.SlotsPerCubeSlot * l.CubeSlots
		}
	}
	return 0
}

// SlotOffset returns the byte offset in the buffer of the slot of core type t
// and block id blockID: the strides of every slot in the regions before t's,
// plus blockID strides of t's region. It is meaningful for blockID <
// SlotCount(t); for a core type with no region it returns Size().
func (l Layout) SlotOffset(t CoreType, blockID uint32) uint64 {
	var start uint64
	for _, r := range regions {
		stride := SlotStride(l.Capacities.For(r.CoreType))
		if r.CoreType == t {
			return start + uint64(blockID)*stride
		}
		start += uint64(r.SlotsPerCubeSlot) * uint64(l.CubeSlots) * stride
	}
	return start
}

// Slot returns slot i in buffer order: the slots of each region in turn
// (C AIC slots and 2C AIV slots), by block id. Like an index
// expression it panics unless 0 <= i < NumSlots().
func (l Layout) Slot(i int) Slot {
	if i >= 0 {
		rest := i
		for _, r := range regions {
			n := int(r.SlotsPerCubeSlot) * int(l.CubeSlots)
			if rest < n {
				s, _ := l.SlotOf(r.CoreType, uint32(rest))
				return s
			}
			rest -= n
		}
	}
	panic(fmt.Sprintf("abi: slot index %d out of range [0, %d)", i, l.NumSlots()))
}

// SlotOf returns the slot of core type t and block id blockID, and whether
// the layout has it.
func (l Layout) SlotOf(t CoreType, blockID uint32) (Slot, bool) {
	if blockID >= l.SlotCount(t) {
		return Slot{}, false
	}
	return Slot{CoreType: t, BlockID: blockID, Offset: l.SlotOffset(t, blockID), Capacity: l.Capacities.For(t)}, true
}

// Slot is one core's slot in the buffer: a CoreHeader followed by Capacity
// ProfileRecords.
type Slot struct {
	// CoreType is the core type of the slot's region.
	CoreType CoreType
	// BlockID is the core's index within its type.
	BlockID uint32
	// Offset is the byte offset of the slot in the buffer.
	Offset uint64
	// Capacity is the number of records the slot holds.
	Capacity uint32
}

// String returns the slot's name in messages and traces: "AIC/3".
func (s Slot) String() string {
	return s.CoreType.String() + "/" + strconv.FormatUint(uint64(s.BlockID), 10)
}

// Stride returns the slot's size in bytes.
func (s Slot) Stride() uint64 {
	return SlotStride(s.Capacity)
}

// RecordOffset returns the byte offset in the buffer of record i of the slot.
func (s Slot) RecordOffset(i uint32) uint64 {
	return s.Offset + headerSize + uint64(i)*recordSize
}
