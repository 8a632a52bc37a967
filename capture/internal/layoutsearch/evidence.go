package layoutsearch

import (
	"encoding/binary"
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The evidence: what the buffer says. The search asks it for the header at
// an offset (read once for the buffer's first, which every cube slot count
// starts region 0 with) and for the first live header at or after one (the
// zero scan, which remembers what it read so that no byte is scanned
// twice). evidence is where a part of a candidate came from.

// zeroScanBudget bounds the bytes the search reads, over one resolution,
// looking for the first live header after an unused one. Headers it reads
// otherwise are a few per cube slot count tried, whatever the file size.
const zeroScanBudget = 256 << 20

// finder runs one resolution over one buffer; it remembers the runs of
// zero bytes it has read so that no byte is scanned twice.
type finder struct {
	buf     Buffer
	size    uint64
	runs    []zeroRun // the zero runs scanned
	scanned uint64
	// damaged enables ruleDamagedStart's reading past a damaged header: a
	// second pass, when the strict one found no candidate.
	damaged bool
	scanBuf []byte
	hdrBuf  [abi.CoreHeaderSize]byte
	// first is the buffer's first header, where every C starts region 0.
	first     abi.CoreHeader
	firstRead bool
	allZeroK  int8 // 0 unknown, 1 yes, -1 no
}

// header reads the header at buffer offset off; a zero header when the
// buffer does not hold one there or it cannot be read.
func (f *finder) header(off uint64) abi.CoreHeader {
	if off+abi.CoreHeaderSize > f.size {
		return abi.CoreHeader{}
	}
	if f.firstRead && off == 0 {
		return f.first // read once per C otherwise
	}
	b, err := f.buf.View(int64(off), abi.CoreHeaderSize, f.hdrBuf[:])
	if err != nil {
		return abi.CoreHeader{}
	}
	h, _ := abi.DecodeCoreHeader(b)
	if off == 0 {
		f.first, f.firstRead = h, true
	}
	return h
}

// file converts a buffer offset to the file offset messages name.
func (f *finder) file(off uint64) int64 { return f.buf.Base + int64(off) }

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
	return &Problem{Code: CodeBadCapacity, Off: f.file(off) + abi.CoreHeaderRecordCapacityOffset,
		Slot: slot.String(), Value: fmt.Sprintf("record_capacity=%d", h.RecordCapacity),
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
		b, err := f.buf.View(int64(at), int(n), f.scanBuf)
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

// evidence is an Evidence before its strings are made: the walk runs for
// thousands of cube slot counts and allocates nothing.
type evidence struct {
	src     Source
	t       abi.CoreType
	block   uint32
	off     uint64 // buffer offset
	derived bool
}

// public makes the Evidence of a candidate.
func (e evidence) public(f *finder) Evidence {
	out := Evidence{Source: e.src, Derived: e.derived}
	if e.src == FromHeaders {
		out.Slot, out.Off = abi.Slot{CoreType: e.t, BlockID: e.block}.String(), f.file(e.off)
	}
	return out
}
