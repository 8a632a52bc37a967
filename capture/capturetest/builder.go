// Package capturetest builds capture buffers for tests: a valid layout
// written through the generated device-writer helpers, then bent on purpose
// where a test needs a fault. It sits beside capture, as httptest beside
// net/http, for the tests of every package that reads captures.
package capturetest

import (
	"encoding/binary"
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Builder holds a whole profiling buffer being written.
type Builder struct {
	Layout abi.Layout
	Buf    []byte
}

// New returns an all-zero buffer (every slot unused) for the layout of
// cubeSlots cube slots with the given AIC and AIV capacities (today's
// two regions; any other region of the schema gets capacity 0). It panics
// on a layout that cannot exist: tests pass literal values.
func New(cubeSlots, aicCapacity, aivCapacity uint32) *Builder {
	return NewWith(cubeSlots, abi.Capacities{AIC: aicCapacity, AIV: aivCapacity})
}

// NewWith returns an all-zero buffer (every slot unused) for the layout of
// cubeSlots cube slots with capacities caps. It panics on a layout that
// cannot exist.
func NewWith(cubeSlots uint32, caps abi.Capacities) *Builder {
	l, err := abi.NewLayout(cubeSlots, caps)
	if err != nil {
		panic(err)
	}
	return &Builder{Layout: l, Buf: make([]byte, l.Size())}
}

// Slot returns the slot of core type t and block id.
func (b *Builder) Slot(t abi.CoreType, blockID uint32) abi.Slot {
	for i := range b.Layout.NumSlots() {
		if s := b.Layout.Slot(i); s.CoreType == t && s.BlockID == blockID {
			return s
		}
	}
	panic(fmt.Sprintf("no slot %s/%d", t, blockID))
}

// SlotBytes returns the bytes of a slot (header and records).
func (b *Builder) SlotBytes(s abi.Slot) []byte {
	return b.Buf[s.Offset : s.Offset+s.Stride()]
}

// Enter writes a slot's header as a core does at kernel entry.
func (b *Builder) Enter(t abi.CoreType, blockID uint32, entryCycle uint64) *Builder {
	s := b.Slot(t, blockID)
	if err := abi.InitSlot(b.SlotBytes(s), entryCycle, t, blockID, s.Capacity); err != nil {
		panic(err)
	}
	return b
}

// Write appends one record to an entered slot as the device does
// (counted as dropped when the slot is full).
func (b *Builder) Write(t abi.CoreType, blockID uint32, r abi.ProfileRecord) *Builder {
	if _, err := abi.WriteRecord(b.SlotBytes(b.Slot(t, blockID)), &r); err != nil {
		panic(err)
	}
	return b
}

// Span is shorthand for Write of a record [start, end) with a descriptor
// and task; owner is abi.InvalidOwnerID.
func (b *Builder) Span(t abi.CoreType, blockID uint32, start, end uint64, descID, taskID uint32) *Builder {
	return b.Write(t, blockID, abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: descID, TaskID: taskID, OwnerID: abi.InvalidOwnerID})
}

// HeaderOffset is the buffer offset of a header field of a slot.
func (b *Builder) HeaderOffset(t abi.CoreType, blockID uint32, fieldOffset int) int {
	return int(b.Slot(t, blockID).Offset) + fieldOffset
}

// RecordOffset is the buffer offset of a field of record i of a slot.
func (b *Builder) RecordOffset(t abi.CoreType, blockID uint32, i, fieldOffset int) int {
	return int(b.Slot(t, blockID).Offset) + abi.CoreHeaderSize + i*abi.ProfileRecordSize + fieldOffset
}

// Put32 overwrites the u32 at a buffer offset.
func (b *Builder) Put32(off int, v uint32) *Builder {
	binary.LittleEndian.PutUint32(b.Buf[off:], v)
	return b
}

// Put64 overwrites the u64 at a buffer offset.
func (b *Builder) Put64(off int, v uint64) *Builder {
	binary.LittleEndian.PutUint64(b.Buf[off:], v)
	return b
}

// SetHeader32 overwrites a u32 header field of a slot.
func (b *Builder) SetHeader32(t abi.CoreType, blockID uint32, fieldOffset int, v uint32) *Builder {
	return b.Put32(b.HeaderOffset(t, blockID, fieldOffset), v)
}

// Bytes is the buffer.
func (b *Builder) Bytes() []byte { return b.Buf }

// NPY wraps buf in a NumPy v1.0 .npy file of dtype |u1 and shape (len,),
// as capture.WriteFile writes it.
func NPY(buf []byte) []byte {
	return append(capture.NPYHeader(uint64(len(buf))), buf...)
}

// NPYWithHeader wraps buf in a .npy v1.0 file with the given header dict,
// padded as NumPy pads it (capture.NPYHeaderDict).
func NPYWithHeader(header string, buf []byte) []byte {
	return append(capture.NPYHeaderDict(header), buf...)
}
