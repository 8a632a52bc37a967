package chromejson

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/jsontext"
)

// This file writes a trace as hyper-parallel's profiler exports it
// (profiler/profiler.py's export_chrome_trace: json.dumps(trace,
// ensure_ascii=False) of the dict its _parse_cycle_buffer returns, or, for
// a capture window, of the dict its _build_trace makes of them), byte for
// byte as python/cycleabi/hyper_parallel.py's parse_cycle_buffer and
// build_window followed by that json.dumps write it. It is the fast path
// behind the drop-in's install(): `cycleabi decode --upstream-compat`.

// UpstreamTables are the constants of the upstream version whose export
// is written: slot counts, the capacity limit, and the names of runtime
// stages and task types (hyper_parallel.UPSTREAM_TABLES).
type UpstreamTables struct {
	CubeSlots, VectorSlots int
	MaxRecords             uint64
	StageNames             map[uint64]string
	TaskTypeNames          map[uint64]string
}

// DefaultUpstreamTables are hyper_parallel.UPSTREAM_TABLES: the latest
// upstream read (profiler/profiling.py @7b1c95f9 and @c852d237).
func DefaultUpstreamTables() UpstreamTables {
	return UpstreamTables{
		CubeSlots: 24, VectorSlots: 48, MaxRecords: 134217712,
		StageNames: map[uint64]string{0x10000: "WaitDependency", 0x10006: "TerminateTask",
			0x10007: "TriggerEvent", 0x10008: "ReplicaW2Return"},
		TaskTypeNames: map[uint64]string{0: "Terminate", 10: "BeginTaskGraph", 101: "AddCustom", 102: "SwiGLU",
			103: "MatMul", 104: "GroupedMatMul", 105: "ShmemPutMemSignal", 106: "SwiGLUGrad", 107: "ShmemGetMem"},
	}
}

// UpstreamNumber is a Python int or float as the export writes it.
type UpstreamNumber struct {
	Int   *big.Int // an int; nil for a float
	Float float64
}

func (n UpstreamNumber) appendTo(dst []byte) []byte {
	if n.Int != nil {
		return n.Int.Append(dst, 10)
	}
	return jsontext.AppendPyJSONFloat(dst, n.Float)
}

func (n UpstreamNumber) positive() bool {
	if n.Int != nil {
		return n.Int.Sign() > 0
	}
	return n.Float > 0
}

func (n UpstreamNumber) String() string { return string(n.appendTo(nil)) }

// UpstreamConfig is one invocation's _CycleTraceConfig (and the two
// capacities _parse_cycle_buffer takes besides).
type UpstreamConfig struct {
	Rank              int64
	DeviceID          *int64
	CycleFrequencyMHz UpstreamNumber
	DetailedTaskNames bool
	KernelName        string
	OwnerLabel        string
	StageNames        map[uint64]string
	SocName           *string
	TaskStageNames    map[uint64]string
	CubeSlotCount     *int
	AICCapacity       *uint64
	AIVCapacity       *uint64
}

// UpstreamInvocation is one kernel call's buffer and what the window says
// of it (profiler.py's _RawInvocation and its runtime's kernel name).
type UpstreamInvocation struct {
	Name         string // the buffer's file, for errors
	Buffer       []byte
	Config       UpstreamConfig
	InvocationID int64
	Step         int64
	Direction    string
	KernelName   string
}

// UpstreamWindow is the capture window whose export is written.
type UpstreamWindow struct {
	Index             int64
	DetailedTaskNames bool
}

// UpstreamExport is what an export writes: one invocation's parse
// (Window nil) or a window of invocations.
type UpstreamExport struct {
	Tables      UpstreamTables
	Window      *UpstreamWindow
	Invocations []UpstreamInvocation
}

// Upstream's wire, as its decoder reads it: pinned here on purpose, not
// taken from this schema (gen/go/abi), since the buffers are upstream's.
const (
	upHeaderSize   = 64
	upRecordSize   = 32
	upTaskTypeBase = 0x20000
	upInvalidOwner = 0xFFFFFFFF
)

// upRecord is one live record with its slot's core.
type upRecord struct {
	start, end               uint64
	desc, task, index, owner uint32
	core                     uint32
	block                    uint32
	entry                    uint64
	ts, dur                  float64
}

// upParsed is one invocation's buffer decoded as _parse_cycle_buffer
// decodes it.
type upParsed struct {
	inv         *UpstreamInvocation
	tables      UpstreamTables
	records     []upRecord
	threads     [][2]uint32 // (core type, block), sorted
	anchor      uint64
	dropped     uint64
	aic, aiv    uint64
	bufferBytes uint64
	device      int64
	stageNames  map[uint64]string
}

// UpstreamError is a buffer upstream's decoder refuses, in its words,
// with the file and byte offset.
type UpstreamError struct {
	File   string
	Offset int64 // -1: the buffer as a whole
	Msg    string
}

func (e *UpstreamError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
}

func u32(b []byte, at uint64) uint64 { return uint64(binary.LittleEndian.Uint32(b[at:])) }
func u64(b []byte, at uint64) uint64 { return binary.LittleEndian.Uint64(b[at:]) }

func parseUpstream(inv *UpstreamInvocation, tables UpstreamTables) (*upParsed, error) {
	c := &inv.Config
	fail := func(off int64, format string, args ...any) error {
		return &UpstreamError{File: inv.Name, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	if !c.CycleFrequencyMHz.positive() {
		return nil, fail(-1, "cycle_frequency_mhz must be positive, got %s", c.CycleFrequencyMHz)
	}
	if c.CubeSlotCount != nil {
		if *c.CubeSlotCount < 24 {
			return nil, fail(-1, "profile Cube slot count must be at least 24, got %d", *c.CubeSlotCount)
		}
		if *c.CubeSlotCount > 1<<19 {
			return nil, fail(-1, "profile Cube slot count %d is past %d", *c.CubeSlotCount, 1<<19)
		}
		tables.CubeSlots, tables.VectorSlots = *c.CubeSlotCount, 2**c.CubeSlotCount
	}
	p := &upParsed{inv: inv, tables: tables, device: c.Rank}
	if c.DeviceID != nil {
		p.device = *c.DeviceID
	}
	p.stageNames = tables.StageNames
	if len(c.StageNames) > 0 {
		p.stageNames = make(map[uint64]string, len(tables.StageNames)+len(c.StageNames))
		for k, v := range tables.StageNames {
			p.stageNames[k] = v
		}
		for k, v := range c.StageNames {
			if strings.TrimSpace(v) == "" {
				return nil, fail(-1, "stage_names values must be non-empty strings, got %q", v)
			}
			p.stageNames[k] = v
		}
	}
	if err := p.layout(c, fail); err != nil {
		return nil, err
	}
	if err := p.slots(fail); err != nil {
		return nil, err
	}
	return p, nil
}

// upFail makes an *UpstreamError of the invocation's buffer.
type upFail func(off int64, format string, args ...any) error

// layout resolves the two capacities and the layout's size as upstream
// does: from the Host when it gives them, else from the AIC and AIV
// headers.
func (p *upParsed) layout(c *UpstreamConfig, fail upFail) error {
	tables := p.tables
	raw := p.inv.Buffer
	n := uint64(len(raw))
	cube, vector := uint64(tables.CubeSlots), uint64(tables.VectorSlots)
	if minimum := (cube + vector) * upHeaderSize; n < minimum {
		return fail(-1, "MegaKernel profile buffer is too small: expected at least %d bytes, got %d", minimum, n)
	}
	check := func(capacity uint64, core string) error {
		// A header holds a u32: a larger capacity from the Host matches no
		// slot (and would overflow the layout's size).
		if capacity > tables.MaxRecords || capacity > math.MaxUint32 {
			return fail(-1, "%s profile record capacity exceeds the %d-record limit: %d", core, tables.MaxRecords, capacity)
		}
		if capacity%16 != 0 {
			return fail(-1, "%s profile record capacity must be a multiple of 16: %d", core, capacity)
		}
		return nil
	}
	size := func(aic, aiv uint64) uint64 {
		return cube*(upHeaderSize+upRecordSize*aic) + vector*(upHeaderSize+upRecordSize*aiv)
	}
	switch {
	case c.AICCapacity == nil && c.AIVCapacity == nil:
		p.aic = u32(raw, 24)
		if err := check(p.aic, "AIC"); err != nil {
			return err
		}
		aivAt := cube * (upHeaderSize + upRecordSize*p.aic)
		if n < aivAt+upHeaderSize {
			return fail(-1, "MegaKernel profile buffer is too small for the AIV header: expected at least %d bytes, got %d", aivAt+upHeaderSize, n)
		}
		p.aiv = u32(raw, aivAt+24)
		if err := check(p.aiv, "AIV"); err != nil {
			return err
		}
		if p.bufferBytes = size(p.aic, p.aiv); n < p.bufferBytes {
			return fail(-1, "MegaKernel profile buffer is too small for its declared capacities: expected at least %d bytes, got %d", p.bufferBytes, n)
		}
	case c.AICCapacity == nil || c.AIVCapacity == nil:
		return fail(-1, "AIC and AIV profile capacities must be provided together")
	default:
		p.aic, p.aiv = *c.AICCapacity, *c.AIVCapacity
		if err := check(p.aic, "AIC"); err != nil {
			return err
		}
		if err := check(p.aiv, "AIV"); err != nil {
			return err
		}
		if p.bufferBytes = size(p.aic, p.aiv); n < p.bufferBytes {
			return fail(-1, "MegaKernel profile buffer is smaller than its Host-computed layout: expected at least %d bytes, got %d", p.bufferBytes, n)
		}
	}

	return nil
}

// slotAt gives a slot's core type (1 AIC, 2 AIV), block, byte offset and
// record capacity: the cube slots first, then the vector slots.
func (p *upParsed) slotAt(slot uint64) (coreType, block, offset, capacity uint64) {
	cube := uint64(p.tables.CubeSlots)
	if slot < cube {
		return 1, slot, slot * (upHeaderSize + upRecordSize*p.aic), p.aic
	}
	block = slot - cube
	return 2, block, cube*(upHeaderSize+upRecordSize*p.aic) + block*(upHeaderSize+upRecordSize*p.aiv), p.aiv
}

// slots reads every slot's header and live records as upstream does
// (refusing what it refuses), and times the records from the anchor.
func (p *upParsed) slots(fail upFail) error {
	raw, cube, vector := p.inv.Buffer, uint64(p.tables.CubeSlots), uint64(p.tables.VectorSlots)
	var entries []uint64
	total := uint64(0) // the live records, at most: one allocation for them
	for slot := uint64(0); slot < cube+vector; slot++ {
		_, _, offset, capacity := p.slotAt(slot)
		total += min(u32(raw, offset+8), capacity)
	}
	p.records = make([]upRecord, 0, total)
	for slot := uint64(0); slot < cube+vector; slot++ {
		coreType, block, offset, capacity := p.slotAt(slot)
		entry, count, drop := u64(raw, offset), u32(raw, offset+8), u32(raw, offset+12)
		gotType, gotBlock, gotCapacity, reserved := u32(raw, offset+16), u32(raw, offset+20), u32(raw, offset+24), u32(raw, offset+28)
		if entry == 0 && count == 0 && drop == 0 && gotType == 0 && gotBlock == 0 && gotCapacity == 0 && reserved == 0 {
			continue
		}
		at := int64(offset)
		switch {
		case gotType != coreType || gotBlock != block:
			return fail(at, "Profile slot identity mismatch: slot=%d, expected=(%d, %d), got=(%d, %d)", slot, coreType, block, gotType, gotBlock)
		case gotCapacity != capacity:
			return fail(at, "Profile slot capacity mismatch: slot=%d, expected=%d, got=%d", slot, capacity, gotCapacity)
		case reserved != 0:
			return fail(at, "Profile core header reserved field must be zero: slot=%d, got=%d", slot, reserved)
		case count > capacity:
			return fail(at, "Profile record count exceeds capacity: slot=%d, count=%d, capacity=%d", slot, count, capacity)
		}
		p.dropped += drop
		if count == 0 {
			continue
		}
		if entry != 0 {
			entries = append(entries, entry)
		}
		p.threads = append(p.threads, [2]uint32{uint32(coreType), uint32(block)})
		for i := uint64(0); i < count; i++ {
			r := offset + upHeaderSize + i*upRecordSize
			rec := upRecord{start: u64(raw, r), end: u64(raw, r+8), desc: uint32(u32(raw, r+16)), task: uint32(u32(raw, r+20)),
				index: uint32(u32(raw, r+24)), owner: uint32(u32(raw, r+28)), core: uint32(coreType), block: uint32(block), entry: entry}
			if rec.end < rec.start {
				return fail(int64(r), "Profile cycle interval is negative: slot=%d, record=%d, start=%d, end=%d", slot, i, rec.start, rec.end)
			}
			p.records = append(p.records, rec)
		}
	}
	if len(p.records) == 0 {
		return fail(-1, "MegaKernel cycle profile buffer contains no records; verify that the current profiler schedule is active and that the profiled operator completed")
	}
	if len(entries) > 0 {
		p.anchor = slices.Min(entries)
	} else {
		p.anchor = p.records[0].start
		for _, r := range p.records {
			p.anchor = min(p.anchor, r.start)
		}
	}
	// sorted(records, key=(start_cycle, core_type, block_id)): stable.
	slices.SortStableFunc(p.records, func(a, b upRecord) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.core, b.core), cmp.Compare(a.block, b.block))
	})
	slices.SortFunc(p.threads, func(a, b [2]uint32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	mhz := p.inv.Config.CycleFrequencyMHz
	for i := range p.records {
		r := &p.records[i]
		r.ts = pyDivide(r.start, p.anchor, mhz)
		r.dur = pyDivide(r.end, r.start, mhz)
	}
	return nil
}

// pyDivide is (a - b) / mhz in Python's arithmetic: an int difference
// divided by an int (true division, correctly rounded) or by a float (the
// difference rounded to a float first).
func pyDivide(a, b uint64, mhz UpstreamNumber) float64 {
	neg, mag := false, a-b
	if a < b {
		neg, mag = true, b-a
	}
	var q float64
	switch {
	case mhz.Int == nil:
		q = float64(mag)
		if neg {
			q = -q
		}
		return q / mhz.Float
	case mag <= 1<<53 && mhz.Int.IsUint64() && mhz.Int.Uint64() <= 1<<53:
		q = float64(mag) / float64(mhz.Int.Uint64())
	default:
		q, _ = new(big.Rat).SetFrac(new(big.Int).SetUint64(mag), mhz.Int).Float64()
	}
	if neg {
		q = -q
	}
	return q
}

var upCoreNames = [3]string{"", "AIC", "AIV"}

// stage is upstream's _event_name's stage part for desc.
func (p *upParsed) stage(desc uint32) string {
	if s, ok := p.stageNames[uint64(desc)]; ok {
		return s
	}
	if desc >= upTaskTypeBase {
		t := uint64(desc - upTaskTypeBase)
		if s, ok := p.tables.TaskTypeNames[t]; ok {
			return "TaskType_" + s
		}
		return "TaskType_" + strconv.FormatUint(t, 10)
	}
	return "DescId_" + strconv.FormatUint(uint64(desc), 10)
}

// upWriter writes Python's json.dumps text: it builds the text in buf and
// hands it to w 32 KiB at a time (spill) and at the end (flush).
type upWriter struct {
	w   io.Writer
	buf []byte
}

func (u *upWriter) flush() error {
	_, err := u.w.Write(u.buf)
	u.buf = u.buf[:0]
	return err
}

// spill flushes once buf holds 32 KiB.
func (u *upWriter) spill() error {
	if len(u.buf) < 1<<15 {
		return nil
	}
	return u.flush()
}

// next writes a list's separator: nothing before its first item, ", "
// before the others.
func (u *upWriter) next(sep *string) {
	u.raw(*sep)
	*sep = ", "
}

func (u *upWriter) str(s string) { u.buf = jsontext.AppendPyString(u.buf, s) }
func (u *upWriter) raw(s string) { u.buf = append(u.buf, s...) }
func (u *upWriter) int(v int64)  { u.buf = strconv.AppendInt(u.buf, v, 10) }
func (u *upWriter) uint(v uint64) {
	u.buf = strconv.AppendUint(u.buf, v, 10)
}
func (u *upWriter) bool(v bool) { u.buf = strconv.AppendBool(u.buf, v) }
func (u *upWriter) key(sep, k string) {
	u.raw(sep)
	u.str(k)
	u.raw(": ")
}

func (u *upWriter) meta(name string, pid int64, tid uint64, argKey string, argStr string, argInt int) {
	u.key("{", "name")
	u.str(name)
	u.key(", ", "ph")
	u.str("M")
	u.key(", ", "pid")
	u.int(pid)
	u.key(", ", "tid")
	u.uint(tid)
	u.key(", ", "args")
	u.key("{", argKey)
	if argKey == "name" {
		u.str(argStr)
	} else {
		u.int(int64(argInt))
	}
	u.raw("}}")
}

// metadataEvents writes the parse's process and thread events, skipping
// those whose (name, pid, tid) seen holds (a window writes each once).
func (u *upWriter) metadataEvents(p *upParsed, sep *string, seen map[[3]int64]bool) {
	c := &p.inv.Config
	emit := func(kind int64, tid uint64) bool {
		k := [3]int64{kind, c.Rank, int64(tid)}
		if seen == nil {
			return true
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	if emit(0, 0) {
		u.next(sep)
		u.meta("process_name", c.Rank, 0, "name", fmt.Sprintf("%s rank %d device %d", c.KernelName, c.Rank, p.device), 0)
	}
	for i, t := range p.threads {
		tid := uint64(t[0])*1000 + uint64(t[1])
		if emit(1, tid) {
			u.next(sep)
			u.meta("thread_name", c.Rank, tid, "name", upCoreNames[t[0]]+"/"+strconv.FormatUint(uint64(t[1]), 10), 0)
		}
		if emit(2, tid) {
			u.next(sep)
			u.meta("thread_sort_index", c.Rank, tid, "sort_index", "", i)
		}
	}
}

// event writes one record's X event as _parse_cycle_buffer builds it, and
// in a window with the invocation's args and its shifted ts.
func (u *upWriter) event(p *upParsed, r *upRecord, ts float64, window bool) {
	c := &p.inv.Config
	name := p.stage(r.desc)
	if len(c.TaskStageNames) > 0 && (r.desc == 0x10000 || r.desc == 0x10007) {
		if s, ok := c.TaskStageNames[uint64(r.task)]; ok {
			name = s + "_" + name
		}
	}
	if c.DetailedTaskNames {
		name = name + "_task" + strconv.FormatUint(uint64(r.index)+1, 10)
		if r.owner != upInvalidOwner {
			name = c.OwnerLabel + strconv.FormatUint(uint64(r.owner), 10) + "_" + name
		}
	}
	u.key("{", "name")
	u.str(name)
	u.raw(`, "cat": "MegaKernelInternal", "ph": "X", "pid": `)
	u.int(c.Rank)
	u.key(", ", "tid")
	u.uint(uint64(r.core)*1000 + uint64(r.block))
	u.key(", ", "ts")
	u.buf = jsontext.AppendPyJSONFloat(u.buf, ts)
	u.key(", ", "dur")
	u.buf = jsontext.AppendPyJSONFloat(u.buf, r.dur)
	u.raw(`, "args": {"rank": `)
	u.int(c.Rank)
	u.key(", ", "device_id")
	u.int(p.device)
	u.key(", ", "core_type")
	u.str(upCoreNames[r.core])
	u.key(", ", "block_id")
	u.uint(uint64(r.block))
	u.key(", ", "task_id")
	u.uint(uint64(r.task))
	u.key(", ", "desc_id")
	u.uint(uint64(r.desc))
	u.key(", ", "stage_task_index")
	u.uint(uint64(r.index))
	u.key(", ", "task_number")
	u.uint(uint64(r.index) + 1)
	u.key(", ", "start_cycle")
	u.uint(r.start)
	u.key(", ", "end_cycle")
	u.uint(r.end)
	u.key(", ", "core_entry_cycle")
	u.uint(r.entry)
	if s, ok := c.TaskStageNames[uint64(r.task)]; ok {
		u.key(", ", "task_stage")
		u.str(s)
	}
	if r.desc >= upTaskTypeBase {
		u.key(", ", "task_type")
		u.uint(uint64(r.desc - upTaskTypeBase))
	}
	if r.owner != upInvalidOwner {
		u.key(", ", "owner_id")
		u.uint(uint64(r.owner))
	}
	if window {
		u.key(", ", "invocation_id")
		u.int(p.inv.InvocationID)
		u.key(", ", "step")
		u.int(p.inv.Step)
		u.key(", ", "direction")
		u.str(p.inv.Direction)
	}
	u.raw("}}")
}

func (u *upWriter) warnings(dropped uint64) {
	u.key(", ", "warnings")
	if dropped == 0 {
		u.raw("[]")
		return
	}
	u.raw("[")
	u.str(fmt.Sprintf("Device dropped %d cycle trace records", dropped))
	u.raw("]")
}

// WriteUpstream writes x as upstream's export_chrome_trace writes it. A
// buffer upstream's decoder refuses is an *UpstreamError; nothing is
// written then.
func WriteUpstream(w io.Writer, x UpstreamExport) error {
	parsed := make([]*upParsed, len(x.Invocations))
	for i := range x.Invocations {
		p, err := parseUpstream(&x.Invocations[i], x.Tables)
		if err != nil {
			return err
		}
		parsed[i] = p
	}
	u := &upWriter{w: w, buf: make([]byte, 0, 1<<16)}
	if x.Window == nil {
		if len(parsed) != 1 {
			return fmt.Errorf("one parse is one invocation, got %d", len(parsed))
		}
		if err := writeUpstreamParse(u, parsed[0]); err != nil {
			return err
		}
	} else if err := writeUpstreamWindow(u, x.Window, parsed); err != nil {
		return err
	}
	return u.flush()
}

func writeUpstreamParse(u *upWriter, p *upParsed) error {
	c := &p.inv.Config
	sep := ""
	u.raw(`{"traceEvents": [`)
	u.metadataEvents(p, &sep, nil)
	for i := range p.records {
		u.next(&sep)
		u.event(p, &p.records[i], p.records[i].ts, false)
		if err := u.spill(); err != nil {
			return err
		}
	}
	u.raw(`], "megaKernelCycleTrace": {"schemaVersion": 1, "rank": `)
	u.int(c.Rank)
	u.key(", ", "deviceId")
	u.int(p.device)
	u.key(", ", "socName")
	if c.SocName == nil {
		u.raw("null")
	} else {
		u.str(*c.SocName)
	}
	u.key(", ", "cycleFrequencyMHz")
	u.buf = c.CycleFrequencyMHz.appendTo(u.buf)
	u.key(", ", "anchorCycle")
	u.uint(p.anchor)
	u.raw(`, "recordCapacityPerCore": {"AIC": `)
	u.uint(p.aic)
	u.key(", ", "AIV")
	u.uint(p.aiv)
	u.raw("}")
	u.key(", ", "maxRecordCapacityPerCore")
	u.uint(p.tables.MaxRecords)
	u.key(", ", "recordCount")
	u.int(int64(len(p.records)))
	u.key(", ", "droppedRecordCount")
	u.uint(p.dropped)
	u.key(", ", "profileBufferBytes")
	u.uint(p.bufferBytes)
	u.key(", ", "detailedTaskNames")
	u.bool(c.DetailedTaskNames)
	u.key(", ", "kernelName")
	u.str(c.KernelName)
	u.key(", ", "ownerLabel")
	u.str(c.OwnerLabel)
	u.warnings(p.dropped)
	u.raw("}}")
	return nil
}

func writeUpstreamWindow(u *upWriter, win *UpstreamWindow, parsed []*upParsed) error {
	u.raw(`{"traceEvents": [`)
	sep := ""
	var records, dropped uint64
	if len(parsed) > 0 {
		global := parsed[0].anchor
		for _, p := range parsed {
			global = min(global, p.anchor)
		}
		seen := map[[3]int64]bool{}
		type ref struct {
			p  *upParsed
			r  *upRecord
			ts float64
		}
		n := 0
		for _, p := range parsed {
			n += len(p.records)
		}
		all := make([]ref, 0, n)
		for _, p := range parsed {
			u.metadataEvents(p, &sep, seen)
			shift := pyDivide(p.anchor, global, p.inv.Config.CycleFrequencyMHz)
			for i := range p.records {
				all = append(all, ref{p, &p.records[i], p.records[i].ts + shift})
			}
			records += uint64(len(p.records))
			dropped += p.dropped
		}
		// sorted(key=(ts, pid, tid)): stable.
		slices.SortStableFunc(all, func(a, b ref) int {
			if a.ts != b.ts {
				if a.ts < b.ts {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(a.p.inv.Config.Rank, b.p.inv.Config.Rank),
				cmp.Compare(uint64(a.r.core)*1000+uint64(a.r.block), uint64(b.r.core)*1000+uint64(b.r.block)))
		})
		for _, e := range all {
			u.next(&sep)
			u.event(e.p, e.r, e.ts, true)
			if err := u.spill(); err != nil {
				return err
			}
		}
		u.raw(`], "megaKernelCycleTrace": {"schemaVersion": 1, "windowIndex": `)
		u.int(win.Index)
		u.key(", ", "anchorCycle")
		u.uint(global)
	} else {
		u.raw(`], "megaKernelCycleTrace": {"schemaVersion": 1, "windowIndex": `)
		u.int(win.Index)
	}
	u.key(", ", "invocationCount")
	u.int(int64(len(parsed)))
	u.key(", ", "recordCount")
	u.uint(records)
	u.key(", ", "droppedRecordCount")
	u.uint(dropped)
	u.key(", ", "detailedTaskNames")
	u.bool(win.DetailedTaskNames)
	u.key(", ", "invocations")
	u.raw("[")
	for i, p := range parsed {
		if i > 0 {
			u.raw(", ")
		}
		u.key("{", "invocationId")
		u.int(p.inv.InvocationID)
		u.key(", ", "step")
		u.int(p.inv.Step)
		u.key(", ", "direction")
		u.str(p.inv.Direction)
		u.key(", ", "kernelName")
		u.str(p.inv.KernelName)
		u.key(", ", "rank")
		u.int(p.inv.Config.Rank)
		u.key(", ", "deviceId")
		u.int(p.device)
		u.key(", ", "anchorCycle")
		u.uint(p.anchor)
		u.key(", ", "recordCount")
		u.int(int64(len(p.records)))
		u.key(", ", "droppedRecordCount")
		u.uint(p.dropped)
		u.raw("}")
	}
	u.raw("]")
	u.warnings(dropped)
	u.raw("}}")
	return nil
}
