package validate

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// headerFields drive the header warnings, so a field the schema adds with
// warn_nonzero or an enum is checked without touching this package.
var headerFields = abi.CoreHeaderFields()

// enumValid tells whether a value is a member of the enum a field names.
// TestEveryHeaderEnumIsChecked keeps it in step with the schema.
var enumValid = map[string]func(uint64) bool{
	"CoreType": func(x uint64) bool { return x <= 0xFFFFFFFF && abi.CoreType(x).Valid() },
}

// enumTaskType[t] says whether task type t is in the TaskType enum; a
// table, because the record hook asks for every task-type record.
var enumTaskType = func() *[abi.TaskTypeCount]bool {
	var known [abi.TaskTypeCount]bool
	for _, t := range abi.TaskTypes() {
		known[t] = true
	}
	return &known
}()

// record is the scan's record hook: the per-record warnings. It runs for
// every record of a capture, so the common case (nothing to report) does
// no more than a few comparisons.
func (v *validator) record(s *capture.SlotScan, index int, off int64, r *abi.ProfileRecord) {
	st := &v.cur
	start := r.StartCycle
	if index == 0 {
		st.begin(s)
		st.prevStart, st.maxEnd, st.maxIdx = start, r.EndCycle, 0
	} else {
		switch {
		case start < st.prevStart:
			v.outOfOrder(st, index, off, r)
		case start < st.maxEnd && (st.firstBreak < 0 || !st.exact):
			v.overlap(st, index, off, r)
		}
		if r.EndCycle > st.maxEnd {
			st.maxEnd, st.maxIdx = r.EndCycle, index
		}
		st.prevStart = start
	}
	if v.ids != nil {
		v.ids[r.DescID] = struct{}{}
	}
	if ns, i := abi.LookupDesc(r.DescID); ns == abi.NamespaceNone || ns == abi.NamespaceTaskType && !knownTaskType(i, v.o.Family) {
		v.badDesc(st, index, off, r)
	}
	if start < st.entry {
		v.beforeEntry(st, index, off, r)
	}
}

// beforeEntry reports a record that starts before its core's entry; the
// text is built only for a finding that is kept (want counts the rest).
func (v *validator) beforeEntry(st *slotState, index int, off int64, r *abi.ProfileRecord) {
	off += abi.ProfileRecordStartCycleOffset
	if v.col.wantWarning(idxBeforeEntry, off) {
		v.col.add(warning(CodeBeforeEntry, off, st.name, index,
			fmt.Sprintf("start_cycle=%d", r.StartCycle), fmt.Sprintf("at least the core's entry_cycle %d", st.entry)))
	}
}

// block is the scan's Block hook: it does the record hook's work for the
// records of b that draw no finding the record hook would keep (or show an
// OnFinding hook), and stops at the first that might. Most records pass
// a quick check in a tight loop (ordered or deferred); the others are
// looked at one by one (one): a finding that cannot be kept (its code's
// kept findings are full and all at lower offsets, and no OnFinding hook
// watches) is only counted, as the record hook would count it, and a
// record out of start order in a slot whose unsorted-slot finding is made
// goes on the slot's state as the record hook would put it. The record it
// stops at goes to the record hook: the same findings, counts and state,
// in the same order.
func (v *validator) block(s *capture.SlotScan, first int, off int64, b []byte) capture.Taken {
	st := &v.cur
	n := len(b) / abi.ProfileRecordSize
	if n == 0 {
		return capture.Taken{}
	}
	if first == 0 {
		// The slot's first record: the state the record hook's begin sets.
		// With the previous start and the largest end 0, the first record
		// is in order and overlaps nothing, as the record hook has it.
		st.begin(s)
		st.prevStart, st.maxEnd, st.maxIdx = 0, 0, 0
	}
	// A finding of a code whose kept findings are full, all at offsets
	// below this block's, is not kept at any offset in it; nor, in a
	// parallel walk, one in a range of slots after a range that holds as
	// many as are kept.
	full := func(i int) bool {
		if v.col.onFinding != nil {
			return false
		}
		if v.col.limit >= 0 && len(v.col.stats[i].kept) >= v.col.limit {
			v.ranges.markFull(i, v.rangeIdx)
		}
		return !v.col.stats[i].admits(v.col.limit, off) || v.ranges.fullBefore(i, v.rangeIdx)
	}
	w := blockWalk{
		entry:        st.entry,
		inOrder:      st.firstBreak < 0,
		overlaps:     st.firstBreak < 0 || !st.exact,
		countOverlap: full(idxOverlap),
		runs:         st.firstBreak >= 0 && !st.exact,
		prev:         st.prevStart,
		maxEnd:       st.maxEnd,
		maxIdx:       st.maxIdx,
		minStart:     ^uint64(0),
		ok:           &v.descOK,
		ids:          v.ids,
		fam:          v.o.Family,
	}
	if full(idxBeforeEntry) {
		w.entry, w.countBelow = 0, st.entry // counted, not stopped at
	}
	j := 0
	for j < n {
		rest := b[j*abi.ProfileRecordSize : n*abi.ProfileRecordSize]
		var k, at int
		if w.overlaps {
			k, w.maxEnd, at = ordered(rest, max(w.prev, w.maxEnd, w.entry), w.maxEnd, w.ok)
		} else {
			k, w.maxEnd, at = deferred(rest, max(w.prev, w.entry), w.maxEnd, w.ok)
		}
		if k > 0 {
			if at >= 0 {
				w.maxIdx = first + j + at
			}
			w.minStart = min(w.minStart, startOf(rest, 0))
			w.prev = startOf(rest, k-1)
			if startOf(rest, 0) < w.countBelow {
				// The run is in start order: its records before the
				// entry come first.
				w.early += sort.Search(k, func(i int) bool { return startOf(rest, i) >= w.countBelow })
			}
			j += k
		}
		if j == n || !w.one(rest[k*abi.ProfileRecordSize:], first+j) {
			break
		}
		j++
	}
	if j == 0 {
		return capture.Taken{}
	}
	st.prevStart, st.maxEnd, st.maxIdx = w.prev, w.maxEnd, w.maxIdx
	v.col.countOnly(idxOverlap, w.overlapCount)
	v.col.countOnly(idxBeforeEntry, w.early)
	return capture.Taken{N: j, MinStart: w.minStart, Unsorted: w.unsorted}
}

// blockWalk is the state of the block check's walk of a block: what it
// lets by, and the slot state it carries from record to record.
type blockWalk struct {
	// entry: a record that starts before it is stopped at (0 when the
	// before-entry findings are only counted: those that start before
	// countBelow, the entry, then add to early).
	entry, countBelow uint64
	early             int
	// inOrder: a record out of start order is stopped at (the slot's
	// unsorted-slot finding is yet to be made).
	inOrder bool
	// overlaps: a record that starts before an earlier one ends overlaps
	// it (once an exact slot is out of order, its overlaps are found by
	// exactOverlaps instead); countOverlap: it is counted, not stopped at.
	overlaps, countOverlap bool
	// runs: a record out of start order starts a run of its own, in a slot
	// too large to sort (outOfOrder).
	runs bool

	prev, maxEnd uint64
	maxIdx       int
	overlapCount int
	minStart     uint64
	unsorted     bool
	ok           *[256]uint32
	ids          map[uint32]struct{}
	fam          abi.Family
}

// one takes the first record of b, record index of its slot, which the
// quick check did not pass, if it draws no finding the walk stops at.
func (w *blockWalk) one(b []byte, index int) bool {
	start, end := startOf(b, 0), binary.LittleEndian.Uint64(b[abi.ProfileRecordEndCycleOffset:])
	desc := binary.LittleEndian.Uint32(b[abi.ProfileRecordDescIDOffset:])
	if end < start || w.ok[descSlot(desc)] != desc && descBad(w.ok, desc, w.fam, w.ids) || start < w.entry {
		return false
	}
	switch {
	case start < w.prev:
		if w.inOrder {
			return false
		}
		w.unsorted = true
		if w.runs {
			w.maxEnd, w.maxIdx = end, index
		}
	case w.overlaps && start < w.maxEnd:
		if !w.countOverlap {
			return false
		}
		w.overlapCount++
	}
	if end > w.maxEnd {
		w.maxEnd, w.maxIdx = end, index
	}
	w.early += int(b2u(start < w.countBelow))
	w.prev, w.minStart = start, min(w.minStart, start)
	return true
}

// ordered counts the records of b, from the first, that each start at or
// after lo (the largest of the previous start, the largest end so far and
// the entry: in order, overlapping nothing, not before the entry), end at
// or after their start and have a desc_id in the cache ok. After such a
// record lo is its end, the largest so far. It returns the largest end,
// and the index in b of the record that set it (-1 for none). The common
// case: a loop without calls, in registers.
func ordered(b []byte, lo, maxEnd uint64, ok *[256]uint32) (n int, _ uint64, at int) {
	at = -1
	// Two records a turn, one branch for both: each passing record starts
	// at or after the end before it, so the ends never decrease and the
	// second's end is the largest.
	const size = abi.ProfileRecordSize
	for len(b) >= 2*size {
		rb := (*[2 * size]byte)(b)
		s0 := binary.LittleEndian.Uint64(rb[abi.ProfileRecordStartCycleOffset:])
		e0 := binary.LittleEndian.Uint64(rb[abi.ProfileRecordEndCycleOffset:])
		d0 := binary.LittleEndian.Uint32(rb[abi.ProfileRecordDescIDOffset:])
		s1 := binary.LittleEndian.Uint64(rb[size+abi.ProfileRecordStartCycleOffset:])
		e1 := binary.LittleEndian.Uint64(rb[size+abi.ProfileRecordEndCycleOffset:])
		d1 := binary.LittleEndian.Uint32(rb[size+abi.ProfileRecordDescIDOffset:])
		if s0 < lo || e0 < s0 || s1 < e0 || e1 < s1 || ok[descSlot(d0)] != d0 || ok[descSlot(d1)] != d1 {
			break
		}
		if e0 > maxEnd {
			at = n
		}
		if e1 > e0 {
			at = n + 1
		}
		maxEnd, lo = e1, e1
		n += 2
		b = b[2*size:]
	}
	k, maxEnd, last := oneByOne(b, lo, maxEnd, ok, ^uint64(0))
	if last >= 0 {
		at = n + last
	}
	return n + k, maxEnd, at
}

// deferred is ordered for a slot whose overlaps are found later
// (exactOverlaps): a record need only start at or after the previous one
// and the entry (lo), end at or after its start and have a desc_id in ok.
func deferred(b []byte, lo, maxEnd uint64, ok *[256]uint32) (n int, _ uint64, at int) {
	return oneByOne(b, lo, maxEnd, ok, 0)
}

// oneByOne is the quick check a record at a time: after a record that
// passes, lo is its end where ends matters (overlaps are checked: all
// ones), else its start (0).
func oneByOne(b []byte, lo, maxEnd uint64, ok *[256]uint32, ends uint64) (n int, _ uint64, at int) {
	at = -1
	for len(b) >= abi.ProfileRecordSize {
		rb := (*[abi.ProfileRecordSize]byte)(b)
		start := binary.LittleEndian.Uint64(rb[abi.ProfileRecordStartCycleOffset:])
		end := binary.LittleEndian.Uint64(rb[abi.ProfileRecordEndCycleOffset:])
		desc := binary.LittleEndian.Uint32(rb[abi.ProfileRecordDescIDOffset:])
		if start < lo || end < start || ok[descSlot(desc)] != desc {
			break
		}
		if end > maxEnd {
			maxEnd, at = end, n
		}
		lo = start + (end-start)&ends
		n++
		b = b[abi.ProfileRecordSize:]
	}
	return n, maxEnd, at
}

// startOf is the start_cycle of record i of b.
func startOf(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i*abi.ProfileRecordSize+abi.ProfileRecordStartCycleOffset:])
}

// b2u is 1 for true: a flag without a branch.
func b2u(b bool) uint {
	if b {
		return 1
	}
	return 0
}

// descSlot is desc_id's place in the validator's cache of desc_ids known
// to draw no warning (a multiplicative hash, so that the same index in
// different namespaces lands apart).
func descSlot(id uint32) uint8 { return uint8((id * 0x9E3779B1) >> 24) }

// descBad says whether desc_id draws a warning; a fine one goes in the
// cache ok of those known to draw none, and in ids (when collected): the
// block check lets the records of a cached id by without another look.
func descBad(ok *[256]uint32, id uint32, fam abi.Family, ids map[uint32]struct{}) bool {
	if descCode(id, fam) != "" {
		return true
	}
	ok[descSlot(id)] = id
	if ids != nil {
		ids[id] = struct{}{}
	}
	return false
}

func (st *slotState) begin(s *capture.SlotScan) {
	*st = slotState{off: s.Off, name: s.Slot.String(), entry: s.Header.EntryCycle, firstBreak: -1,
		exact: s.Records <= exactOverlapLimit}
}

// outOfOrder handles a record that starts before its predecessor: the
// slot's unsorted-slot finding the first time, and (in a slot too large to
// sort) the start of a new run to check overlaps within.
func (v *validator) outOfOrder(st *slotState, index int, off int64, r *abi.ProfileRecord) {
	if st.firstBreak < 0 {
		st.firstBreak = index
		v.warn(CodeUnsortedSlot, off+abi.ProfileRecordStartCycleOffset, st.name, index,
			fmt.Sprintf("start_cycle=%d before start_cycle=%d of record %d", r.StartCycle, st.prevStart, index-1),
			"records in start_cycle order")
	}
	if !st.exact {
		st.maxEnd, st.maxIdx = r.EndCycle, index
	}
}

func (v *validator) overlap(st *slotState, index int, off int64, r *abi.ProfileRecord) {
	v.overlapAt(st, off+abi.ProfileRecordStartCycleOffset, index, r.StartCycle, st.maxEnd, st.maxIdx)
}

// overlapAt reports the overlap of record index (its start_cycle at file
// offset off) with record maxIdx, building the text only when it is kept.
func (v *validator) overlapAt(st *slotState, off int64, index int, start, maxEnd uint64, maxIdx int) {
	if v.col.wantWarning(idxOverlap, off) {
		v.col.add(warning(CodeOverlap, off, st.name, index,
			fmt.Sprintf("start_cycle=%d before end_cycle=%d of record %d", start, maxEnd, maxIdx),
			"records of one core not to overlap"))
	}
}

func (v *validator) badDesc(st *slotState, index int, off int64, r *abi.ProfileRecord) {
	off += abi.ProfileRecordDescIDOffset
	if descCode(r.DescID, v.o.Family) == CodeUnknownDesc {
		if v.descExpected == "" {
			var ranges []string
			for _, ns := range abi.Namespaces() {
				ranges = append(ranges, fmt.Sprintf("%s %#x..%#x", ns, ns.Base(), uint64(ns.Base())+uint64(ns.Count())-1))
			}
			v.descExpected = "a desc_id in " + strings.Join(ranges, ", ")
		}
		if v.col.wantWarning(idxUnknownDesc, off) {
			v.col.add(warning(CodeUnknownDesc, off, st.name, index, fmt.Sprintf("desc_id=%#x", r.DescID), v.descExpected))
		}
		return
	}
	if v.col.wantWarning(idxUnknownTaskType, off) {
		_, t := abi.LookupDesc(r.DescID)
		want := "a task type of the TaskType enum"
		if v.o.Family != abi.FamilyNone {
			want = "a task type of the " + v.o.Family.String() + " kernel family"
		}
		v.col.add(warning(CodeUnknownTaskType, off, st.name, index, fmt.Sprintf("desc_id=%#x (task type %d)", r.DescID, t), want))
	}
}

// descCode returns the warning a desc_id deserves under kernel family fam,
// "" for none.
func descCode(id uint32, fam abi.Family) capture.Code {
	switch ns, i := abi.LookupDesc(id); ns {
	case abi.NamespaceNone:
		return CodeUnknownDesc
	case abi.NamespaceTaskType:
		if !knownTaskType(i, fam) {
			return CodeUnknownTaskType
		}
	}
	return ""
}

// knownTaskType says whether task type t has a name under kernel family
// fam: in the TaskType enum without one, in the family's table with one.
func knownTaskType(t uint32, fam abi.Family) bool {
	if fam == abi.FamilyNone {
		return t < abi.TaskTypeCount && enumTaskType[t]
	}
	_, ok := fam.TaskTypeName(t)
	return ok
}

// slot is the scan's slot hook: the header warnings, and the exact overlap
// check of a slot whose records turned out unsorted.
func (v *validator) slot(s *capture.SlotScan) {
	h := &s.Header
	v.hbuf = h.Append(v.hbuf[:0])
	name := ""
	for _, f := range headerFields {
		if !f.WarnNonzero {
			continue
		}
		b := v.hbuf[f.Offset : f.Offset+f.Size]
		first, nonzero := -1, 0
		for i, x := range b {
			if x != 0 {
				nonzero++
				if first < 0 {
					first = i
				}
			}
		}
		if nonzero > 0 {
			name = s.Slot.String()
			v.warn(CodeNonzeroPadding, s.Off+int64(f.Offset+first), name, -1,
				fmt.Sprintf("%s[%d]=%#02x (%d nonzero of %d bytes)", f.Name, first, b[first], nonzero, f.Size), "zero bytes")
		}
	}
	if !s.Live {
		return
	}
	if name == "" {
		name = s.Slot.String()
	}
	for _, f := range headerFields {
		valid := enumValid[f.Enum]
		if valid == nil {
			continue
		}
		if x := f.Value(v.hbuf); !valid(x) {
			v.warn(CodeUnknownCoreType, s.Off+int64(f.Offset), name, -1, fmt.Sprintf("%s=%d", f.Name, x), enumExpected(f.Enum))
		}
	}
	if s.Records > 0 && h.EntryCycle == 0 {
		v.warn(CodeEntryCycleZero, s.Off+abi.CoreHeaderEntryCycleOffset, name, -1,
			"entry_cycle=0 with "+plural(uint64(s.Records), "record"), "the core's entry cycle (nonzero)")
	}
	if h.DroppedCount > 0 {
		v.droppedSlot(s, name)
	} else if s.Records > 0 {
		v.stoppedInTask(s, name)
	}
	if p := v.o.Layout.Plan; p != nil && h.RecordCapacity != p.Capacities.For(s.Slot.CoreType) {
		v.planDiffers(s, name)
	}
	if st := &v.cur; s.Records > 0 && st.off == s.Off && st.firstBreak >= 0 && st.exact {
		v.exactOverlaps(s, st)
	}
}

// stoppedInTask reports a core whose last record shows that it stopped
// inside a task: the device publishes a record once it is complete, so a
// wait right after the previous task's trigger with nothing after it, or
// the compute of a task type that always triggers, right after its wait
// or the previous task's trigger, with no trigger after it, is a task that
// never finished. A core's first record alone says nothing: records that
// do not follow the runtime's wait, compute, trigger order (a hand-made
// capture, a kernel family's own records) draw no finding.
func (v *validator) stoppedInTask(s *capture.SlotScan, name string) {
	if s.Records < 2 {
		return
	}
	prevAt := s.Slot.RecordOffset(uint32(s.Records - 2))
	off := s.Off + int64(prevAt-s.Slot.Offset)
	var b [2 * abi.ProfileRecordSize]byte
	if _, err := v.c.ReadAt(b[:], off); err != nil {
		return // the record hook read them already: nothing new to say
	}
	prev, err1 := abi.DecodeProfileRecord(b[:abi.ProfileRecordSize])
	r, err2 := abi.DecodeProfileRecord(b[abi.ProfileRecordSize:])
	if err1 != nil || err2 != nil {
		return
	}
	afterTrigger := prev.DescID == abi.RuntimeStageTriggerEvent && prev.TaskID != r.TaskID
	what := ""
	switch ns, t := abi.LookupDesc(r.DescID); {
	case r.DescID == abi.RuntimeStageWaitDependency && afterTrigger:
		what = fmt.Sprintf("task %d's wait", r.TaskID)
	case ns == abi.NamespaceTaskType && v.o.Family == abi.FamilyNone && abi.TaskType(t) != abi.TaskTypeShmemPutMemSignal &&
		knownTaskType(t, v.o.Family) && (afterTrigger || prev.DescID == abi.RuntimeStageWaitDependency && prev.TaskID == r.TaskID):
		what = fmt.Sprintf("task %d's compute (%s), with no trigger after it", r.TaskID, abi.TaskType(t))
	default:
		return
	}
	v.warn(CodeStoppedInTask, off+abi.ProfileRecordSize, name, s.Records-1, "the core's last record is "+what,
		"the task's records to its trigger: it never finished, the kernel looks stopped (cycleabi analyze --plan SCHEDULE names the root)")
}

func enumExpected(enum string) string {
	if enum != "CoreType" {
		return "a member of " + enum
	}
	var names []string
	for _, t := range abi.CoreTypes() {
		names = append(names, fmt.Sprintf("%d (%s)", uint32(t), t))
	}
	return "a CoreType: " + strings.Join(names, " or ")
}

// droppedSlot reports a slot that dropped records, with the capacity that
// would have held them, and adds it to the capture's total.
func (v *validator) droppedSlot(s *capture.SlotScan, name string) {
	h := &s.Header
	need := uint64(h.RecordCount) + uint64(h.DroppedCount)
	v.dropped += uint64(h.DroppedCount)
	v.droppingCores++
	if need > v.neededRecords(s.Slot.CoreType) {
		v.setNeeded(s.Slot.CoreType, need)
	}
	v.warn(CodeDroppedRecords, s.Off+abi.CoreHeaderDroppedCountOffset, name, -1,
		fmt.Sprintf("dropped_count=%d (record_count %d, record_capacity %d)", h.DroppedCount, h.RecordCount, h.RecordCapacity),
		"0; "+holding(need))
}

func (v *validator) neededRecords(t abi.CoreType) uint64 {
	for _, n := range v.needed {
		if n.t == t {
			return n.records
		}
	}
	return 0
}

func (v *validator) setNeeded(t abi.CoreType, records uint64) {
	for i := range v.needed {
		if v.needed[i].t == t {
			v.needed[i].records = records
			return
		}
	}
	v.needed = append(v.needed, need{t, records})
}

// holding says what capacity holds records records.
func holding(records uint64) string {
	c, err := abi.RoundUpCapacity(records)
	if err != nil {
		return fmt.Sprintf("%d records exceed MaxRecordsPerCore (%d)", records, abi.MaxRecordsPerCore)
	}
	return fmt.Sprintf("record_capacity %d would hold all %d records", c, records)
}

// droppedTotal reports the capture's dropped records once, with the
// capacity per core type that would have held every slot's records.
func (v *validator) droppedTotal() {
	if v.dropped == 0 {
		return
	}
	var caps []string
	for _, t := range abi.CoreTypes() {
		have := v.layout.Capacities.For(t)
		need := v.neededRecords(t)
		switch c, err := abi.RoundUpCapacity(need); {
		case err != nil:
			caps = append(caps, fmt.Sprintf("%s more than MaxRecordsPerCore (%d)", t, abi.MaxRecordsPerCore))
		default:
			caps = append(caps, fmt.Sprintf("%s %d", t, max(c, have)))
		}
	}
	v.warn(CodeDroppedTotal, v.c.Base, "", -1,
		plural(v.dropped, "record")+" dropped by "+plural(v.droppingCores, "core"),
		"0; capacities "+strings.Join(caps, ", ")+" would hold them")
}

// span is one record of an unsorted slot, read back to find its overlaps.
type span struct {
	start, end uint64
	idx        int32
	// reported: the record hook already reported this record's overlap
	// (it is in the slot's sorted prefix).
	reported bool
}

// recordsPerRead bounds the records read back at once.
const recordsPerRead = 1024

// exactOverlaps finds every overlap of a slot whose records are not in
// start order: it reads the slot back (at most exactOverlapLimit records),
// sorts it by start_cycle (stably, so ties keep slot order, as decode's
// trace does) and checks each record against the largest end before it.
// The record hook has already reported the overlaps in the slot's sorted
// prefix; those are not reported twice.
func (v *validator) exactOverlaps(s *capture.SlotScan, st *slotState) {
	n := s.Records
	if v.records == nil {
		v.records = make([]abi.ProfileRecord, recordsPerRead)
	}
	spans := v.spans[:0]
	var prefixEnd uint64
	for first := 0; first < n; first += recordsPerRead {
		recs := v.records[:min(recordsPerRead, n-first)]
		var err error
		if v.rbuf, err = v.c.ReadRecords(s.Slot, first, recs, v.rbuf); err != nil {
			v.err = err
			return
		}
		for j := range recs {
			i := first + j
			sp := span{start: recs[j].StartCycle, end: recs[j].EndCycle, idx: int32(i)}
			if i < st.firstBreak {
				sp.reported = i > 0 && sp.start < prefixEnd
				prefixEnd = max(prefixEnd, sp.end)
			}
			spans = append(spans, sp)
		}
	}
	v.spans = spans
	slices.SortStableFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	maxEnd, maxIdx := spans[0].end, spans[0].idx
	for _, sp := range spans[1:] {
		if sp.start < maxEnd && !sp.reported {
			off := s.Off + abi.CoreHeaderSize + int64(sp.idx)*abi.ProfileRecordSize
			v.overlapAt(st, off+abi.ProfileRecordStartCycleOffset, int(sp.idx), sp.start, maxEnd, int(maxIdx))
		}
		if sp.end > maxEnd {
			maxEnd, maxIdx = sp.end, sp.idx
		}
	}
}

// planDiff is, for one core type, the live headers whose record_capacity
// differs from the host plan's: the first one and how many.
type planDiff struct {
	t       abi.CoreType
	first   Finding
	headers uint64
}

func (v *validator) planDiffers(s *capture.SlotScan, name string) {
	for i := range v.planDiffs {
		if d := &v.planDiffs[i]; d.t == s.Slot.CoreType {
			d.headers++
			return
		}
	}
	p := v.o.Layout.Plan
	v.planDiffs = append(v.planDiffs, planDiff{t: s.Slot.CoreType, headers: 1, first: warning(
		CodePlanMismatch, s.Off+abi.CoreHeaderRecordCapacityOffset, name, -1,
		fmt.Sprintf("record_capacity=%d", s.Header.RecordCapacity),
		fmt.Sprintf("%d (the %s capacity of host plan %s)", p.Capacities.For(s.Slot.CoreType), s.Slot.CoreType, p.Name),
	)})
}

// planMismatches reports, once per core type, the live headers whose
// capacity differs from the plan: the first one, and how many there are.
func (v *validator) planMismatches() {
	for _, d := range v.planDiffs {
		f := d.first
		if d.headers > 1 {
			f.Value += " (and " + plural(d.headers-1, "more live "+d.t.String()+" header") + ")"
		}
		v.col.report(f)
	}
}
