package abi

// This file is hand-written: the Go mirror of the device-side writer
// helpers of the C++ header (InitSlot, AppendRecord), for tests and the
// simulator. It addresses the header fields the schema loader requires of
// every layout (record_count, dropped_count, record_capacity).

import "encoding/binary"

// InitSlot writes the CoreHeader of a slot as a core does at kernel entry:
// entry_cycle, core_type, block_id and record_capacity as given; record_count,
// dropped_count and every other field 0, padding zeroed. The records are left
// as they are. slot must hold the whole slot, SlotStride(capacity) bytes;
// otherwise it returns a *ShortBufferError and writes nothing.
func InitSlot(slot []byte, entryCycle uint64, t CoreType, blockID, capacity uint32) error {
	if need := SlotStride(capacity); uint64(len(slot)) < need {
		return &ShortBufferError{Struct: "slot", Need: int(need), Have: len(slot)}
	}
	h := CoreHeader{EntryCycle: entryCycle, CoreType: t, BlockID: blockID, RecordCapacity: capacity}
	// Append fills the header in place: the slice has room for exactly it.
	h.Append(slot[:0:headerSize])
	return nil
}

// WriteRecord appends r to a slot whose header InitSlot wrote, the way a core
// does: when record_count < record_capacity it writes r at index record_count
// and increments record_count (written is true); otherwise it only increments
// dropped_count (wrapping at 2^32 like the device's u32). It never writes past
// the capacity. A slot shorter than SlotStride(record_capacity) is a
// *ShortBufferError and nothing is written.
func WriteRecord(slot []byte, r *ProfileRecord) (written bool, err error) {
	if len(slot) < headerSize {
		return false, &ShortBufferError{Struct: headerName, Need: headerSize, Have: len(slot)}
	}
	count := binary.LittleEndian.Uint32(slot[headerRecordCountOffset:])
	capacity := binary.LittleEndian.Uint32(slot[headerRecordCapacityOffset:])
	if need := SlotStride(capacity); uint64(len(slot)) < need {
		return false, &ShortBufferError{Struct: "slot", Need: int(need), Have: len(slot)}
	}
	if count >= capacity {
		dropped := binary.LittleEndian.Uint32(slot[headerDroppedCountOffset:])
		binary.LittleEndian.PutUint32(slot[headerDroppedCountOffset:], dropped+1)
		return false, nil
	}
	at := headerSize + uint64(count)*recordSize
	// Append fills the record in place: the slice has room for exactly it.
	r.Append(slot[at : at : at+recordSize])
	binary.LittleEndian.PutUint32(slot[headerRecordCountOffset:], count+1)
	return true, nil
}
