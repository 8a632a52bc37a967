package capture

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// SlotScan is what a scan knows about one slot.
type SlotScan struct {
	Slot abi.Slot
	// Off is the file offset of the slot's header.
	Off    int64
	Header abi.CoreHeader
	// Live: the header is not all zero (the core entered the kernel).
	Live bool
	// Records is how many records were walked: record_count, bounded by
	// the layout's capacity; 0 for a slot that is not live.
	Records int
	// HeaderOK: the header broke no rule.
	HeaderOK bool
	// Sorted: the walked records are in start_cycle order (set once they
	// have all been seen).
	Sorted bool
}

// ScanOptions hook into a scan. All are optional.
type ScanOptions struct {
	// Problem receives each error found; returning false stops the scan
	// with that problem as its error. When nil, the first error stops it.
	Problem func(*Problem) bool
	// Record is called for each record walked, in slot and record order,
	// with the record's file offset.
	Record func(s *SlotScan, index int, off int64, r *abi.ProfileRecord)
	// Slot is called for each slot once its records have been walked.
	Slot func(s *SlotScan)
	// Block, when set, is offered each block of a slot's records (at most
	// recordsPerBlock) as raw bytes before the Record hook sees them:
	// first is the index of its first record, off the file offset of that
	// record. It returns what it took (Taken): how many leading records of
	// b it has done the Record hook's work for, vouching that each ends at
	// or after its own start, with the smallest start among them and
	// whether one starts before the record before it. The scan does not
	// walk them again; Record is called for the next few records only
	// (slowRecords), then Block is offered the rest. Validate checks
	// records against the common case this way, with the Record hook as the
	// slow path for the records that fail.
	Block func(s *SlotScan, first int, off int64, b []byte) Taken
	// Hint, when set, is attached to every problem that a wrong layout
	// causes (Resolved.Hint: what to do when the layout is wrong).
	Hint string
	// Slots, when set, restricts the walk to the layout's slots
	// [Slots.From, Slots.To), so that ranges can be walked at once on
	// several goroutines: the summary covers those slots alone, and a range
	// without records is no error (whether the capture has any is known
	// only from every range).
	Slots *SlotRange
	// Partial walks a layout longer than the buffer (a Request.Partial
	// resolution): the records the buffer holds are walked as usual, and
	// what it lacks is listed in Summary.Missing instead of being a
	// truncated problem.
	Partial bool
	// Buf, when set, is the read buffer: the scan reads into *Buf,
	// growing it as needed, and leaves it there, so that walks one after
	// another on one goroutine (of ranges of slots) share one buffer
	// instead of each paging in a new one.
	Buf *[]byte
}

// Taken is what a Block hook did with a block of records: it took the
// first N (none ends before it starts), whose smallest start_cycle is
// MinStart; Unsorted, when one of them starts before the record before it
// in the slot (the first compared with the record before the block).
type Taken struct {
	N        int
	MinStart uint64
	Unsorted bool
}

// SlotRange is the slots [From, To) of a layout, by index.
type SlotRange struct{ From, To int }

// ActiveSlot summarises a slot that holds records.
type ActiveSlot struct {
	Slot       abi.Slot
	EntryCycle uint64
	Count      int
	Dropped    uint32
	// Sorted: its records are in start_cycle order, so it can be merged
	// without sorting.
	Sorted bool
}

// Summary is what a scan learns about a whole capture.
type Summary struct {
	Layout abi.Layout
	// Records is the number of live records; Dropped the sum of every
	// live header's dropped_count.
	Records uint64
	Dropped uint64
	// Active lists the slots with records, in buffer order.
	Active []ActiveSlot
	// Anchor is the cycle that trace time 0 stands for: the smallest
	// nonzero entry_cycle of a slot with records, else the smallest start_cycle.
	Anchor uint64
	// Earliest is the smallest start_cycle of a live record (0 when there
	// is none); below Anchor when a record starts before its core entered.
	Earliest uint64
	// Missing is what a partial scan (ScanOptions.Partial) found the
	// buffer lacks, in buffer order; nil when it holds the whole layout.
	Missing []Missing
}

// Missing is a part of a layout that a truncated buffer lacks: the live
// records of one slot that the buffer ends inside or before (records
// From..To-1 of its record_count), or the slots Slot..Last whose headers
// it does not hold (whether they held records is not known). Off and End
// are the file offsets of the bytes missing.
type Missing struct {
	Slot, Last    abi.Slot
	HeaderMissing bool
	From, To      int
	Off, End      int64
}

// String says what is missing and where: "AIV/26 records 20..63
// @0x186a0..0x18c40" or "headers of AIV/27..AIV/47 @0x18c40..0x25200".
func (m Missing) String() string {
	if m.HeaderMissing {
		slots := m.Slot.String()
		if m.Last != m.Slot {
			slots += ".." + m.Last.String()
		}
		return fmt.Sprintf("the slots %s @%#x..%#x (headers and records; whether they held records is not known)", slots, m.Off, m.End)
	}
	what := fmt.Sprintf("record %d", m.From)
	if m.To-m.From > 1 {
		what = fmt.Sprintf("records %d..%d", m.From, m.To-1)
	}
	return fmt.Sprintf("%s %s of its record_count %d @%#x..%#x", m.Slot, what, m.To, m.Off, m.End)
}

// errStop unwinds a scan that a Problem hook stopped.
var errStop = errors.New("scan stopped")

// recordsPerRead bounds the bytes read at once from a capture file
// (256 KiB: the buffer the kernel copies into stays in the core's cache
// for the walk that reads it; 1 MiB reads were slower, 64 KiB reads spent
// their time in system calls).
// The records of a read are walked in blocks of recordsPerBlock (64 KiB),
// which stay in the cache between the Block hook and the walk.
// After a record the Block hook did not take, the Record hook sees
// slowRecords records before Block is offered the rest.
const (
	recordsPerRead  = 8192
	recordsPerBlock = 2048
	slowRecords     = 8
)

// Scan walks every slot of the capture in buffer order and checks each
// header and live record against the ABI (gen/doc/ABI.md, decoding rules 3 and 4).
// It returns the first error when opts.Problem is nil or says stop;
// otherwise it walks everything and returns the summary of what it saw.
func (c *Capture) Scan(l abi.Layout, opts ScanOptions) (*Summary, error) {
	if l.Size() > uint64(c.size) && !opts.Partial {
		need := l.Size()
		return nil, &Problem{File: c.Name, Code: CodeTruncated, Off: c.Base + c.size, Record: -1,
			Msg: fmt.Sprintf("capture is truncated: the layout %s: %d bytes needed, %d present (%d missing)", paren(l), need, c.size, need-uint64(c.size))}
	}
	sc := scanner{c: c, opts: opts, sum: &Summary{Layout: l}, minStart: ^uint64(0)}
	if opts.Buf != nil {
		sc.buf = *opts.Buf
		defer func() { *opts.Buf = sc.buf }()
	}
	err := sc.run()
	if err != nil {
		if errors.Is(err, errStop) {
			return nil, sc.stopped
		}
		return nil, err
	}
	if a := sc.sum.Active; cap(a) > len(a) {
		// The summary outlives the scan (decode keeps one per capture
		// of a run): no room left over from append.
		sc.sum.Active = append([]ActiveSlot(nil), a...)
	}
	return sc.sum, nil
}

type scanner struct {
	c        *Capture
	opts     ScanOptions
	sum      *Summary
	stopped  *Problem
	buf      []byte
	minEntry uint64 // smallest nonzero entry cycle of a slot with records, 0 if none
	minStart uint64
	rec      abi.ProfileRecord // handed to the Record hook, reused
}

// report hands p to the hook; errStop when the scan must end.
func (sc *scanner) report(p *Problem) error {
	p.File = sc.c.Name
	if sc.opts.Hint != "" && p.Hint == "" && p.Code.LayoutDependent() {
		p.Hint = sc.opts.Hint
	}
	if sc.opts.Problem == nil || !sc.opts.Problem(p) {
		sc.stopped = p
		return errStop
	}
	return nil
}

func (sc *scanner) run() error {
	l := sc.sum.Layout
	var hbuf [abi.CoreHeaderSize]byte
	from, to := 0, l.NumSlots()
	ranged := sc.opts.Slots != nil
	if ranged {
		from, to = max(sc.opts.Slots.From, 0), min(sc.opts.Slots.To, to)
	}
	for i := from; i < to; i++ {
		slot := l.Slot(i)
		if sc.opts.Partial && slot.Offset+abi.CoreHeaderSize > uint64(sc.c.size) {
			// The buffer ends before this slot's header does: every slot
			// from here on is missing.
			last := l.Slot(to - 1)
			sc.sum.Missing = append(sc.sum.Missing, Missing{Slot: slot, Last: last, HeaderMissing: true,
				Off: sc.c.Base + int64(slot.Offset), End: sc.c.Base + int64(last.Offset+last.Stride())})
			break
		}
		b, err := sc.c.view(int64(slot.Offset), abi.CoreHeaderSize, hbuf[:])
		if err != nil {
			return err
		}
		h, err := abi.DecodeCoreHeader(b)
		if err != nil {
			return err
		}
		s := SlotScan{Slot: slot, Off: sc.c.Base + int64(slot.Offset), Header: h, Live: !h.IsZero(), HeaderOK: true, Sorted: true}
		if s.Live {
			if err := sc.checkHeader(&s); err != nil {
				return err
			}
			s.Records = int(min(h.RecordCount, slot.Capacity))
			sc.sum.Dropped += uint64(h.DroppedCount)
			if sc.opts.Partial {
				sc.cut(&s)
			}
		}
		if s.Records > 0 {
			if err := sc.records(&s); err != nil {
				return err
			}
			sc.sum.Records += uint64(s.Records)
			sc.sum.Active = append(sc.sum.Active, ActiveSlot{Slot: slot, EntryCycle: h.EntryCycle, Count: s.Records, Dropped: h.DroppedCount, Sorted: s.Sorted})
			if e := h.EntryCycle; e != 0 && (sc.minEntry == 0 || e < sc.minEntry) {
				sc.minEntry = e
			}
		}
		if sc.opts.Slot != nil {
			sc.opts.Slot(&s)
		}
	}
	if sc.sum.Records == 0 && !ranged {
		if err := sc.report(&Problem{Code: CodeNoRecords, Off: sc.c.Base, Record: -1,
			Msg: "capture contains no records; check that the profiler was active and the profiled operator completed"}); err != nil {
			return err
		}
	}
	sc.sum.Anchor = sc.minEntry
	if sc.sum.Records > 0 {
		sc.sum.Earliest = sc.minStart
	}
	if sc.sum.Anchor == 0 && sc.sum.Records > 0 {
		sc.sum.Anchor = sc.minStart
	}
	return nil
}

// cut keeps, of a partial scan's slot, the records the buffer holds
// whole, and lists the rest as missing.
func (sc *scanner) cut(s *SlotScan) {
	first := s.Slot.Offset + abi.CoreHeaderSize
	held := 0
	if size := uint64(sc.c.size); size > first {
		held = int(min((size-first)/abi.ProfileRecordSize, uint64(s.Records)))
	}
	if held == s.Records {
		return
	}
	sc.sum.Missing = append(sc.sum.Missing, Missing{Slot: s.Slot, From: held, To: s.Records,
		Off: sc.c.Base + int64(first) + int64(held)*abi.ProfileRecordSize,
		End: sc.c.Base + int64(first) + int64(s.Records)*abi.ProfileRecordSize})
	s.Records = held
}

// checkHeader applies decoding rule 3 (gen/doc/ABI.md) to a live header.
func (sc *scanner) checkHeader(s *SlotScan) error {
	h, slot := &s.Header, s.Slot
	fail := func(p *Problem) error {
		s.HeaderOK = false
		p.Slot, p.Record = slot.String(), -1
		return sc.report(p)
	}
	if h.CoreType != slot.CoreType || h.BlockID != slot.BlockID {
		if err := fail(&Problem{Code: CodeSlotIdentity, Off: s.Off + abi.CoreHeaderCoreTypeOffset,
			Value:    fmt.Sprintf("core_type=%d block_id=%d", uint32(h.CoreType), h.BlockID),
			Expected: slot.String()}); err != nil {
			return err
		}
	}
	if h.RecordCapacity != slot.Capacity {
		if err := fail(&Problem{Code: CodeCapacityMismatch, Off: s.Off + abi.CoreHeaderRecordCapacityOffset,
			Value:    fmt.Sprintf("record_capacity=%d", h.RecordCapacity),
			Expected: fmt.Sprintf("%d (the layout's %s capacity)", slot.Capacity, slot.CoreType)}); err != nil {
			return err
		}
	}
	if h.Reserved != 0 {
		if err := fail(&Problem{Code: CodeReservedNonzero, Off: s.Off + abi.CoreHeaderReservedOffset,
			Value: fmt.Sprintf("reserved=%#x", h.Reserved), Expected: "0"}); err != nil {
			return err
		}
	}
	if h.RecordCount > slot.Capacity {
		if err := fail(&Problem{Code: CodeCountOverCapacity, Off: s.Off + abi.CoreHeaderRecordCountOffset,
			Value:    fmt.Sprintf("record_count=%d", h.RecordCount),
			Expected: fmt.Sprintf("at most record_capacity %d", slot.Capacity)}); err != nil {
			return err
		}
	}
	return nil
}

// records walks a slot's live records, reading the file in bounded chunks.
// It runs once per record of the capture, so it decodes only the cycles
// it checks unless a Record hook wants the whole record, and it allocates
// nothing per record (the record handed to the hook is reused).
func (sc *scanner) records(s *SlotScan) error {
	prevStart, minStart, sorted := uint64(0), sc.minStart, true
	err := sc.walk(s, &prevStart, &minStart, &sorted)
	s.Sorted, sc.minStart = sorted, minStart
	return err
}

// walk is the loop of records; the scan state lives in the caller's
// locals, copied in and out of registers around each block.
func (sc *scanner) walk(s *SlotScan, prevStartOut, minStartOut *uint64, sortedOut *bool) error {
	base := int64(s.Slot.Offset) + abi.CoreHeaderSize
	for first := 0; first < s.Records; first += recordsPerRead {
		n := min(recordsPerRead, s.Records-first)
		chunkOff := base + int64(first)*abi.ProfileRecordSize
		b, err := sc.c.view(chunkOff, n*abi.ProfileRecordSize, sc.buf)
		if err != nil {
			return err
		}
		if sc.c.data == nil {
			sc.buf = b
		}
		for i := 0; i < n; i += recordsPerBlock {
			m := min(recordsPerBlock, n-i)
			blockOff := sc.c.Base + chunkOff + int64(i)*abi.ProfileRecordSize
			bb := b[i*abi.ProfileRecordSize : (i+m)*abi.ProfileRecordSize]
			if sc.opts.Block == nil {
				if err := sc.block(s, first+i, blockOff, bb, sc.opts.Record, prevStartOut, minStartOut, sortedOut); err != nil {
					return err
				}
				continue
			}
			for j := 0; j < m; {
				t := sc.opts.Block(s, first+i+j, blockOff+int64(j)*abi.ProfileRecordSize, bb[j*abi.ProfileRecordSize:])
				k := min(max(t.N, 0), m-j)
				slow := min(slowRecords, m-j-k)
				if k > 0 {
					// The hook vouches for these records: none ends before
					// it starts. What the walk learns from them is where
					// they start and whether in order.
					fast := bb[j*abi.ProfileRecordSize : (j+k)*abi.ProfileRecordSize]
					*minStartOut = min(*minStartOut, t.MinStart)
					*prevStartOut = binary.LittleEndian.Uint64(fast[(k-1)*abi.ProfileRecordSize+abi.ProfileRecordStartCycleOffset:])
					*sortedOut = *sortedOut && !t.Unsorted
				}
				rest := bb[(j+k)*abi.ProfileRecordSize : (j+k+slow)*abi.ProfileRecordSize]
				j += k
				if err := sc.block(s, first+i+j, blockOff+int64(j)*abi.ProfileRecordSize, rest, sc.opts.Record, prevStartOut, minStartOut, sortedOut); err != nil {
					return err
				}
				j += slow
			}
		}
	}
	return nil
}

// block walks the records in b, the first of them record first at file
// offset off, calling hook (when not nil) for each.
func (sc *scanner) block(s *SlotScan, first int, off int64, b []byte, hook func(*SlotScan, int, int64, *abi.ProfileRecord),
	prevStartOut, minStartOut *uint64, sortedOut *bool) error {
	rec := &sc.rec
	prevStart, minStart, sorted := *prevStartOut, *minStartOut, *sortedOut
	n := len(b) / abi.ProfileRecordSize
	for j := range n {
		// One bounds check per record; the field reads below need none.
		rb := (*[abi.ProfileRecordSize]byte)(b[j*abi.ProfileRecordSize:])
		start := binary.LittleEndian.Uint64(rb[abi.ProfileRecordStartCycleOffset:])
		end := binary.LittleEndian.Uint64(rb[abi.ProfileRecordEndCycleOffset:])
		if end < start {
			*prevStartOut, *minStartOut, *sortedOut = prevStart, minStart, sorted
			if err := sc.report(&Problem{Code: CodeNegativeInterval, Off: off + int64(j)*abi.ProfileRecordSize + abi.ProfileRecordEndCycleOffset,
				Slot: s.Slot.String(), Record: first + j,
				Value:    fmt.Sprintf("start_cycle=%d end_cycle=%d", start, end),
				Expected: "end_cycle >= start_cycle"}); err != nil {
				return err
			}
		}
		if start < prevStart {
			sorted = false
		}
		prevStart = start
		minStart = min(minStart, start)
		if hook != nil {
			// abi.DecodeProfileRecord, field by field from the bytes
			// already checked (TestRecordHookSeesDecodedRecords).
			// Field stores, not a composite literal: the literal is
			// built on the stack and copied in 16-byte moves, which
			// stall on the narrower stores that built it.
			rec.StartCycle, rec.EndCycle = start, end
			rec.DescID = binary.LittleEndian.Uint32(rb[abi.ProfileRecordDescIDOffset:])
			rec.TaskID = binary.LittleEndian.Uint32(rb[abi.ProfileRecordTaskIDOffset:])
			rec.StageTaskIndex = binary.LittleEndian.Uint32(rb[abi.ProfileRecordStageTaskIndexOffset:])
			rec.OwnerID = binary.LittleEndian.Uint32(rb[abi.ProfileRecordOwnerIDOffset:])
			hook(s, first+j, off+int64(j)*abi.ProfileRecordSize, rec)
		}
	}
	*prevStartOut, *minStartOut, *sortedOut = prevStart, minStart, sorted
	return nil
}

// ReadRecords reads records [first, first+len(dst)) of a slot the scan
// reported active into dst. It allocates nothing; dst bounds the work.
func (c *Capture) ReadRecords(s abi.Slot, first int, dst []abi.ProfileRecord, buf []byte) ([]byte, error) {
	if first < 0 || uint64(first)+uint64(len(dst)) > uint64(s.Capacity) {
		return buf, fmt.Errorf("%s: records %d..%d are outside capacity %d", s, first, first+len(dst), s.Capacity)
	}
	off := int64(s.Offset) + abi.CoreHeaderSize + int64(first)*abi.ProfileRecordSize
	b, err := c.view(off, len(dst)*abi.ProfileRecordSize, buf)
	if err != nil {
		return buf, err
	}
	for i := range dst {
		if dst[i], err = abi.DecodeProfileRecord(b[i*abi.ProfileRecordSize:]); err != nil {
			return buf, err
		}
	}
	if c.data == nil {
		buf = b
	}
	return buf, nil
}
