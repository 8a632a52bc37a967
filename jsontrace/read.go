package jsontrace

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/tracemeta"
)

// Limits that keep a hostile or broken trace from taking unbounded memory
// or scratch space.
const (
	// MaxSources bounds the captures (ranks, or invocations of a window)
	// one trace may hold.
	MaxSources = 4096
	// MaxCubeSlots bounds the cube slot count of a rebuilt layout (Ascend
	// parts have 24 to 32 AI cores).
	MaxCubeSlots = 4096
	// MaxNames bounds the distinct descriptor and task names kept over
	// all the captures of a trace.
	MaxNames = 1 << 18
	// MinFrequencyMHz and MaxFrequencyMHz bound a trace's
	// cycleFrequencyMHz: 1 kHz to 1 THz holds every system counter (50
	// MHz on Ascend parts) with room, and keeps 2^64-1 cycles a time of
	// at most 1.8e13 s, so no time is a figure of hundreds of digits.
	MinFrequencyMHz = 0.001
	MaxFrequencyMHz = 1e6
)

// Error is a trace that cannot be read back into captures: malformed
// JSON, a missing or ill-typed arg, metadata that contradicts the events.
// It is a *jsonread.Error: file, line and byte offset (in the
// decompressed text) of the event or value at fault.
type Error = jsonread.Error

// Trace is a JSON trace read back into captures. Close it when done: the
// captures live in a scratch file.
type Trace struct {
	// Path is the trace file.
	Path string
	// Sources are its captures, by rank, then invocation id.
	Sources []*Source
	// Missing names what megaKernelCycleTrace describes and the events do
	// not hold at all (a rank or an invocation without one event), one
	// sentence each; the first source's Warnings and Validate say them too.
	Missing []string
	metaAt  jsonread.Pos
	file    *os.File
}

// Close removes the scratch file of the rebuilt captures.
func (t *Trace) Close() {
	outfile.CloseScratch(t.file)
	t.file = nil
}

// Source is one capture a trace holds: the records of one rank or, in a
// window, of one invocation, rebuilt into a buffer of the ABI's layout.
type Source struct {
	// Name labels the capture in messages and reports: the trace's path,
	// with the rank and invocation when the trace holds several.
	Name string
	// Rank and DeviceID are the capture's, as the events' args state them.
	Rank     uint32
	DeviceID uint32
	// Invocation is set for an invocation of a window (events with
	// invocation_id), nil otherwise.
	Invocation *render.Invocation
	// KernelName is the trace's kernelName for the capture, "" when it
	// states none. (Kernel families are chosen from it.)
	KernelName string
	// KernelFamily and KernelFamilyFrom are the trace's kernelFamily and
	// kernelFamilyFrom: the family decode read the ids under ("none" for
	// the schema's own tables) and what chose it; "" when it states none
	// (upstream's export, an older cycleabi).
	KernelFamily, KernelFamilyFrom string
	// SoCName and FrequencyMHz are the trace's socName and
	// cycleFrequencyMHz: "" and, when it states none (upstream's window
	// export does not), its socName's system-counter frequency, else the
	// one all the trace's events imply (FromEvents: one figure for every
	// capture of the trace), else 0.
	SoCName      string
	FrequencyMHz float64
	// FromEvents says FrequencyMHz is not stated but worked out from the
	// events' cycles and durations ((end_cycle - start_cycle) / dur,
	// checked to agree over every event; Notes say so).
	FromEvents bool
	// FreqErr says why the trace, which states no frequency, gives none:
	// its events disagree on it, or imply one outside MinFrequencyMHz to
	// MaxFrequencyMHz (FrequencyMHz is then 0). It names the events. The
	// trace is read only at a frequency the command line gives (--freq-mhz,
	// --soc): package input refuses it without one, validate reports it.
	FreqErr *Error
	// WindowIndex is upstream's window object's windowIndex, nil when the
	// trace states none.
	WindowIndex *int64
	// DetailedNames and OwnerLabel say how the trace named its events.
	DetailedNames bool
	OwnerLabel    string
	// Names are the names the events carry where they differ from the
	// schema's: desc_id -> stage name, task_id -> task stage (a names
	// file would give the same); nil when there are none.
	Names *kernelnames.Names
	// Records is the number of records (events); Dropped the records the
	// device dropped, as the metadata states (0 when it does not: see
	// Notes).
	Records uint64
	Dropped uint64
	// Layout is the layout the records were rebuilt in: the trace's
	// capacities and cube slot count when it states them, else the
	// smallest that holds the records (Notes say which).
	Layout abi.Layout
	// Notes say what the trace cannot carry, or did not state, and what
	// stands in for it.
	Notes []string
	// Warnings say what of the trace was not taken as it stands: a name
	// cut to the cap on a name (naming its event), and, on the trace's
	// first capture, what the metadata describes and the events do not
	// hold (Trace.Missing). Commands print them as warnings (--strict
	// fails on them); validate reports them as name-capped and
	// missing-capture findings.
	Warnings []string

	capture *capture.Capture
	trace   *Trace
	base    int64 // buffer's offset in the scratch file
	table   int64 // offset of the event-offset table in the scratch file
	cores   []*core
	byKey   map[uint32]int32
	descs   map[uint32]*descName
	tasks   map[uint32]string
	first   jsonread.Pos
	key     sourceKey
	step    *int64
	dir     string
	devSet  bool
	freq    eventFreq
	// freqNote is where in Notes the note of a frequency worked out
	// from the trace's events goes (with the notes describe makes).
	freqNote int
	// spoolIndex is the source's index in the spool's entries (the order
	// sources first appear in the trace).
	spoolIndex int32
	// cutNames counts the names cut to the cap on a name; cuts are the
	// first maxNameWarnings of them.
	cutNames int
	cuts     []cutName
}

// Request is the layout request the rebuilt capture decodes with: the
// layout it was rebuilt in.
func (s *Source) Request() capture.Request {
	caps := s.Layout.Capacities
	return capture.Request{CubeSlots: s.Layout.CubeSlots, Capacities: &caps, GivenBy: "the trace"}
}

// Decode decodes the rebuilt capture, with the trace's dropped count.
func (s *Source) Decode() (*decode.Decoded, error) {
	d, err := decode.Decode(s.capture, s.Request())
	if err != nil {
		return nil, err
	}
	d.Summary.Dropped, d.Warnings.Dropped = s.Dropped, s.Dropped
	return d, nil
}

// EventOffset returns the byte offset in the trace's (decompressed) text
// of the event a rebuilt record came from, given the record's offset in
// the rebuilt buffer.
func (s *Source) EventOffset(bufferOff int64) (int64, bool) {
	if bufferOff < 0 || bufferOff >= s.capture.Size() {
		return 0, false
	}
	var b [8]byte
	if _, err := s.trace.file.ReadAt(b[:], s.table+bufferOff/abi.ProfileRecordSize*8); err != nil {
		return 0, false
	}
	off := binary.LittleEndian.Uint64(b[:])
	return int64(off) - 1, off != 0
}

// sourceKey tells the captures of a trace apart.
type sourceKey struct {
	rank   uint32
	inv    int64
	hasInv bool
}

// core is one core with events.
type core struct {
	t     abi.CoreType
	block uint32
	pid   uint32 // its first event's pid: its thread's process
	entry uint64
	count uint64
	first jsonread.Pos
	// While the records are placed: how many are, and the buffered ones
	// (records and their table entries) from index bufFirst.
	placed   uint64
	bufFirst uint64
	recs     []byte
	offs     []byte
}

func (c *core) String() string { return c.t.String() + "/" + strconv.FormatUint(uint64(c.block), 10) }

// descName is the first event of a desc_id: its name is derived from it
// once the metadata (read last) says how names were built.
type descName struct {
	name     string
	stage    string
	hasStage bool
	index    uint32
	owner    uint32
	wait     bool
}

// spoolEntry is a record on its way to its slot: source, core, record,
// event offset + 1.
const spoolEntry = 4 + 4 + abi.ProfileRecordSize + 8

// reader is the state of one Read.
type reader struct {
	path    string
	st      *jsonread.Reader
	sources map[sourceKey]*Source
	order   []*Source
	meta    *meta            // nil until the trace's megaKernelCycleTrace is read
	merge   *tracemeta.Merge // a merged trace's megaKernelTraceMerge, nil for none
	names   int
	spool   *os.File
	w       *bufio.Writer
	ent     [spoolEntry]byte
	fields  []jsonread.Field
	args    []jsonread.Field
	events  uint64
	metaAt  jsonread.Pos // where megaKernelCycleTrace's value starts
	// threads are the cores the trace's thread_name events name (see
	// threadName).
	threads []namedThread
}

// Read reads the trace at path (plain or gzip JSON) and rebuilds its
// captures in a scratch file in dir ("": os.TempDir, which honours
// TMPDIR). A malformed trace, or one whose metadata contradicts its
// events, is an *Error naming the line and byte offset.
func Read(path, dir string) (*Trace, error) {
	st, err := jsonread.Open(path)
	if err != nil {
		return nil, err
	}
	st.NonFinite = true // NaN gets an error of its own, not a syntax error
	defer st.Close()
	spool, err := outfile.CreateScratch(dir, "cycleabi-trace-spool-*")
	if err != nil {
		return nil, err
	}
	defer outfile.CloseScratch(spool)
	r := &reader{path: path, st: st, sources: map[sourceKey]*Source{}, spool: spool, w: bufio.NewWriterSize(spool, 1<<20)}
	sawEvents := false
	err = st.Object("a MegaKernel trace", func(key []byte, at jsonread.Pos) error {
		switch string(key) {
		case "traceEvents":
			if sawEvents {
				// Python would keep the last; a stream cannot, and no
				// profiler writes two.
				return st.ErrorAt(at, "a second traceEvents key (a trace holds one array of events)")
			}
			sawEvents = true
			return st.Array(false, "a trace event", r.event)
		case "megaKernelCycleTrace":
			var raw jsonread.Sink
			if err := st.Value(&raw); err != nil {
				return err
			}
			if string(raw.B) == "null" {
				r.meta = nil // as Python reads it: no metadata (a second key replaces the first)
				return nil
			}
			m, err := tracemeta.Unmarshal(raw.B)
			if err != nil {
				return st.ErrorAt(at, "megaKernelCycleTrace: %v", err)
			}
			r.meta, r.metaAt = m, at
			return nil
		case "megaKernelTraceMerge":
			// A merged trace (cycleabi merge): its MegaKernel part is
			// read, with where merge placed it noted.
			var raw jsonread.Sink
			if err := st.Value(&raw); err != nil {
				return err
			}
			m, err := tracemeta.UnmarshalMerge(raw.B)
			if err != nil {
				return st.ErrorAt(at, "megaKernelTraceMerge: %v", err)
			}
			r.merge = m
			return nil
		}
		return st.Skip()
	})
	if err == nil {
		err = st.End("trace object")
	}
	if err != nil {
		return nil, err
	}
	if err := r.w.Flush(); err != nil {
		return nil, fmt.Errorf("%s: writing the spool: %w", path, err)
	}
	if r.meta == nil {
		return nil, &Error{File: path, Msg: "no megaKernelCycleTrace object: not a MegaKernel trace (upstream's profiler export or cycleabi decode writes one)"}
	}
	if v := r.meta.SchemaVersion; v != nil && *v != tracemeta.SchemaVersion {
		return nil, &Error{File: path, Msg: fmt.Sprintf("megaKernelCycleTrace.schemaVersion %d is not one this build reads (%d)", *v, tracemeta.SchemaVersion)}
	}
	if len(r.order) == 0 {
		return nil, &Error{File: path, Msg: "the trace holds no MegaKernel record events (ph X, cat MegaKernelInternal)"}
	}
	sorted := slices.Clone(r.order)
	slices.SortFunc(sorted, func(a, b *Source) int {
		return cmp.Or(cmp.Compare(a.key.rank, b.key.rank), cmp.Compare(a.key.inv, b.key.inv))
	})
	for _, s := range sorted {
		if err := r.describe(s, len(sorted)); err != nil {
			return nil, err
		}
	}
	r.eventFrequency(sorted)
	t, err := r.rebuild(dir, sorted)
	if err != nil {
		return nil, err
	}
	t.Missing, t.metaAt = append(r.unaccounted(), r.threadsWithoutEvents()...), r.metaAt
	t.Sources[0].Warnings = append(t.Sources[0].Warnings, t.Missing...)
	return t, nil
}

// uintArg parses a non-negative JSON integer of at most 64 bits.
func uintArg(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 20 || len(v) > 1 && v[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// eventArgs are the args a record is rebuilt from, in the order an
// error names the first missing one.
var eventArgs = []string{"rank", "device_id", "core_type", "block_id", "task_id", "desc_id", "stage_task_index", "start_cycle", "end_cycle", "core_entry_cycle"}

// event takes one trace event: a record event (ph X, cat
// MegaKernelInternal) goes to the spool; any other is not a record
// (metadata, arrows) and is skipped.
func (r *reader) event(raw []byte, at jsonread.Pos) error {
	var ok bool
	if r.fields, ok = jsonread.Fields(raw, r.fields); !ok {
		return r.st.ErrorAt(at, "a trace event is not an object")
	}
	// Compared decoded: "MegaKernel\u0049nternal" is MegaKernelInternal.
	if !jsonread.IsString(jsonread.Lookup(r.fields, "ph"), "X") || !jsonread.IsString(jsonread.Lookup(r.fields, "cat"), "MegaKernelInternal") {
		r.threadName(at)
		return nil
	}
	args := jsonread.Lookup(r.fields, "args")
	if r.args, ok = jsonread.Fields(args, r.args); !ok {
		return r.st.ErrorAt(at, "a MegaKernelInternal event without an args object: its record cannot be rebuilt")
	}
	var v [10]uint64
	for i, name := range eventArgs {
		a := jsonread.Lookup(r.args, name)
		if a == nil {
			return r.st.ErrorAt(at, "a MegaKernelInternal event without args.%s: its record cannot be rebuilt", name)
		}
		if name == "core_type" {
			continue
		}
		n, ok := uintArg(a)
		if !ok {
			return r.st.ErrorAt(at, "args.%s is %.40s, expected a non-negative integer", name, a)
		}
		v[i] = n
	}
	for i, name := range eventArgs[:7] {
		if name != "core_type" && v[i] > 1<<32-1 {
			return r.st.ErrorAt(at, "args.%s %d does not fit in the record's u32", name, v[i])
		}
	}
	rec := abi.ProfileRecord{TaskID: uint32(v[4]), DescID: uint32(v[5]), StageTaskIndex: uint32(v[6]), StartCycle: v[7], EndCycle: v[8], OwnerID: abi.InvalidOwnerID}
	if a := jsonread.Lookup(r.args, "owner_id"); a != nil {
		n, ok := uintArg(a)
		if !ok || n > 1<<32-1 {
			return r.st.ErrorAt(at, "args.owner_id is %.40s, expected a u32", a)
		}
		rec.OwnerID = uint32(n)
	}
	if rec.EndCycle < rec.StartCycle {
		return r.st.ErrorAt(at, "args.end_cycle %d is before args.start_cycle %d (the ABI wants end_cycle >= start_cycle)", rec.EndCycle, rec.StartCycle)
	}
	ct, _ := jsonread.String(jsonread.Lookup(r.args, "core_type"))
	t, ok := abi.ParseCoreType(ct)
	if !ok {
		return r.st.ErrorAt(at, "args.core_type is %.40s, expected one of %v", jsonread.Lookup(r.args, "core_type"), abi.CoreTypes())
	}
	block := uint32(v[3])
	if uint64(block) >= uint64(MaxCubeSlots)*uint64(slotsPerCube(t)) {
		return r.st.ErrorAt(at, "args.block_id %d: more %s cores than a layout of %d cube slots holds", block, t, MaxCubeSlots)
	}
	k := sourceKey{rank: uint32(v[0])}
	if a := jsonread.Lookup(r.args, "invocation_id"); a != nil {
		id, err := strconv.ParseInt(string(a), 10, 64)
		if err != nil {
			return r.st.ErrorAt(at, "args.invocation_id is %.40s, expected an integer", a)
		}
		k.inv, k.hasInv = id, true
	}
	s, err := r.source(k, at)
	if err != nil {
		return err
	}
	if !s.devSet {
		s.DeviceID, s.devSet = uint32(v[1]), true
		if k.hasInv {
			if err := r.invocationArgs(s, at); err != nil {
				return err
			}
		}
	} else if s.DeviceID != uint32(v[1]) {
		return r.st.ErrorAt(at, "args.device_id %d, where the events of rank %d before it say device %d", v[1], k.rank, s.DeviceID)
	}
	ci, ok := s.byKey[slotKey(t, block)]
	if !ok {
		ci = int32(len(s.cores))
		s.byKey[slotKey(t, block)] = ci
		pid, _ := uintArg(jsonread.Lookup(r.fields, "pid"))
		s.cores = append(s.cores, &core{t: t, block: block, entry: v[9], first: at, pid: uint32(pid)})
	}
	c := s.cores[ci]
	if c.entry != v[9] {
		return r.st.ErrorAt(at, "args.core_entry_cycle %d of %s, where its events before say %d (a core enters the kernel once)", v[9], c, c.entry)
	}
	if c.count++; c.count > abi.MaxRecordsPerCore {
		return r.st.ErrorAt(at, "%s has more than %d events, more records than a slot can hold", c, abi.MaxRecordsPerCore)
	}
	s.Records++
	s.freq.add(rec.EndCycle-rec.StartCycle, jsonread.Lookup(r.fields, "dur"), at)
	if err := r.name(s, &rec, at); err != nil {
		return err
	}
	e := r.ent[:0]
	e = binary.LittleEndian.AppendUint32(e, uint32(s.spoolIndex))
	e = binary.LittleEndian.AppendUint32(e, uint32(ci))
	e = rec.Append(e)
	e = binary.LittleEndian.AppendUint64(e, uint64(at.Offset)+1)
	if _, err := r.w.Write(e); err != nil {
		return fmt.Errorf("%s: writing the spool: %w", r.path, err)
	}
	r.events++
	return nil
}

func slotKey(t abi.CoreType, block uint32) uint32 { return uint32(t)<<24 | block }

func slotsPerCube(t abi.CoreType) uint32 {
	for _, r := range abi.Regions() {
		if r.CoreType == t {
			return r.SlotsPerCubeSlot
		}
	}
	return 0
}

// source returns the capture of k, made at its first event.
func (r *reader) source(k sourceKey, at jsonread.Pos) (*Source, error) {
	if s, ok := r.sources[k]; ok {
		return s, nil
	}
	if len(r.order) >= MaxSources {
		return nil, r.st.ErrorAt(at, "more than %d captures (ranks and invocations) in one trace", MaxSources)
	}
	s := &Source{key: k, first: at, byKey: map[uint32]int32{}, descs: map[uint32]*descName{}, tasks: map[uint32]string{}, spoolIndex: int32(len(r.order))}
	r.sources[k] = s
	r.order = append(r.order, s)
	return s, nil
}

// invocationArgs takes an invocation's step and direction from its first
// event's args (upstream's window export puts them on every event).
func (r *reader) invocationArgs(s *Source, at jsonread.Pos) error {
	if a := jsonread.Lookup(r.args, "step"); a != nil && string(a) != "null" {
		n, err := strconv.ParseInt(string(a), 10, 64)
		if err != nil {
			return r.st.ErrorAt(at, "args.step is %.40s, expected an integer or null", a)
		}
		s.step = &n
	}
	if a := jsonread.Lookup(r.args, "direction"); a != nil && string(a) != "null" {
		d, ok := jsonread.String(a)
		if !ok {
			return r.st.ErrorAt(at, "args.direction is %.40s, expected a string or null", a)
		}
		s.dir = d
	}
	return nil
}

// name keeps what the event says of its desc_id's and task's names: the
// first event of each desc_id, and each task's task_stage.
func (r *reader) name(s *Source, rec *abi.ProfileRecord, at jsonread.Pos) error {
	stage, hasStage := "", false
	if a := jsonread.Lookup(r.args, "task_stage"); a != nil {
		var err error
		if stage, err = r.taskStage(s, rec.TaskID, a, at); err != nil {
			return err
		}
		hasStage = true
	}
	if _, ok := s.descs[rec.DescID]; ok {
		return nil
	}
	name, ok := r.cappedName(s, jsonread.Lookup(r.fields, "name"), fmt.Sprintf("the name of the first event of desc_id %d", rec.DescID), at)
	if !ok {
		return r.st.ErrorAt(at, "a MegaKernelInternal event without a string name")
	}
	if err := r.addName(at); err != nil {
		return err
	}
	s.descs[rec.DescID] = &descName{name: name, stage: stage, hasStage: hasStage, index: rec.StageTaskIndex, owner: rec.OwnerID,
		wait: abi.TaskStagePrefixed(rec.DescID)}
	return nil
}

// taskStage returns the task_stage arg a of task id, checked against
// what its events before said.
func (r *reader) taskStage(s *Source, id uint32, a []byte, at jsonread.Pos) (string, error) {
	prev, seen := s.tasks[id]
	// As its events before wrote it: no allocation.
	if seen && len(a) == len(prev)+2 && a[0] == '"' && string(a[1:len(a)-1]) == prev {
		return prev, nil
	}
	var stage string
	var ok bool
	if seen {
		stage, _, ok = jsonread.StringCapped(a, kernelnames.MaxNameBytes)
	} else {
		stage, ok = r.cappedName(s, a, fmt.Sprintf("args.task_stage of task %d", id), at)
	}
	switch {
	case !ok:
		return "", r.st.ErrorAt(at, "args.task_stage is %.40s, expected a string", a)
	case seen && prev != stage:
		return "", r.st.ErrorAt(at, "args.task_stage %q of task %d, where its events before say %q", stage, id, prev)
	case !seen:
		if err := r.addName(at); err != nil {
			return "", err
		}
		s.tasks[id] = stage
	}
	return stage, nil
}

func (r *reader) addName(at jsonread.Pos) error {
	if r.names++; r.names > MaxNames {
		return r.st.ErrorAt(at, "more than %d distinct descriptor and task names", MaxNames)
	}
	return nil
}

// meta is the megaKernelCycleTrace object: one capture's (the reference
// decoder's keys), several under ranks (cycleabi decode), and a window's
// invocations (both writers).
type meta = tracemeta.Object

// invocationMeta is one entry of megaKernelCycleTrace.invocations.
type invocationMeta = tracemeta.Invocation
