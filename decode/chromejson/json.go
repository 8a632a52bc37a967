package chromejson

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/chrome"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// Write writes one Chrome Trace Event JSON object holding the events
// of every input, in input order, pid = rank:
//
//	{"traceEvents":[ metadata events, then one "X" event per record in
//	 trace order, for each input in turn ],
//	 "megaKernelCycleTrace":{...},
//	 "metadata":{...}}
//
// An input whose Config (render.Config) has Deps gets dependency arrows
// after the X event of each of its wait records: Trace Event Format v1
// flow events, one id per arrow (ids are unique in the trace: input i's
// are i<<32 + 1, 2, ...), "ph":"s" on the producer's thread with ts in
// the middle of its slice and "ph":"f","bp":"e" on the wait's thread with
// ts inside the wait's slice, never before the "s"; "cat":"dependency",
// named "event <E>". Its megaKernelCycleTrace object then also has
// dependencyArrows and waitsWithoutProducer, and a warning when the
// latter is not 0.
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
// its real time (or laid end to end: render.WriteOptions.InvocationGapUs;
// or AbsoluteTime); and megaKernelCycleTrace takes the several-input form
// with "invocationCount", "invocations" and "warnings" (the window's: the
// dropped records, the invocations that overlap in time) before "ranks".
// Without Invocations the output is as described above.
//
// Records that start before their time 0 (their core's entry, or the
// anchor of its invocation) get a negative ts, as the reference decoder
// writes them, which Perfetto's JSON importer drops. With
// WriteOptions.ShiftNegativeTS the time 0 of every input moves back by
// the same time instead, the largest distance before time 0 of any input
// (render.ShiftNegative, perfetto.Write's shift): no ts is negative, the
// earliest record is at 0, and each moved input's object gains
// timestampShiftCycles, the cycles its time 0 moved (ts = (cycle −
// anchorCycle + timestampShiftCycles) / MHz).
//
// Inputs are rendered concurrently and written in order through bounded
// buffers (render.Write), so memory does not grow with the trace. On
// error, w holds a partial trace: write to a temporary file and discard
// it (see render.Output).
func Write(w io.Writer, inputs []render.Input, o render.WriteOptions) error {
	placements, err := render.Prepare(inputs, &o)
	if err != nil {
		return err
	}
	for i := range inputs {
		inputs[i].Decoded.Warnings.Shifted, inputs[i].Decoded.Warnings.ShiftCycles = o.ShiftNegativeTS, 0
	}
	if o.ShiftNegativeTS {
		if err := render.ShiftNegative(inputs, placements); err != nil {
			return err
		}
	}
	return render.Write(w, inputs, o, jsonFormat{placements})
}

// jsonFormat is the Chrome Trace Event JSON object of Write; each
// input is laid out by its render.Placement.
type jsonFormat struct{ placements []render.Placement }

func (jsonFormat) Head([]render.Input) []byte { return []byte(`{"traceEvents":[`) }

func (f jsonFormat) Tail(inputs []render.Input, arrows []flows.Stats) []byte {
	meta := render.AppendMeta(nil, inputs, arrows, f.placements)
	b := make([]byte, 0, 2*len(meta)+64)
	b = append(b, "\n],\n\"megaKernelCycleTrace\":"...)
	b = append(b, meta...)
	b = append(b, ",\n\"metadata\":"...)
	b = append(b, meta...)
	return append(b, "}\n"...)
}

func (f jsonFormat) Renderer(i int, in *render.Input) render.EventRenderer {
	return &jsonRenderer{renderer: newRenderer(i, in, &f.placements[i]), first: i == 0, flows: in.Config.Deps != nil}
}

// jsonRenderer writes one input's events: the process and thread metadata
// events, then one X event per record in trace order, each wait's
// dependency arrows after its event.
type jsonRenderer struct {
	*renderer
	first, flows bool
}

func (r *jsonRenderer) Begin(b []byte) []byte {
	if !r.first && r.place.Meta() {
		// Events start with ",\n" themselves; metadata does not.
		b = append(b, ',')
	}
	return r.appendMetadataEvents(b)
}

func (r *jsonRenderer) Record(b []byte, rec *decode.Record) ([]byte, error) {
	b = r.appendEvent(b, rec)
	if r.flows {
		b = r.appendFlows(b, rec)
	}
	return b, nil
}

func (r *jsonRenderer) End(b []byte) ([]byte, error) { return b, nil }

// Formatter formats events on a goroutine of its own, with a desc_id
// cache of its own; nil with arrows, whose ids follow record order.
func (r *jsonRenderer) Formatter() func(b []byte, rec *decode.Record) []byte {
	if r.flows {
		return nil
	}
	fr := *r.renderer
	fr.descs = new([1 << descCacheBits]*descText)
	return fr.appendEvent
}

func (r *jsonRenderer) TimeAnchor() uint64 { return r.anchor + r.place.ShiftedBy() }

func (r *jsonRenderer) FlowStats() flows.Stats { return r.renderer.flowStats }

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
	cfg      *render.Config
	sum      *capture.Summary
	clock    clock
	anchor   uint64
	slots    []slotText
	descs    *[1 << descCacheBits]*descText // by a multiplicative hash of desc_id
	tasks    taskStages
	owner    []byte // owner label, JSON-escaped
	detailed bool
	raw      []byte // a record's encoding, for the args of fields recordArgs does not name
	place    *render.Placement

	deps      *flows.Dependencies
	flowStats flows.Stats
	flowBase  uint64 // added to each arrow's number to make its id
}

func newRenderer(i int, in *render.Input, pl *render.Placement) *renderer {
	cfg := &in.Config
	sum := in.Decoded.Summary
	r := &renderer{cfg: cfg, sum: sum, clock: newClock(cfg.FrequencyMHz), anchor: pl.Anchor(), place: pl,
		descs: new([1 << descCacheBits]*descText), detailed: cfg.DetailedNames,
		owner: jsontext.AppendStringBody(nil, cfg.OwnerLabel), deps: cfg.Deps, flowBase: uint64(i) << 32}
	if cfg.Names != nil {
		r.tasks = newTaskStages(&cfg.Names.Tasks)
	}
	r.slots = make([]slotText, len(sum.Active))
	for i, a := range sum.Active {
		s := &r.slots[i]
		s.pidTidTs = newText(fmt.Sprintf(`","cat":"MegaKernelInternal","ph":"X","pid":%d,"tid":%d,"ts":`, cfg.Rank, threadID(a.Slot)))
		s.pidTid = fmt.Appendf(nil, `,"pid":%d,"tid":%d,"ts":`, cfg.Rank, threadID(a.Slot))
		s.argsStart = newText(fmt.Sprintf(`,"args":{"rank":%d,"device_id":%d,"core_type":%s,"block_id":%d%s`,
			cfg.Rank, cfg.DeviceID, jsontext.AppendString(nil, a.Slot.CoreType.String()), a.Slot.BlockID, argPlan[0].key))
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
	d := &descText{id: id, name: jsontext.AppendStringBody(nil, r.cfg.Names.StageName(id)), prefixed: abi.TaskStagePrefixed(id)}
	d.idArg = newText(fmt.Sprintf(`,"desc_id":%d,"stage_task_index":`, id))
	if ns, index := abi.LookupDesc(id); ns.Arg() != "" {
		d.arg = newText(fmt.Sprintf(`,%s:%d`, jsontext.AppendString(nil, ns.Arg()), index))
	}
	*slot = d
	return d
}

// taskStages looks up task stage names in the names file's kernelnames.TaskNames
// (a slice indexed by task id for dense ids, several times faster than a
// map for records that look their tasks up in no useful order), with each
// of its few dozen names JSON-escaped once, not at every event.
type taskStages struct {
	names  *kernelnames.TaskNames
	stages []taskStage // by index in names.names
}

// taskStage is a stage name of a names file's tasks.
type taskStage struct {
	name string
	body string // name JSON-escaped, without quotes: name itself when it needs no escape
}

func newTaskStages(m *kernelnames.TaskNames) taskStages {
	if m.Len() == 0 {
		return taskStages{}
	}
	t := taskStages{names: m}
	for _, name := range m.Distinct() {
		st := taskStage{name: name, body: name}
		if esc := jsontext.AppendStringBody(nil, name); string(esc) != name {
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
	return t.names.Index(id)
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
func (r *renderer) appendEvent(b []byte, rec *decode.Record) []byte {
	d := r.desc(rec.DescID)
	stage := r.tasks.stage(rec.TaskID)
	b = append(b, ",\n{\"name\":\""...)
	if r.detailed && rec.OwnerID != abi.InvalidOwnerID {
		b = append(b, r.owner...)
		b = jsontext.AppendUint(b, uint64(rec.OwnerID))
		b = append(b, '_')
	}
	if stage != nil && d.prefixed {
		b = append(b, stage.body...)
		b = append(b, '_')
	}
	b = append(b, d.name...)
	if r.detailed {
		b = append(b, "_task"...)
		b = jsontext.AppendUint(b, rec.TaskNumber())
	}
	s := &r.slots[rec.Active]
	b = s.pidTidTs.put(b)
	b = r.clock.appendSpan(b, rec.StartCycle+r.place.Shift(), rec.EndCycle+r.place.Shift(), r.anchor, &keyDur)
	// The args: recordArgs (args.go) unrolled, with constant keys. A loop
	// over the table costs some 500 instructions per event, a third more;
	// TestAppendArgsFollowsTable holds this to the table.
	b = s.argsStart.put(b) // ends with `,"task_id":`, recordArgs' first
	b = jsontext.AppendUint(b, uint64(rec.TaskID))
	b = d.idArg.put(b) // `,"desc_id":N,"stage_task_index":`
	b = jsontext.AppendUint(b, uint64(rec.StageTaskIndex))
	b = keyTaskNumber.put(b)
	b = jsontext.AppendUint(b, rec.TaskNumber())
	b = keyStartCycle.put(b)
	b = jsontext.AppendUint(b, rec.StartCycle)
	b = keyEndCycle.put(b)
	b = jsontext.AppendUint(b, rec.EndCycle)
	b = s.entry.put(b)
	if stage != nil {
		b = append(b, `,"task_stage":"`...)
		b = append(b, stage.body...)
		b = append(b, '"')
	}
	b = d.arg.put(b)
	if rec.OwnerID != abi.InvalidOwnerID {
		b = keyOwnerID.put(b)
		b = jsontext.AppendUint(b, uint64(rec.OwnerID))
	}
	if argPlanExtra {
		b = r.appendExtraArgs(b, rec)
	}
	b = append(b, r.place.Args()...) // the invocation's, last
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
	if !r.place.Meta() {
		return b
	}
	pid := strconv.FormatUint(uint64(cfg.Rank), 10)
	b = chrome.AppendNameEvent(append(b, '\n'), "process_name", pid, 0,
		jsontext.AppendString(nil, fmt.Sprintf("%s rank %d device %d", cfg.KernelName, cfg.Rank, cfg.DeviceID)))
	slots := r.place.Slots()
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
		b = chrome.AppendNameEvent(append(b, ",\n"...), "thread_name", pid, int64(tid), jsontext.AppendString(nil, s.String()))
		b = chrome.AppendSortIndexEvent(append(b, ",\n"...), pid, int64(tid), int64(i))
	}
	return b
}
