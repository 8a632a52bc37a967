package abi_test

import (
	"bytes"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// guard fills bytes the writer must not touch.
const guard = 0xA5

func TestInitSlot(t *testing.T) {
	const capacity = 16
	slot := bytes.Repeat([]byte{guard}, int(abi.SlotStride(capacity))+8)
	require.NoError(t, abi.InitSlot(slot, 12345, abi.CoreTypeAIV, 17, capacity))
	h, err := abi.DecodeCoreHeader(slot)
	require.NoError(t, err)
	want := abi.CoreHeader{EntryCycle: 12345, CoreType: abi.CoreTypeAIV, BlockID: 17, RecordCapacity: capacity}
	assert.Equal(t, want, h, "header")
	for i, b := range slot[abi.CoreHeaderSize:] {
		require.Equalf(t, byte(guard), b, "InitSlot changed byte %d after the header", abi.CoreHeaderSize+i)
	}

	short := bytes.Repeat([]byte{guard}, int(abi.SlotStride(capacity))-1)
	err = abi.InitSlot(short, 1, abi.CoreTypeAIC, 0, capacity)
	var sb *abi.ShortBufferError
	require.ErrorAsf(t, err, &sb, "short slot: %v", err)
	require.Equalf(t, "slot", sb.Struct, "short slot: %v", err)
	require.Equalf(t, 64+32*16, sb.Need, "short slot: %v", err)
	assert.Equalf(t, len(short), sb.Have, "short slot: %v", err)
	assert.Equal(t, len(short), bytes.Count(short, []byte{guard}), "InitSlot wrote into a slot it refused")
}

// TestWriteRecord writes n records into a slot of capacity c, as a core
// does: the first c are stored in order and counted, the rest only counted
// as dropped, and nothing past the slot's stride changes.
func TestWriteRecord(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.SampledFrom([]uint32{0, 16, 32, 48}).Draw(t, "capacity")
		records := rapid.SliceOfN(rapid.Make[abi.ProfileRecord](), 0, int(capacity)+20).Draw(t, "records")
		stride := int(abi.SlotStride(capacity))
		extra := rapid.IntRange(0, 40).Draw(t, "extra")
		slot := bytes.Repeat([]byte{guard}, stride+extra)
		require.NoError(t, abi.InitSlot(slot, 99, abi.CoreTypeAIC, 3, capacity))
		for i := range records {
			written, err := abi.WriteRecord(slot, &records[i])
			require.NoErrorf(t, err, "record %d", i)
			require.Equalf(t, (uint32(i) < capacity), written, "record %d: written with capacity %d", i, capacity)
		}
		h, _ := abi.DecodeCoreHeader(slot)
		stored := min(len(records), int(capacity))
		require.Equalf(t, uint32(stored), h.RecordCount, "record_count, dropped_count after %d records into %d", len(records), capacity)
		require.Equalf(t, uint32(len(records)-stored), h.DroppedCount, "record_count, dropped_count after %d records into %d", len(records), capacity)
		require.Equalf(t, uint64(99), h.EntryCycle, "the header's identity changed: %+v", h)
		require.Equalf(t, abi.CoreType(abi.CoreTypeAIC), h.CoreType, "the header's identity changed: %+v", h)
		require.Equalf(t, uint32(3), h.BlockID, "the header's identity changed: %+v", h)
		require.Equalf(t, capacity, h.RecordCapacity, "the header's identity changed: %+v", h)
		for i := 0; i < stored; i++ {
			at := abi.CoreHeaderSize + i*abi.ProfileRecordSize
			got, _ := abi.DecodeProfileRecord(slot[at:])
			require.Equalf(t, records[i], got, "record %d reads", i)
		}
		for i := abi.CoreHeaderSize + stored*abi.ProfileRecordSize; i < len(slot); i++ {
			require.Equalf(t, byte(guard), slot[i], "byte %d past the last stored record changed (stride %d)", i, stride)
		}
	})
}

func TestWriteRecordRefuses(t *testing.T) {
	r := abi.ProfileRecord{StartCycle: 1, EndCycle: 2}
	var sb *abi.ShortBufferError

	_, err := abi.WriteRecord(make([]byte, abi.CoreHeaderSize-1), &r)
	if assert.ErrorAs(t, err, &sb, "a slot shorter than a header") {
		assert.Equal(t, "CoreHeader", sb.Struct, "a slot shorter than a header")
	}

	// A slot whose header claims more records than the slice holds: error,
	// and nothing written, even where there would be room for this record.
	slot := make([]byte, abi.SlotStride(16))
	require.NoError(t, abi.InitSlot(slot, 1, abi.CoreTypeAIC, 0, 16))
	before := bytes.Clone(slot)
	_, err = abi.WriteRecord(slot[:len(slot)-1], &r)
	if assert.ErrorAs(t, err, &sb, "a slot one byte short") {
		assert.Equal(t, "slot", sb.Struct, "a slot one byte short")
		assert.Equal(t, len(slot), sb.Need, "a slot one byte short")
	}

	assert.Equal(t, []byte(before), []byte(slot), "WriteRecord wrote into a slot it refused")

	// A corrupt header whose count exceeds the capacity only counts drops.
	h := abi.CoreHeader{RecordCount: 20, DroppedCount: 0xFFFFFFFF, RecordCapacity: 16}
	h.Append(slot[:0])
	before = bytes.Clone(slot)
	written, err := abi.WriteRecord(slot, &r)
	require.NoErrorf(t, err, "count past capacity: written %v", written)
	require.Falsef(t, written, "count past capacity: written %v", written)
	got, _ := abi.DecodeCoreHeader(slot)
	assert.Equal(t, uint32(20), got.RecordCount, "count past capacity: record_count")
	assert.Equal(t, uint32(0), got.DroppedCount, "count past capacity: record_count")
	assert.Equal(t, []byte(before[abi.CoreHeaderSize:]), []byte(slot[abi.CoreHeaderSize:]), "a record was written into a full slot")
}
