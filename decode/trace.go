package decode

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/chrome"
)

// Config says how one capture appears in the trace.
type Config struct {
	// Rank is the trace pid; DeviceID is shown with it (the reference
	// defaults it to the rank).
	Rank     uint32
	DeviceID uint32
	// SoCName is recorded in the trace's metadata as given.
	SoCName string
	// FrequencyMHz is the system-counter frequency the cycles count at;
	// positive and finite (abi.SystemCounterMHz gives it by SoC).
	FrequencyMHz float64
	// DetailedNames appends the task number to event names and prefixes
	// the owner ("<OwnerLabel><owner_id>_").
	DetailedNames bool
	// KernelName names the process ("<KernelName> rank 0 device 0").
	KernelName string
	// OwnerLabel prefixes the owner id in detailed names ("Owner3_...").
	OwnerLabel string
	// Names are the kernel's names for its stages and tasks; nil for none.
	Names *Names
	// Invocation, when set, makes the capture one invocation of its rank
	// (see Invocation); nil for one capture per rank.
	Invocation *Invocation
	// FlowMode says which dependency arrows to draw when Deps is set;
	// MaxFlows caps the arrows of this capture (0: no cap).
	FlowMode FlowMode
	MaxFlows int
	// Deps, when set, are the capture's event producers under the
	// schedule it ran: the trace gets dependency arrows (FlowMode).
	Deps *Dependencies
}

// Input is one decoded capture and how to show it.
//
// Each Input has a Decoded of its own, never shared with another Input:
// the writer counts the warnings it sees in it while inputs render in
// parallel (the same capture twice is decoded twice).
type Input struct {
	Decoded *Decoded
	Config  Config
}

// WriteOptions tune WriteTrace; the zero value is ready to use.
type WriteOptions struct {
	// Parallel bounds how many captures are rendered at once (0: GOMAXPROCS).
	Parallel int
	// Formatters is the number of goroutines that format each capture's
	// events (0: GOMAXPROCS; 1: none but the capture's own). The trace is
	// the same for any. Each capture gets them all: the writer takes the
	// captures in order, so the one being written is the one that can
	// use the cores; the next ones fill their few buffered chunks and
	// wait, using none.
	Formatters int
	// Progress, when set, is called with the number of events just
	// written, from the goroutine that called WriteTrace.
	Progress func(events int)
	// InvocationGapUs, when set, lays the invocations of a rank end to
	// end, this many microseconds apart, instead of at their real times
	// (nil: each shifted by its anchor's distance from the rank's
	// earliest anchor).
	InvocationGapUs *float64
	// AbsoluteTime times every event from system-counter cycle 0 instead
	// of from its capture's anchor (or its rank's earliest anchor); it
	// wins over InvocationGapUs.
	AbsoluteTime bool
	// Overlaps, when set, receives the warning of each invocation whose
	// records overlap in time those of another of its rank, placed at
	// their real times (they share the rank's threads).
	Overlaps *[]string
	// FlowStats, when it has one entry per input, receives what each
	// input's dependency arrows came to (zero for an input without Deps).
	FlowStats []FlowStats
	// ShiftNegativeTS moves every JSON timestamp later by the same time
	// when records start before their time 0, so that none is negative
	// (Perfetto's JSON importer drops events with a negative ts), as
	// WritePerfetto always does; the zero value writes them negative,
	// as the reference decoder does. See WriteTrace.
	ShiftNegativeTS bool
}

// SchemaVersion is the version of the megaKernelCycleTrace object the
// reference decoder writes; the shape here is the same.
const SchemaVersion = 1

// WriteTrace writes one Chrome Trace Event JSON object holding the events
// of every input, in input order, pid = rank:
//
//	{"traceEvents":[ metadata events, then one "X" event per record in
//	 trace order, for each input in turn ],
//	 "megaKernelCycleTrace":{...},
//	 "metadata":{...}}
//
// An input whose Config has Deps gets dependency arrows after the X event
// of each of its wait records: Trace Event Format v1 flow events, one id per
// arrow (ids are unique in the trace: input i's are i<<32 + 1, 2, ...),
// "ph":"s" on the producer's thread with ts in the middle of its slice and
// "ph":"f","bp":"e" on the wait's thread with ts inside the wait's slice,
// never before the "s"; "cat":"dependency", named "event <E>". Its
// megaKernelCycleTrace object then also has dependencyArrows and
// waitsWithoutProducer, and a warning when the latter is not 0.
//
// For one input, megaKernelCycleTrace is the reference decoder's object
// plus abiVersion and abiFingerprint; for several it is
// {"schemaVersion","abiVersion","abiFingerprint","recordCount",
// "droppedRecordCount","ranks":[one such object per input]}. metadata is
// a copy of megaKernelCycleTrace (Perfetto shows it on its trace-info page).
//
// Inputs with an Invocation are kernel launches of a window: several may
// share a rank, whose process and core threads the first of them writes;
// every X event's args end with invocation_id, step and direction; each
// invocation is timed from its rank's earliest anchor, so that it sits at
// its real time (or laid end to end: WriteOptions.InvocationGapUs; or
// AbsoluteTime); and megaKernelCycleTrace takes the several-input form
// with "invocationCount", "invocations" and "warnings" (the window's: the
// dropped records, the invocations that overlap in time) before "ranks".
// Without Invocations the output is as described above.
//
// Records that start before their time 0 (their core's entry, or the
// anchor of its invocation) get a negative ts, as the reference decoder
// writes them, which Perfetto's JSON importer drops. With
// WriteOptions.ShiftNegativeTS the time 0 of every input moves back by
// the same time instead, the largest distance before time 0 of any input
// (WritePerfetto's shift): no ts is negative, the earliest record is at 0,
// and each moved input's object gains timestampShiftCycles, the cycles
// its time 0 moved (ts = (cycle − anchorCycle + timestampShiftCycles) /
// MHz).
//
// Inputs are rendered concurrently and written in order through bounded
// buffers, so memory does not grow with the trace. On error, w holds a
// partial trace: write to a temporary file and discard it (see Output).
func WriteTrace(w io.Writer, inputs []Input, o WriteOptions) error {
	if err := checkInputs(inputs); err != nil {
		return err
	}
	placements, err := place(inputs, &o)
	if err != nil {
		return err
	}
	reportOverlaps(placements, &o)
	for i := range inputs {
		inputs[i].Decoded.Warnings.Shifted, inputs[i].Decoded.Warnings.ShiftCycles = o.ShiftNegativeTS, 0
	}
	if o.ShiftNegativeTS {
		if err := shiftNegative(inputs, placements); err != nil {
			return err
		}
	}
	return writeTrace(w, inputs, o, jsonFormat{placements})
}

// checkInputs checks what every trace format needs of its inputs.
func checkInputs(inputs []Input) error {
	if len(inputs) == 0 {
		return errors.New("no captures to write")
	}
	for i := range inputs {
		if err := inputs[i].Config.check(); err != nil {
			return fmt.Errorf("%s: %w", inputs[i].Decoded.Capture.Name, err)
		}
	}
	ranks := map[uint32]string{}
	for _, in := range inputs {
		if prev, dup := ranks[in.Config.Rank]; dup && in.Config.Invocation == nil {
			return fmt.Errorf("%s and %s both have rank %d (each capture needs its own pid)", prev, in.Decoded.Capture.Name, in.Config.Rank)
		}
		ranks[in.Config.Rank] = in.Decoded.Capture.Name
	}
	return nil
}

// traceFormat lays out a trace: the bytes before the inputs' events, a
// renderer of each input's events, and the bytes after them (which may
// use what the arrows of each input came to). One merge (Records) feeds
// every format.
type traceFormat interface {
	head(inputs []Input) []byte
	renderer(i int, in *Input) eventRenderer
	tail(inputs []Input, flows []FlowStats) []byte
}

// eventRenderer appends the events of one input: begin before its first
// record, record for each record in trace order, end after the last.
type eventRenderer interface {
	begin(b []byte) []byte
	record(b []byte, rec *Record) ([]byte, error)
	end(b []byte) ([]byte, error)
	// timeAnchor is the cycle the input's time 0 stands for.
	timeAnchor() uint64
	// flowStats is what the input's arrows came to, once it is written.
	flowStats() FlowStats
}

// writeTrace renders the inputs concurrently and writes them in order.
func writeTrace(w io.Writer, inputs []Input, o WriteOptions, f traceFormat) error {
	par := o.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, len(inputs))

	formatters := o.Formatters
	if formatters <= 0 {
		// Not GOMAXPROCS/par: captures rendered at once do not run at
		// once (see Formatters).
		formatters = runtime.GOMAXPROCS(0)
	}
	p := pipeline{
		outs:  make([]chan chunk, len(inputs)),
		errs:  make([]error, len(inputs)),
		flows: make([]FlowStats, len(inputs)),
		done:  make(chan struct{}),
		// Room for every chunk in flight: the writer's two per
		// input and the one being filled.
		free:   make(chan []byte, par*4),
		places: make(chan struct{}, par),

		formatters: formatters,
	}
	for i := range p.outs {
		p.outs[i] = make(chan chunk, 2)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Renderers start in input order: the writer drains input i
		// before i+1, so input i always holds a place. The writer gives
		// the place back once it has written the input, so renderers
		// run at most par inputs ahead of it, however fast they are.
		for i := range inputs {
			select {
			case p.places <- struct{}{}:
			case <-p.done:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(p.outs[i])
				p.errs[i] = inputs[i].Decoded.WithSlots(func() error { return p.render(i, f.renderer(i, &inputs[i]), &inputs[i]) })
			}()
		}
	}()
	err := p.write(w, inputs, f, o.Progress)
	if err == nil && len(o.FlowStats) == len(inputs) {
		copy(o.FlowStats, p.flows)
	}
	close(p.done)
	wg.Wait()
	return err
}

func (c *Config) check() error {
	if !(c.FrequencyMHz > 0) || math.IsInf(c.FrequencyMHz, 0) {
		return fmt.Errorf("cycle frequency must be positive and finite, got %v MHz", c.FrequencyMHz)
	}
	// At a frequency this low, 2^64-1 cycles is more microseconds than a
	// float64 holds: the timestamps would be written as +Inf, not JSON.
	if math.IsInf(math.MaxUint64/c.FrequencyMHz, 0) {
		return fmt.Errorf("cycle frequency %v MHz is too low: timestamps would overflow", c.FrequencyMHz)
	}
	return nil
}

// chunkSize is the size of the pieces of trace handed from a renderer to
// the writer.
const chunkSize = 256 << 10

type chunk struct {
	b      []byte
	events int
	// job, when set, is a batch of the parallel formatters
	// (renderParallel): its text is ready once job.done is signalled, and
	// the writer hands the job back to job.free once written.
	job *formatJob
}

type pipeline struct {
	outs []chan chunk
	errs []error
	// flows[i] is what input i's arrows came to, set by its renderer
	// before it closes outs[i].
	flows []FlowStats
	done  chan struct{} // closed when the writer returns
	free  chan []byte   // written chunks, for reuse
	// places holds one token per input being rendered or not yet
	// written: at most par.
	places chan struct{}
	// formatters is the number of goroutines that format one input's
	// events (1: the input's own goroutine does).
	formatters int
}

var errAborted = errors.New("trace writing aborted")

// write drains the renderers' chunks in input order into w, between the
// format's head and tail.
func (p *pipeline) write(w io.Writer, inputs []Input, f traceFormat, progress func(int)) error {
	if _, err := w.Write(f.head(inputs)); err != nil {
		return err
	}
	for i := range inputs {
		for c := range p.outs[i] {
			if j := c.job; j != nil {
				<-j.done
				c.b, c.events = j.b, len(j.recs)
			}
			if _, err := w.Write(c.b); err != nil {
				return err
			}
			if progress != nil && c.events > 0 {
				progress(c.events)
			}
			if c.job != nil {
				c.job.free <- c.job
				continue
			}
			select {
			case p.free <- c.b[:0]:
			default:
			}
		}
		if err := p.errs[i]; err != nil {
			return err
		}
		<-p.places
	}
	_, err := w.Write(f.tail(inputs, p.flows))
	return err
}

// send hands a full buffer to the writer and returns an empty one.
func (p *pipeline) send(i int, b []byte, events int) ([]byte, error) {
	select {
	case p.outs[i] <- chunk{b: b, events: events}:
	case <-p.done:
		return nil, errAborted
	}
	select {
	case b = <-p.free:
	default:
		b = make([]byte, 0, chunkSize+chunkSize/4)
	}
	return b, nil
}

// render writes input i's events through r, in chunks.
func (p *pipeline) render(i int, r eventRenderer, in *Input) error {
	b := make([]byte, 0, chunkSize+chunkSize/4)
	b = r.begin(b)
	events := 0
	var err error
	// The counts of Warnings the walk sees: records that overlap an
	// earlier one of their slot (records of a slot come in start order),
	// or start before their core's entry or the anchor.
	w := &in.Decoded.Warnings
	w.Overlapping, w.BeforeEntry, w.NegativeTS = 0, 0, 0
	active, anchor := len(in.Decoded.Summary.Active), r.timeAnchor()
	maxEnd := make([]uint64, active)
	started := make([]bool, active)
	note := func(rec *Record) {
		if started[rec.Active] && rec.StartCycle < maxEnd[rec.Active] {
			w.Overlapping++
		}
		started[rec.Active] = true
		maxEnd[rec.Active] = max(maxEnd[rec.Active], rec.EndCycle)
		if rec.StartCycle < rec.EntryCycle {
			w.BeforeEntry++
		}
		if rec.StartCycle < anchor {
			w.NegativeTS++
		}
	}
	if jr, ok := r.(*jsonRenderer); ok && !jr.flows && p.formatters > 1 {
		// Events without arrows format in batches on p.formatters
		// goroutines (parallel.go), byte for byte as below.
		if _, err = p.send(i, b, 0); err != nil {
			return err
		}
		return p.renderParallel(i, jr.renderer, in.Decoded, p.formatters, note)
	}
	// One Record for the whole walk: &rec passed through the interface
	// would escape, one allocation per record.
	var cur Record
	walkErr := in.Decoded.Records(func(rec Record) bool {
		cur = rec
		note(&cur)
		if b, err = r.record(b, &cur); err != nil {
			return false
		}
		events++
		if len(b) >= chunkSize {
			b, err = p.send(i, b, events)
			events = 0
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if walkErr != nil {
		return walkErr
	}
	if b, err = r.end(b); err != nil {
		return err
	}
	p.flows[i] = r.flowStats()
	_, err = p.send(i, b, events)
	return err
}

// jsonFormat is the Chrome Trace Event JSON object of WriteTrace; each
// input is laid out by its placement.
type jsonFormat struct{ placements []placement }

func (jsonFormat) head([]Input) []byte { return []byte(`{"traceEvents":[`) }

func (f jsonFormat) tail(inputs []Input, flows []FlowStats) []byte {
	meta := appendMeta(nil, inputs, flows, f.placements)
	b := make([]byte, 0, 2*len(meta)+64)
	b = append(b, "\n],\n\"megaKernelCycleTrace\":"...)
	b = append(b, meta...)
	b = append(b, ",\n\"metadata\":"...)
	b = append(b, meta...)
	return append(b, "}\n"...)
}

func (f jsonFormat) renderer(i int, in *Input) eventRenderer {
	return &jsonRenderer{renderer: newRenderer(i, in, &f.placements[i]), first: i == 0, flows: in.Config.Deps != nil}
}

// jsonRenderer writes one input's events: the process and thread metadata
// events, then one X event per record in trace order, each wait's
// dependency arrows after its event.
type jsonRenderer struct {
	*renderer
	first, flows bool
}

func (r *jsonRenderer) begin(b []byte) []byte {
	if !r.first && r.place.meta {
		// Events start with ",\n" themselves; metadata does not.
		b = append(b, ',')
	}
	return r.appendMetadataEvents(b)
}

func (r *jsonRenderer) record(b []byte, rec *Record) ([]byte, error) {
	b = r.appendEvent(b, rec)
	if r.flows {
		b = r.appendFlows(b, rec)
	}
	return b, nil
}

func (r *jsonRenderer) end(b []byte) ([]byte, error) { return b, nil }

func (r *jsonRenderer) timeAnchor() uint64 { return r.anchor + r.place.shiftedBy }

func (r *jsonRenderer) flowStats() FlowStats { return r.renderer.flowStats }

// slotText holds the parts of an X event that are the same for every
// record of a slot, already rendered.
type slotText struct {
	pidTidTs  text   // `","cat":"MegaKernelInternal","ph":"X","pid":R,"tid":T,"ts":`
	pidTid    []byte // `,"pid":R,"tid":T,"ts":`
	argsStart text   // `,"args":{"rank":R,"device_id":D,"core_type":"AIC","block_id":B,"task_id":`
	entry     text   // `,"core_entry_cycle":E` (recordArgs names it)
}

// descText is what a desc_id contributes to an event, already rendered.
type descText struct {
	id       uint32
	idArg    text   // `,"desc_id":N,"stage_task_index":` (recordArgs' next)
	name     []byte // the stage name, JSON-escaped without quotes
	prefixed bool   // prefixed with the task's stage name
	arg      text   // `,"task_type":N` or `,"graph_stage":N`, or empty
}

// The constant keys of an event's args that follow integers.
var (
	keyDur        = newKey(`,"dur":`)
	keyTaskNumber = newKey(`,"task_number":`)
	keyStartCycle = newKey(`,"start_cycle":`)
	keyEndCycle   = newKey(`,"end_cycle":`)
	keyOwnerID    = newKey(`,"owner_id":`)
)

// descCacheBits sizes the direct-mapped cache of desc_id texts: a
// capture uses a few dozen desc_ids, and one of random desc_ids must not
// grow memory with its size (a miss renders the text again).
const descCacheBits = 10

type renderer struct {
	cfg      *Config
	sum      *capture.Summary
	clock    clock
	anchor   uint64
	slots    []slotText
	descs    *[1 << descCacheBits]*descText // by a multiplicative hash of desc_id
	tasks    taskStages
	owner    []byte // owner label, JSON-escaped
	detailed bool
	raw      []byte // a record's encoding, for the args of fields recordArgs does not name
	place    *placement

	deps      *Dependencies
	flowStats FlowStats
	flowBase  uint64 // added to each arrow's number to make its id
}

func newRenderer(i int, in *Input, pl *placement) *renderer {
	cfg := &in.Config
	sum := in.Decoded.Summary
	r := &renderer{cfg: cfg, sum: sum, clock: newClock(cfg.FrequencyMHz), anchor: pl.anchor, place: pl,
		descs: new([1 << descCacheBits]*descText), detailed: cfg.DetailedNames,
		owner: appendJSONStringBody(nil, cfg.OwnerLabel), deps: cfg.Deps, flowBase: uint64(i) << 32}
	if cfg.Names != nil {
		r.tasks = newTaskStages(&cfg.Names.Tasks)
	}
	r.slots = make([]slotText, len(sum.Active))
	for i, a := range sum.Active {
		s := &r.slots[i]
		s.pidTidTs = newText(fmt.Sprintf(`","cat":"MegaKernelInternal","ph":"X","pid":%d,"tid":%d,"ts":`, cfg.Rank, threadID(a.Slot)))
		s.pidTid = fmt.Appendf(nil, `,"pid":%d,"tid":%d,"ts":`, cfg.Rank, threadID(a.Slot))
		s.argsStart = newText(fmt.Sprintf(`,"args":{"rank":%d,"device_id":%d,"core_type":%s,"block_id":%d%s`,
			cfg.Rank, cfg.DeviceID, appendJSONString(nil, a.Slot.CoreType.String()), a.Slot.BlockID, argPlan[0].key))
		s.entry = newText(fmt.Sprintf("%s%d", entryKey, a.EntryCycle))
	}
	return r
}

// threadID is the trace tid of a slot: core_type*1000 + block_id.
func threadID(s abi.Slot) uint64 { return uint64(s.CoreType)*1000 + uint64(s.BlockID) }

func (r *renderer) desc(id uint32) *descText {
	slot := &r.descs[uint32(id*0x9e3779b1)>>(32-descCacheBits)]
	if d := *slot; d != nil && d.id == id {
		return d
	}
	d := &descText{id: id, name: appendJSONStringBody(nil, r.cfg.Names.StageName(id)), prefixed: abi.TaskStagePrefixed(id)}
	d.idArg = newText(fmt.Sprintf(`,"desc_id":%d,"stage_task_index":`, id))
	if ns, index := abi.LookupDesc(id); ns.Arg() != "" {
		d.arg = newText(fmt.Sprintf(`,%s:%d`, appendJSONString(nil, ns.Arg()), index))
	}
	*slot = d
	return d
}

// taskStages looks up task stage names in the names file's TaskNames
// (a slice indexed by task id for dense ids, several times faster than a
// map for records that look their tasks up in no useful order), with each
// of its few dozen names JSON-escaped once, not at every event.
type taskStages struct {
	names  *TaskNames
	stages []taskStage // by index in names.names
}

// taskStage is a stage name of a names file's tasks.
type taskStage struct {
	name string
	body string // name JSON-escaped, without quotes: name itself when it needs no escape
}

func newTaskStages(m *TaskNames) taskStages {
	if m.Len() == 0 {
		return taskStages{}
	}
	t := taskStages{names: m}
	for _, name := range m.names {
		st := taskStage{name: name, body: name}
		if esc := appendJSONStringBody(nil, name); string(esc) != name {
			st.body = string(esc)
		}
		t.stages = append(t.stages, st)
	}
	return t
}

// index returns the index in stages of task id's stage; -1 when the task
// has none.
func (t *taskStages) index(id uint32) int {
	if t.names == nil {
		return -1
	}
	return t.names.nameIndex(id)
}

// stage returns the stage of task id; nil when the task has none.
func (t *taskStages) stage(id uint32) *taskStage {
	if i := t.index(id); i >= 0 {
		return &t.stages[i]
	}
	return nil
}

// appendEvent appends one X event (preceded by ",\n"), with the fields
// and args of the reference decoder in its order.
func (r *renderer) appendEvent(b []byte, rec *Record) []byte {
	d := r.desc(rec.DescID)
	stage := r.tasks.stage(rec.TaskID)
	b = append(b, ",\n{\"name\":\""...)
	if r.detailed && rec.OwnerID != abi.InvalidOwnerID {
		b = append(b, r.owner...)
		b = appendUint(b, uint64(rec.OwnerID))
		b = append(b, '_')
	}
	if stage != nil && d.prefixed {
		b = append(b, stage.body...)
		b = append(b, '_')
	}
	b = append(b, d.name...)
	if r.detailed {
		b = append(b, "_task"...)
		b = appendUint(b, rec.TaskNumber())
	}
	s := &r.slots[rec.Active]
	b = s.pidTidTs.put(b)
	b = r.clock.appendSpan(b, rec.StartCycle+r.place.shift, rec.EndCycle+r.place.shift, r.anchor, &keyDur)
	// The args: recordArgs (args.go) unrolled, with constant keys. A loop
	// over the table costs some 500 instructions per event, a third more;
	// TestAppendArgsFollowsTable holds this to the table.
	b = s.argsStart.put(b) // ends with `,"task_id":`, recordArgs' first
	b = appendUint(b, uint64(rec.TaskID))
	b = d.idArg.put(b) // `,"desc_id":N,"stage_task_index":`
	b = appendUint(b, uint64(rec.StageTaskIndex))
	b = keyTaskNumber.put(b)
	b = appendUint(b, rec.TaskNumber())
	b = keyStartCycle.put(b)
	b = appendUint(b, rec.StartCycle)
	b = keyEndCycle.put(b)
	b = appendUint(b, rec.EndCycle)
	b = s.entry.put(b)
	if stage != nil {
		b = append(b, `,"task_stage":"`...)
		b = append(b, stage.body...)
		b = append(b, '"')
	}
	b = d.arg.put(b)
	if rec.OwnerID != abi.InvalidOwnerID {
		b = keyOwnerID.put(b)
		b = appendUint(b, uint64(rec.OwnerID))
	}
	if argPlanExtra {
		b = r.appendExtraArgs(b, rec)
	}
	b = append(b, r.place.args...) // the invocation's, last
	return append(b, "}}"...)
}

// appendMetadataEvents appends the process_name event of the rank, then
// thread_name and thread_sort_index for each core with records, by
// (core_type, block_id).
//
// Of several invocations of a rank, the first given writes them for every
// core of the rank, the others none.
func (r *renderer) appendMetadataEvents(b []byte) []byte {
	cfg := r.cfg
	if !r.place.meta {
		return b
	}
	pid := strconv.FormatUint(uint64(cfg.Rank), 10)
	b = chrome.AppendNameEvent(append(b, '\n'), "process_name", pid, 0,
		appendJSONString(nil, fmt.Sprintf("%s rank %d device %d", cfg.KernelName, cfg.Rank, cfg.DeviceID)))
	slots := r.place.slots
	if cfg.Invocation == nil {
		slots = make([]abi.Slot, 0, len(r.slots))
		for _, a := range r.sum.Active {
			slots = append(slots, a.Slot)
		}
		slices.SortFunc(slots, func(x, y abi.Slot) int {
			return cmp.Or(cmp.Compare(x.CoreType, y.CoreType), cmp.Compare(x.BlockID, y.BlockID))
		})
	}
	for i, s := range slots {
		tid := threadID(s)
		b = chrome.AppendNameEvent(append(b, ",\n"...), "thread_name", pid, int64(tid), appendJSONString(nil, s.String()))
		b = chrome.AppendSortIndexEvent(append(b, ",\n"...), pid, int64(tid), int64(i))
	}
	return b
}
