package capture

import (
	"encoding/binary"
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// header reads the header at buffer offset off; a zero header when the
// buffer does not hold one there or it cannot be read.
func (f *finder) header(off uint64) abi.CoreHeader {
	if off+abi.CoreHeaderSize > f.size {
		return abi.CoreHeader{}
	}
	if f.firstRead && off == 0 {
		return f.first // read once per C otherwise
	}
	b, err := f.c.view(int64(off), abi.CoreHeaderSize, f.hdrBuf[:])
	if err != nil {
		return abi.CoreHeader{}
	}
	h, _ := abi.DecodeCoreHeader(b)
	if off == 0 {
		f.first, f.firstRead = h, true
	}
	return h
}

func (f *finder) file(off uint64) int64 { return f.c.Base + int64(off) }

// headerName names what a header says it is: "AIV/3", or "core_type=7
// block_id=3" for a core type with no region.
func headerName(h abi.CoreHeader) string {
	if regionIndex(h.CoreType) < 0 {
		return fmt.Sprintf("core_type=%d block_id=%d", uint32(h.CoreType), h.BlockID)
	}
	return abi.Slot{CoreType: h.CoreType, BlockID: h.BlockID}.String()
}

func regionIndex(t abi.CoreType) int {
	for i, r := range regions {
		if r.CoreType == t {
			return i
		}
	}
	return -1
}

// badCapacity is the problem of a header whose record_capacity no layout
// can have, nil when it is fine.
func (f *finder) badCapacity(h abi.CoreHeader, slot abi.Slot, off uint64) *Problem {
	if abi.CheckCapacity(uint64(h.RecordCapacity)) == nil {
		return nil
	}
	return &Problem{File: f.c.Name, Code: CodeBadCapacity, Off: f.file(off) + abi.CoreHeaderRecordCapacityOffset,
		Slot: slot.String(), Record: -1, Value: fmt.Sprintf("record_capacity=%d", h.RecordCapacity),
		Expected: fmt.Sprintf("a multiple of %d at most %d", abi.RecordCapacityAlignment, abi.MaxRecordsPerCore)}
}

// exactStride returns bytes/slots when it divides exactly.
func exactStride(bytes, slots uint64) (uint64, bool) {
	if slots == 0 || bytes%slots != 0 {
		return 0, false
	}
	return bytes / slots, true
}

// capacityOfStride returns the capacity whose slot stride is stride, if an
// aligned capacity within MaxRecordsPerCore has it.
func capacityOfStride(stride uint64) (uint32, bool) {
	if stride < abi.CoreHeaderSize || (stride-abi.CoreHeaderSize)%abi.ProfileRecordSize != 0 {
		return 0, false
	}
	k := (stride - abi.CoreHeaderSize) / abi.ProfileRecordSize
	if abi.CheckCapacity(k) != nil {
		return 0, false
	}
	return uint32(k), true
}

// zeroRun records that the header fields of every 64-byte block in
// [from, next) are zero; next is the first live header's block (found),
// or the end of the buffer.
type zeroRun struct {
	from, next uint64
	found      bool
	h          abi.CoreHeader
}

type liveState int

const (
	liveFound  liveState = iota // a live header
	liveNone                    // no live header before the end of the buffer
	liveBudget                  // zeroScanBudget ran out
)

// scanChunk is how much the zero scan reads at once.
const scanChunk = 64 << 10

// firstLive returns the first block at or after from (a multiple of 64)
// whose header fields are not all zero.
func (f *finder) firstLive(from uint64) (uint64, abi.CoreHeader, liveState) {
	for _, r := range f.runs {
		if r.from <= from && from <= r.next {
			if r.found {
				return r.next, r.h, liveFound
			}
			return 0, abi.CoreHeader{}, liveNone
		}
	}
	run := zeroRun{from: from, next: f.size}
	at := from
	for at+abi.CoreHeaderSize <= f.size {
		if f.scanned >= zeroScanBudget {
			return 0, abi.CoreHeader{}, liveBudget
		}
		n := min(scanChunk, (f.size-at)/abi.CoreHeaderSize*abi.CoreHeaderSize)
		if cap(f.scanBuf) < int(n) {
			f.scanBuf = make([]byte, scanChunk)
		}
		b, err := f.c.view(int64(at), int(n), f.scanBuf)
		if err != nil {
			return 0, abi.CoreHeader{}, liveBudget
		}
		f.scanned += n
		for blk := 0; blk < len(b); blk += abi.CoreHeaderSize {
			if !nonzero(b[blk : blk+abi.CoreHeaderSize]) {
				continue
			}
			h, _ := abi.DecodeCoreHeader(b[blk:])
			if h.IsZero() { // only its padding is not zero
				continue
			}
			run.next, run.found, run.h = at+uint64(blk), true, h
			f.runs = append(f.runs, run)
			return run.next, h, liveFound
		}
		at += n
	}
	f.runs = append(f.runs, run)
	return 0, abi.CoreHeader{}, liveNone
}

// nonzero reports whether b (a multiple of 8 bytes long) holds a nonzero byte.
func nonzero(b []byte) bool {
	for i := 0; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != 0 {
			return true
		}
	}
	return false
}

// allZero reports whether the buffer holds no live header at all.
func (f *finder) allZero() bool {
	if f.allZeroK == 0 {
		f.allZeroK = -1
		if h := f.header(0); h.IsZero() {
			if _, _, st := f.firstLive(abi.CoreHeaderSize); st == liveNone {
				f.allZeroK = 1
			}
		}
	}
	return f.allZeroK == 1
}
