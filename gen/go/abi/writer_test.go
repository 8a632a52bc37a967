package abi_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

// guard fills bytes the writer must not touch.
const guard = 0xA5

func TestInitSlot(t *testing.T) {
	const capacity = 16
	slot := bytes.Repeat([]byte{guard}, int(abi.SlotStride(capacity))+8)
	if err := abi.InitSlot(slot, 12345, abi.CoreTypeAIV, 17, capacity); err != nil {
		t.Fatal(err)
	}
	h, err := abi.DecodeCoreHeader(slot)
	if err != nil {
		t.Fatal(err)
	}
	want := abi.CoreHeader{EntryCycle: 12345, CoreType: abi.CoreTypeAIV, BlockID: 17, RecordCapacity: capacity}
	if h != want {
		t.Errorf("header %+v, want %+v (counts, reserved and padding 0)", h, want)
	}
	for i, b := range slot[abi.CoreHeaderSize:] {
		if b != guard {
			t.Fatalf("InitSlot changed byte %d after the header", abi.CoreHeaderSize+i)
		}
	}

	short := bytes.Repeat([]byte{guard}, int(abi.SlotStride(capacity))-1)
	err = abi.InitSlot(short, 1, abi.CoreTypeAIC, 0, capacity)
	var sb *abi.ShortBufferError
	if !errors.As(err, &sb) || sb.Struct != "slot" || sb.Need != 64+32*16 || sb.Have != len(short) {
		t.Errorf("short slot: %v", err)
	}
	if bytes.Count(short, []byte{guard}) != len(short) {
		t.Errorf("InitSlot wrote into a slot it refused")
	}
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
		if err := abi.InitSlot(slot, 99, abi.CoreTypeAIC, 3, capacity); err != nil {
			t.Fatal(err)
		}
		for i := range records {
			written, err := abi.WriteRecord(slot, &records[i])
			if err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			if written != (uint32(i) < capacity) {
				t.Fatalf("record %d: written = %v with capacity %d", i, written, capacity)
			}
		}
		h, _ := abi.DecodeCoreHeader(slot)
		stored := min(len(records), int(capacity))
		if h.RecordCount != uint32(stored) || h.DroppedCount != uint32(len(records)-stored) {
			t.Fatalf("record_count %d, dropped_count %d after %d records into %d", h.RecordCount, h.DroppedCount, len(records), capacity)
		}
		if h.EntryCycle != 99 || h.CoreType != abi.CoreTypeAIC || h.BlockID != 3 || h.RecordCapacity != capacity {
			t.Fatalf("the header's identity changed: %+v", h)
		}
		for i := 0; i < stored; i++ {
			at := abi.CoreHeaderSize + i*abi.ProfileRecordSize
			if got, _ := abi.DecodeProfileRecord(slot[at:]); got != records[i] {
				t.Fatalf("record %d reads %+v, want %+v", i, got, records[i])
			}
		}
		for i := abi.CoreHeaderSize + stored*abi.ProfileRecordSize; i < len(slot); i++ {
			if slot[i] != guard {
				t.Fatalf("byte %d past the last stored record changed (stride %d)", i, stride)
			}
		}
	})
}

func TestWriteRecordRefuses(t *testing.T) {
	r := abi.ProfileRecord{StartCycle: 1, EndCycle: 2}
	var sb *abi.ShortBufferError

	if _, err := abi.WriteRecord(make([]byte, abi.CoreHeaderSize-1), &r); !errors.As(err, &sb) || sb.Struct != "CoreHeader" {
		t.Errorf("a slot shorter than a header: %v", err)
	}

	// A slot whose header claims more records than the slice holds: error,
	// and nothing written, even where there would be room for this record.
	slot := make([]byte, abi.SlotStride(16))
	if err := abi.InitSlot(slot, 1, abi.CoreTypeAIC, 0, 16); err != nil {
		t.Fatal(err)
	}
	before := bytes.Clone(slot)
	if _, err := abi.WriteRecord(slot[:len(slot)-1], &r); !errors.As(err, &sb) || sb.Struct != "slot" || sb.Need != len(slot) {
		t.Errorf("a slot one byte short: %v", err)
	}
	if !bytes.Equal(slot, before) {
		t.Errorf("WriteRecord wrote into a slot it refused")
	}

	// A corrupt header whose count exceeds the capacity only counts drops.
	h := abi.CoreHeader{RecordCount: 20, DroppedCount: 0xFFFFFFFF, RecordCapacity: 16}
	h.Append(slot[:0])
	before = bytes.Clone(slot)
	written, err := abi.WriteRecord(slot, &r)
	if err != nil || written {
		t.Fatalf("count past capacity: written %v, %v", written, err)
	}
	got, _ := abi.DecodeCoreHeader(slot)
	if got.RecordCount != 20 || got.DroppedCount != 0 {
		t.Errorf("count past capacity: record_count %d, dropped_count %d (wraps like the device's u32)", got.RecordCount, got.DroppedCount)
	}
	if !bytes.Equal(slot[abi.CoreHeaderSize:], before[abi.CoreHeaderSize:]) {
		t.Errorf("a record was written into a full slot")
	}
}
