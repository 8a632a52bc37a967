package validate

import (
	"encoding/binary"
	"fmt"
	"slices"
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

// knownTaskType[t] says whether task type t is in the TaskType enum; a
// table, because the record hook asks for every task-type record.
var knownTaskType = func() *[abi.TaskTypeCount]bool {
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
	if ns, i := abi.LookupDesc(r.DescID); ns == abi.NamespaceNone || ns == abi.NamespaceTaskType && !knownTaskType[i] {
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

// block is the scan's Block hook: it checks records against the common
// case — each in start order and after the end of every record before it,
// at or after the core's entry, ending at or after its start (what the
// scan then need not check again), with a desc_id known to be fine — with one
// flag per record and no branch per check. It updates the slot state as
// the record hook would for the records that pass, and returns how many
// passed before the first that did not (which the record hook then sees:
// the same findings, in the same order).
func (v *validator) block(s *capture.SlotScan, first int, off int64, b []byte) int {
	st := &v.cur
	n := len(b) / abi.ProfileRecordSize
	if n == 0 {
		return 0
	}
	if first == 0 {
		// The slot's first record: the state the record hook's begin sets.
		st.begin(s)
	}
	// entry is the smallest start that passes. When no before-entry
	// finding in this block can be kept (the code's kept findings are
	// full and all at lower offsets, and no OnFinding hook watches), a
	// record that starts before the entry only counts: entry drops to 0
	// and the records before it are counted below, without a branch.
	entry := st.entry
	countEarly := v.col.onFinding == nil && !v.col.stats[idxBeforeEntry].admits(v.col.limit, off)
	if countEarly {
		entry = 0
	}
	// In a slot read back for its overlaps (exactOverlaps), the record
	// hook reports none once the slot is out of order: then a record that
	// starts before an earlier one ends passes too.
	deferred := st.firstBreak >= 0 && st.exact
	j := 0
	var prev, maxEnd uint64
	var maxIdx int
	if first == 0 {
		prev = binary.LittleEndian.Uint64(b[abi.ProfileRecordStartCycleOffset:])
		maxEnd = binary.LittleEndian.Uint64(b[abi.ProfileRecordEndCycleOffset:])
		if b2u(prev < entry)|b2u(maxEnd < prev)|v.descBad(binary.LittleEndian.Uint32(b[abi.ProfileRecordDescIDOffset:])) != 0 {
			return 0
		}
		j = 1
	} else {
		prev, maxEnd, maxIdx = st.prevStart, st.maxEnd, st.maxIdx
	}
	// A start is compared with maxEnd&overlaps for an overlap: the largest
	// end so far, or 0 when overlaps are deferred.
	overlaps := ^uint64(0)
	if deferred {
		overlaps = 0
	}
	for ; j < n; j++ {
		rb := (*[abi.ProfileRecordSize]byte)(b[j*abi.ProfileRecordSize:])
		start := binary.LittleEndian.Uint64(rb[abi.ProfileRecordStartCycleOffset:])
		end := binary.LittleEndian.Uint64(rb[abi.ProfileRecordEndCycleOffset:])
		desc := binary.LittleEndian.Uint32(rb[abi.ProfileRecordDescIDOffset:])
		if b2u(start < prev)|b2u(start < maxEnd&overlaps)|b2u(start < entry)|b2u(end < start)|b2u(v.descOK[descSlot(desc)] != desc) != 0 &&
			(start < prev || start < maxEnd&overlaps || start < entry || end < start || v.descBad(desc) != 0) {
			break
		}
		if end > maxEnd {
			maxEnd, maxIdx = end, first+j
		}
		prev = start
	}
	if countEarly {
		v.countEarly(b[:j*abi.ProfileRecordSize], st.entry)
	}
	st.prevStart, st.maxEnd, st.maxIdx = prev, maxEnd, maxIdx
	return j
}

// countEarly counts the before-entry findings of records b, which block
// passed without reporting them.
func (v *validator) countEarly(b []byte, entry uint64) {
	early := 0
	for j := 0; j+abi.ProfileRecordSize <= len(b); j += abi.ProfileRecordSize {
		early += int(b2u(binary.LittleEndian.Uint64(b[j+abi.ProfileRecordStartCycleOffset:]) < entry))
	}
	if early > 0 {
		st := &v.col.stats[idxBeforeEntry]
		st.severity = capture.Warning
		st.count += early
	}
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

// descBad is 1 when desc_id draws a warning; a fine one goes in the cache.
func (v *validator) descBad(id uint32) uint {
	if descCode(id) != "" {
		return 1
	}
	v.descOK[descSlot(id)] = id
	return 0
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
	if descCode(r.DescID) == CodeUnknownDesc {
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
		v.col.add(warning(CodeUnknownTaskType, off, st.name, index, fmt.Sprintf("desc_id=%#x (task type %d)", r.DescID, t),
			"a task type of the TaskType enum"))
	}
}

// descCode returns the warning a desc_id deserves, "" for none.
func descCode(id uint32) capture.Code {
	switch ns, i := abi.LookupDesc(id); ns {
	case abi.NamespaceNone:
		return CodeUnknownDesc
	case abi.NamespaceTaskType:
		if !abi.TaskType(i).Valid() {
			return CodeUnknownTaskType
		}
	}
	return ""
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
		if x := fieldValue(v.hbuf, f); !valid(x) {
			v.warn(CodeUnknownCoreType, s.Off+int64(f.Offset), name, -1, fmt.Sprintf("%s=%d", f.Name, x), enumExpected(f.Enum))
		}
	}
	if s.Records > 0 && h.EntryCycle == 0 {
		v.warn(CodeEntryCycleZero, s.Off+abi.CoreHeaderEntryCycleOffset, name, -1,
			"entry_cycle=0 with "+plural(uint64(s.Records), "record"), "the core's entry cycle (nonzero)")
	}
	if h.DroppedCount > 0 {
		v.droppedSlot(s, name)
	}
	if p := v.o.Layout.Plan; p != nil && h.RecordCapacity != p.Capacities.For(s.Slot.CoreType) {
		v.planDiffers(s, name)
	}
	if st := &v.cur; s.Records > 0 && st.off == s.Off && st.firstBreak >= 0 && st.exact {
		v.exactOverlaps(s, st)
	}
}

// fieldValue reads an integer field of a wire struct from its bytes.
func fieldValue(b []byte, f abi.FieldInfo) uint64 {
	switch f.Size {
	case 1:
		return uint64(b[f.Offset])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[f.Offset:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[f.Offset:]))
	case 8:
		return binary.LittleEndian.Uint64(b[f.Offset:])
	}
	return 0
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
