package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// CubeCores and VectorCores are the schedule model's cores (docs/plan.md): the cube queue is dealt to workers on cube
// cores, the vector queue to workers on vector cores. A region of the
// schema the model does not name runs no task: it gets no worker and the
// smallest capacity the ABI allows, 0 records (each of its slots is a
// header, which a capture still states its layout by).
const (
	CubeCores   = abi.CoreTypeAIC
	VectorCores = abi.CoreTypeAIV
)

// Result is the profiling buffer a schedule needs. Its JSON form is what
// `cycleabi plan --format json` prints (see MarshalJSON).
type Result struct {
	Mode       Mode
	NumWorkers int64
	// Regions are the plans of the schema's regions, one per region in
	// buffer order (abi.Regions()).
	Regions []RegionPlan
	// CubeSlotCount is max(abi.MinCubeSlots, ceil(NumWorkers/2)).
	CubeSlotCount uint32
	// BufferSize is the whole buffer in bytes.
	BufferSize uint64
	// ReplicaW2Returns are the ReplicaW2Return records each even vector
	// core writes in kernel-gradients mode (the schedule's
	// replica_gradients); 0 outside that mode.
	ReplicaW2Returns uint64
	// Warnings are what PlanFile and PlanText found that does not stop
	// the plan, each "file:line:col: path: message": a wait on an event no
	// scheduled task of this rank triggers (a peer rank may set it); in
	// kernel-gradients mode, a capacity upstream's planner would give that
	// drops ReplicaW2Return records.
	Warnings []string
}

// RegionPlan is the plan of one region's slots.
type RegionPlan struct {
	// CoreType is the region's core type.
	CoreType abi.CoreType
	// Workers are the region's cores that run tasks: num_workers/2 AIC
	// workers (none in an AIV pipeline) and num_workers/vector_worker_stride
	// AIV workers (in an AIV pipeline each runs the whole vector queue);
	// none in a region the schedule model does not know.
	Workers uint32
	// RequiredRecords are the records the region's busiest worker writes
	// (in kernel-gradients mode, for AIV, an even vector core's
	// ReplicaW2Return records when they are more).
	RequiredRecords uint64
	// RecordCapacity is RequiredRecords rounded up to
	// abi.RecordCapacityAlignment.
	RecordCapacity uint32
}

// newResult returns a Result with a zero plan for every region.
func newResult(s *Schedule) Result {
	r := Result{Mode: s.Mode, NumWorkers: s.NumWorkers}
	for _, reg := range abi.Regions() {
		r.Regions = append(r.Regions, RegionPlan{CoreType: reg.CoreType})
	}
	return r
}

// Region returns the plan of t's region: a zero plan for a core type the
// Result has no region of.
func (r Result) Region(t abi.CoreType) RegionPlan {
	if p := r.region(t); p != nil {
		return *p
	}
	return RegionPlan{CoreType: t}
}

// region returns t's plan in r, nil when r has no region of t.
func (r *Result) region(t abi.CoreType) *RegionPlan {
	for i := range r.Regions {
		if r.Regions[i].CoreType == t {
			return &r.Regions[i]
		}
	}
	return nil
}

// Capacities returns the planned record capacities.
func (r Result) Capacities() abi.Capacities {
	var caps abi.Capacities
	for _, reg := range r.Regions {
		caps.Set(reg.CoreType, reg.RecordCapacity)
	}
	return caps
}

// Layout returns the planned buffer layout.
func (r Result) Layout() (abi.Layout, error) {
	return abi.NewLayout(r.CubeSlotCount, r.Capacities())
}

// Flags returns the flags that tell decode and validate this layout.
func (r Result) Flags() string {
	return LayoutFlags(r.CubeSlotCount, r.Capacities())
}

// CapacityFlag returns the name of the decode and validate flag that gives
// the record capacity of t's region: "aic-capacity".
func CapacityFlag(t abi.CoreType) string {
	return strings.ToLower(t.String()) + "-capacity"
}

// LayoutFlags returns the flags that tell decode and validate the layout of
// cubeSlots cube slots with capacities caps: --cube-slots, then every
// region's capacity flag in buffer order ("--cube-slots 24 --aic-capacity
// 16 --aiv-capacity 32").
func LayoutFlags(cubeSlots uint32, caps abi.Capacities) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--cube-slots %d", cubeSlots)
	for _, reg := range abi.Regions() {
		fmt.Fprintf(&b, " --%s %d", CapacityFlag(reg.CoreType), caps.For(reg.CoreType))
	}
	return b.String()
}

// MarshalJSON returns r as `cycleabi plan --format json` prints it: mode
// and num_workers, then <region>_workers, <region>_required_records and
// <region>_record_capacity for each region of the schema in buffer order
// (a key per region and field: "aic_workers", "aiv_workers", ...), then
// cube_slot_count and buffer_size, replica_w2_return_records in
// kernel-gradients mode, and warnings when there are any.
func (r Result) MarshalJSON() ([]byte, error) {
	mode, err := json.Marshal(r.Mode)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"mode":`)
	b.Write(mode)
	fmt.Fprintf(&b, `,"num_workers":%d`, r.NumWorkers)
	regions := abi.Regions()
	for _, field := range []struct {
		key   string
		value func(RegionPlan) uint64
	}{
		{"workers", func(p RegionPlan) uint64 { return uint64(p.Workers) }},
		{"required_records", func(p RegionPlan) uint64 { return p.RequiredRecords }},
		{"record_capacity", func(p RegionPlan) uint64 { return uint64(p.RecordCapacity) }},
	} {
		for _, reg := range regions {
			fmt.Fprintf(&b, `,"%s_%s":%d`, strings.ToLower(reg.CoreType.String()), field.key, field.value(r.Region(reg.CoreType)))
		}
	}
	fmt.Fprintf(&b, `,"cube_slot_count":%d,"buffer_size":%d`, r.CubeSlotCount, r.BufferSize)
	if r.ReplicaW2Returns > 0 {
		fmt.Fprintf(&b, `,"replica_w2_return_records":%d`, r.ReplicaW2Returns)
	}
	if len(r.Warnings) > 0 {
		w, err := json.Marshal(r.Warnings)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"warnings":`)
		b.Write(w)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// RecordsForTask returns the records an event-driven worker writes for t:
// a wait record when t has a dependent event, the compute record, and a
// trigger record unless t is a ShmemPutMemSignal (whose put signals the
// event itself). It mirrors ExecuteTaskProfiled() on the device.
func RecordsForTask(t Task) uint64 {
	n := uint64(1)
	if t.DependentEvent.Valid() {
		n++
	}
	if t.TaskType != abi.TaskTypeShmemPutMemSignal {
		n++
	}
	return n
}

// CubeSlotCount returns the cube slot count for numWorkers workers:
// max(abi.MinCubeSlots, ceil(numWorkers/2)); ok is false when that does not
// fit in a u32 (or numWorkers is negative).
func CubeSlotCount(numWorkers int64) (uint32, bool) {
	if numWorkers < 0 {
		return 0, false
	}
	c := uint64(numWorkers)/2 + uint64(numWorkers)%2
	if c > math.MaxUint32 {
		return 0, false
	}
	return max(uint32(c), abi.MinCubeSlots), true
}

// Plan sizes the buffer for s, applying every planning rule of docs/plan.md. It reports every problem it finds, not only the first, as
// an *ErrorList (at most 20 kept, the rest counted) of *Error naming the
// field or task, with its line and column when s was parsed from text.
func Plan(s *Schedule) (Result, error) {
	p := &planner{s: s}
	r := p.plan(noWaitCheck)
	return r, p.err()
}

// Check is Plan that also holds s to what a device needs to run it to the
// end on its own: no scheduled task may wait on an event that no scheduled
// task triggers (the device would hang there, unless a peer rank sets the
// event). Its problems and Plan's come in one list. `cycleabi plan
// --strict` and the simulator (without a wait timeout) use it.
func Check(s *Schedule) (Result, error) {
	p := &planner{s: s}
	r := p.plan(waitErrors)
	return r, p.err()
}

// waitCheck says what the planner makes of a wait on an event no scheduled
// task triggers.
type waitCheck int

const (
	noWaitCheck  waitCheck = iota // nothing (Plan)
	waitErrors                    // a problem (Check)
	waitWarnings                  // a warning in Result.Warnings (PlanFile)
)

// planner collects a schedule's planning problems and warnings: a YAML
// path and a message each, in lists that keep the first few of a message
// and count the rest (yamlpos.List); positions are given only when they
// are reported (locate).
type planner struct {
	s     *Schedule
	probs ErrorList
	// warns are the waits no scheduled task triggers, with waitWarnings,
	// and the ReplicaW2Return records upstream's capacity would drop.
	warns ErrorList
	// queueAIV is the busiest AIV worker's records from the vector queue
	// alone, what upstream's planner sizes AIV for.
	queueAIV uint64
	// skip, when set, tells problems at paths the parser already reported
	// (see planPartial); they are not reported again.
	skip func(path string) bool
}

func (p *planner) add(path, format string, args ...any) {
	if p.skip != nil && p.skip(path) {
		return
	}
	p.probs.Max = maxErrors
	p.probs.Add(&Error{File: p.s.File, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (p *planner) failed() bool { return p.probs.Len() > 0 }

// err returns the problems as an *ErrorList in file order, or nil.
func (p *planner) err() error {
	if !p.failed() {
		return nil
	}
	p.s.locate(&p.probs)
	p.probs.Sort()
	return &p.probs
}

// warnings renders the warnings, one line each, in file order.
func (p *planner) warnings() []string {
	if p.warns.Len() == 0 {
		return nil
	}
	p.s.locate(&p.warns)
	p.warns.Sort()
	return strings.Split(p.warns.Error(), "\n")
}

// plan applies every rule, recording each problem, and returns the sizes
// it could compute.
func (p *planner) plan(waits waitCheck) Result {
	s := p.s
	r := newResult(s)
	cube, vector := r.region(CubeCores), r.region(VectorCores)
	if cube == nil || vector == nil {
		// Only a schema without the model's core types gets here.
		p.add("num_workers", "the schedule model runs tasks on %s and %s cores, and the schema has no region of one of them", CubeCores, VectorCores)
		return r
	}
	p.profileDescs()
	indicesOK := p.checkIndices("cube_task_indices", s.CubeTaskIndices)
	indicesOK = p.checkIndices("vector_task_indices", s.VectorTaskIndices) && indicesOK
	workersOK := true
	switch s.Mode {
	case EventDriven:
		workersOK = p.eventDriven(cube, vector, indicesOK)
		if waits != noWaitCheck {
			p.untriggeredWaits(waits)
		}
	case AIVPipeline:
		workersOK = p.aivPipeline(vector)
		if s.ReplicaGradients > 0 {
			p.add("replica_gradients", "kernel-gradients mode runs on the event-driven runtime, not an AIV pipeline (replica_gradients %d)", s.ReplicaGradients)
		}
	default:
		p.add("mode", "unsupported mode %v", s.Mode)
		return r
	}

	slots, ok := CubeSlotCount(s.NumWorkers)
	if !ok {
		if workersOK {
			p.add("num_workers", "%d workers need more than %d cube slots", s.NumWorkers, uint32(math.MaxUint32))
		}
		return r
	}
	r.CubeSlotCount = slots
	// Every worker must own a slot. With a stride of at least 1 this cannot
	// fail (AIC workers = n/2 <= C and AIV workers = n/stride <= n <= 2C),
	// but the buffer would be silently too small if a rule above changed.
	for _, reg := range abi.Regions() {
		if w, n := r.region(reg.CoreType).Workers, uint64(reg.SlotsPerCubeSlot)*uint64(slots); uint64(w) > n {
			p.add("num_workers", "%d %s workers do not fit in %d %s slots", w, reg.CoreType, n, reg.CoreType)
			return r
		}
	}
	if !indicesOK {
		return r
	}
	// A region the model runs no queue on requires no record: capacity 0.
	queues := map[abi.CoreType]string{CubeCores: "cube_task_indices", VectorCores: "vector_task_indices"}
	capsOK := true
	for i := range r.Regions {
		reg := &r.Regions[i]
		var ok bool
		reg.RecordCapacity, ok = p.roundUp(queues[reg.CoreType], reg.CoreType.String(), reg.RequiredRecords)
		capsOK = capsOK && ok
	}
	if !capsOK {
		return r
	}
	p.replicaCapacity(&r)
	var err error
	if r.BufferSize, err = abi.BufferSize(r.CubeSlotCount, r.Capacities()); err != nil {
		p.add("num_workers", "buffer for %d cube slots: %v", r.CubeSlotCount, err)
	}
	return r
}

// roundUp rounds a requirement up to a capacity, or names the queue whose
// busiest worker needs more than a slot can hold.
func (p *planner) roundUp(queue, core string, required uint64) (uint32, bool) {
	c, err := abi.RoundUpCapacity(required)
	if err != nil {
		p.add(queue, "the busiest %s worker writes %d records, more than the %d a slot can hold",
			core, required, abi.MaxRecordsPerCore)
		return 0, false
	}
	return c, true
}

// checkIndices reports every task id of a queue past the task table.
func (p *planner) checkIndices(field string, queue []uint32) bool {
	ok := true
	for i, id := range queue {
		if uint64(id) >= uint64(len(p.s.Tasks)) {
			p.add(fmt.Sprintf("%s[%d]", field, i), "task %d is out of range: the schedule has %d tasks", id, len(p.s.Tasks))
			ok = false
		}
	}
	return ok
}

// eventDriven counts the workers and, when the queues are sound, the
// records of the busiest ones; false when the workers cannot be counted.
func (p *planner) eventDriven(cube, vector *RegionPlan, indicesOK bool) bool {
	s := p.s
	n := s.NumWorkers
	if n < 0 || n%2 != 0 {
		p.add("num_workers", "num_workers must be even and non-negative in event_driven mode, got %d", n)
		return false
	}
	if n/2 > math.MaxUint32 {
		p.add("num_workers", "%d workers are more than the ABI can number", n)
		return false
	}
	cube.Workers = uint32(n / 2)
	ok := true
	if len(s.CubeTaskIndices) > 0 && n == 0 {
		p.add("num_workers", "num_workers is 0: no %s worker for the %d cube tasks", cube.CoreType, len(s.CubeTaskIndices))
		ok = false
	}
	if !p.vectorWorkers(vector, true) {
		return false
	}
	if ok && indicesOK {
		cube.RequiredRecords = busiestWorker(s, s.CubeTaskIndices, cube.Workers)
		vector.RequiredRecords = busiestWorker(s, s.VectorTaskIndices, vector.Workers)
		// Kernel-gradients mode: the even vector cores run no queue task
		// and write one ReplicaW2Return per owned replica gradient
		// (ProcessReplicaGradients, ops/runtime/worker_kernel.h@7b1c95f9);
		// every AIV slot has one capacity, so it must hold the larger.
		p.queueAIV = vector.RequiredRecords
		vector.RequiredRecords = max(vector.RequiredRecords, uint64(s.ReplicaGradients))
	}
	return ok
}

// replicaCapacity notes r's ReplicaW2Return records in kernel-gradients
// mode and warns when the capacity upstream's planner gives AIV (the
// busiest queue worker's records rounded up: it does not count these)
// would drop some of them on every even vector core.
func (p *planner) replicaCapacity(r *Result) {
	n := uint64(p.s.ReplicaGradients)
	if n == 0 || p.s.Mode != EventDriven {
		return
	}
	r.ReplicaW2Returns = n
	upstream, err := abi.RoundUpCapacity(p.queueAIV)
	if err != nil || uint64(upstream) >= n {
		return
	}
	p.warns.Max, p.warns.What = maxErrors, "warnings"
	p.warns.Add(&Error{File: p.s.File, Path: "replica_gradients", Msg: fmt.Sprintf(
		"each even vector core writes %d ReplicaW2Return records; upstream's planner counts only the vector queue (%d records on the busiest %s worker) and sizes %s at %d, so the device would drop %d of them on each; this plan's %s capacity is %d",
		n, p.queueAIV, VectorCores, VectorCores, upstream, n-uint64(upstream), VectorCores, r.Region(VectorCores).RecordCapacity)})
}

// profileDescs reports a task that gives both graph_stage and
// profile_desc_id: each says what its compute record carries.
func (p *planner) profileDescs() {
	for i, t := range p.s.Tasks {
		if t.GraphStage != NoGraphStage && t.ProfileDescID != NoProfileDescID {
			p.add(fmt.Sprintf("tasks[%d].profile_desc_id", i),
				"task %d gives graph_stage and profile_desc_id: give one (graph_stage s is profile_desc_id %#x + s)", i, abi.GraphStageBase)
		}
	}
}

// untriggeredWaits reports each scheduled task that waits on an event no
// scheduled task triggers, as a problem or a warning: the device hangs
// there unless another rank sets the event, as a peer rank's
// ShmemPutMemSignal does in a multi-rank MoE (the put signals the event,
// and writes no trigger record). Queue entries past the task table are
// skipped (checkIndices reports them).
func (p *planner) untriggeredWaits(waits waitCheck) {
	s := p.s
	triggered := map[EventID]bool{}
	for _, queue := range [][]uint32{s.CubeTaskIndices, s.VectorTaskIndices} {
		for _, id := range queue {
			if uint64(id) >= uint64(len(s.Tasks)) {
				continue
			}
			if e := s.Tasks[id].TriggerEvent; e.Valid() {
				triggered[e] = true
			}
		}
	}
	reported := map[uint32]bool{}
	for _, queue := range [][]uint32{s.CubeTaskIndices, s.VectorTaskIndices} {
		for _, id := range queue {
			if uint64(id) >= uint64(len(s.Tasks)) {
				continue
			}
			if e := s.Tasks[id].DependentEvent; e.Valid() && !triggered[e] && !reported[id] {
				reported[id] = true
				path := fmt.Sprintf("tasks[%d].dependent_event", id)
				// The path names the task: the message, the same for every
				// task waiting on e, is said once with a count.
				const msg = "waits on event %d, which no scheduled task of this rank triggers: the device hangs there unless a peer rank sets it (as a peer's ShmemPutMemSignal does, writing no trigger record)"
				if waits == waitWarnings {
					p.warns.Max, p.warns.What = maxErrors, "warnings"
					p.warns.Add(&Error{File: s.File, Path: path, Msg: fmt.Sprintf(msg, e)})
				} else {
					p.add(path, msg, e)
				}
			}
		}
	}
}

// busiestWorker deals queue round-robin over workers and returns the most
// records one worker writes.
func busiestWorker(s *Schedule, queue []uint32, workers uint32) uint64 {
	if len(queue) == 0 || workers == 0 {
		return 0
	}
	// Workers past the queue's length get nothing; never allocate for them
	// (num_workers comes from the file).
	counts := make([]uint64, min(uint64(workers), uint64(len(queue))))
	w := 0
	for _, id := range queue {
		counts[w] += RecordsForTask(s.Tasks[id])
		if w++; w == len(counts) {
			w = 0
		}
	}
	return slices.Max(counts)
}

// vectorWorkers sets vector.Workers to the AIV workers that run tasks in
// either mode: num_workers / vector_worker_stride, as the reference's
// activeVectorWorkers counts them. needed says the vector queue needs at
// least one of them (event-driven mode deals it over them).
func (p *planner) vectorWorkers(vector *RegionPlan, needed bool) bool {
	s := p.s
	n := s.NumWorkers
	stride := s.Stride()
	if stride < 1 {
		p.add("vector_worker_stride", "vector_worker_stride must be at least 1, got %d", stride)
		return false
	}
	aiv := n / stride
	if aiv > math.MaxUint32 {
		p.add("num_workers", "%d workers are more than the ABI can number", n)
		return false
	}
	vector.Workers = uint32(aiv)
	if needed && len(s.VectorTaskIndices) > 0 && aiv == 0 {
		switch {
		case n == 0:
			p.add("num_workers", "num_workers is 0: no %s worker for the %d vector tasks", vector.CoreType, len(s.VectorTaskIndices))
		case s.VectorWorkerStride == 0:
			p.add("num_workers", "%d workers with the default vector_worker_stride %d leave no %s worker for the %d vector tasks",
				n, stride, vector.CoreType, len(s.VectorTaskIndices))
		default:
			p.add("vector_worker_stride", "%d workers with stride %d leave no %s worker for the %d vector tasks",
				n, stride, vector.CoreType, len(s.VectorTaskIndices))
		}
		return false
	}
	return true
}

// aivPipeline sizes an AIV pipeline as the reference does: AIV capacity
// from the vector queue's length, whatever the worker count (num_workers
// 1 at the default stride sizes the slots though no AIV worker is active).
func (p *planner) aivPipeline(vector *RegionPlan) bool {
	s := p.s
	n := s.NumWorkers
	ok := true
	switch {
	case n <= 0:
		p.add("num_workers", "num_workers must be positive in aiv_pipeline mode, got %d", n)
		return false
	case n > math.MaxUint32:
		p.add("num_workers", "%d workers are more than the ABI can number", n)
		return false
	}
	if len(s.CubeTaskIndices) > 0 {
		p.add("cube_task_indices", "aiv_pipeline mode runs no cube tasks, got %d", len(s.CubeTaskIndices))
		ok = false
	}
	reported := map[uint32]bool{}
	for i, id := range s.VectorTaskIndices {
		if uint64(id) < uint64(len(s.Tasks)) {
			t := &s.Tasks[id]
			for _, ev := range []struct {
				field string
				id    EventID
			}{{"dependent_event", t.DependentEvent}, {"trigger_event", t.TriggerEvent}} {
				if ev.id.Valid() && !reported[id] {
					reported[id] = true
					p.add(fmt.Sprintf("tasks[%d].%s", id, ev.field),
						"an AIV pipeline cannot use events, but task %d (vector_task_indices[%d]) has %s", id, i, ev.field)
				}
			}
		}
	}
	if !p.vectorWorkers(vector, false) {
		return false
	}
	// Every worker runs every vector task and writes one compute record
	// per task: no waits, no triggers.
	vector.RequiredRecords = uint64(len(s.VectorTaskIndices))
	return ok
}
