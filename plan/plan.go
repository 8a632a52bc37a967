package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Result is the profiling buffer a schedule needs. The json keys are what
// `cycleabi plan --format json` prints.
type Result struct {
	Mode       Mode  `json:"mode"`
	NumWorkers int64 `json:"num_workers"`
	// AICWorkers and AIVWorkers are the workers that run tasks:
	// num_workers/2 AIC workers (none in an AIV pipeline) and
	// num_workers/vector_worker_stride AIV workers (in an AIV pipeline each
	// runs the whole vector queue).
	AICWorkers uint32 `json:"aic_workers"`
	AIVWorkers uint32 `json:"aiv_workers"`
	// AICRequiredRecords and AIVRequiredRecords are the records the busiest
	// worker of each core type writes.
	AICRequiredRecords uint64 `json:"aic_required_records"`
	AIVRequiredRecords uint64 `json:"aiv_required_records"`
	// AICRecordCapacity and AIVRecordCapacity are the requirements rounded
	// up to abi.RecordCapacityAlignment.
	AICRecordCapacity uint32 `json:"aic_record_capacity"`
	AIVRecordCapacity uint32 `json:"aiv_record_capacity"`
	// CubeSlotCount is max(abi.MinCubeSlots, ceil(NumWorkers/2)).
	CubeSlotCount uint32 `json:"cube_slot_count"`
	// BufferSize is the whole buffer in bytes.
	BufferSize uint64 `json:"buffer_size"`
}

// Capacities returns the planned record capacities.
func (r Result) Capacities() abi.Capacities {
	return abi.Capacities{AIC: r.AICRecordCapacity, AIV: r.AIVRecordCapacity}
}

// Layout returns the planned buffer layout.
func (r Result) Layout() (abi.Layout, error) {
	return abi.NewLayout(r.CubeSlotCount, r.Capacities())
}

// Flags returns the flags that tell decode and validate this layout.
func (r Result) Flags() string {
	return fmt.Sprintf("--cube-slots %d --aic-capacity %d --aiv-capacity %d",
		r.CubeSlotCount, r.AICRecordCapacity, r.AIVRecordCapacity)
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

// Plan sizes the buffer for s, applying every rule of SPEC.md "Planning
// capacities". It reports every problem it finds, not only the first, as
// an *ErrorList (at most 20 kept, the rest counted) of *Error naming the
// field or task, with its line and column when s was parsed from text.
func Plan(s *Schedule) (Result, error) {
	p := &planner{s: s}
	r := p.plan(false)
	return r, p.err()
}

// Check is Plan that also holds s to what a device needs to run it to the
// end: no scheduled task may wait on an event that no scheduled task
// triggers (the device would hang there). Its problems and Plan's come in
// one list. `cycleabi plan` and the simulator (without a wait timeout)
// use it.
func Check(s *Schedule) (Result, error) {
	p := &planner{s: s}
	r := p.plan(true)
	return r, p.err()
}

// planner collects a schedule's planning problems: a YAML path and a
// message each, given a position only when they are reported.
type planner struct {
	s     *Schedule
	probs []problem
	// omitted counts the problems past maxErrors.
	omitted int
	// skip, when set, tells problems at paths the parser already reported
	// (see planPartial); they are not reported again.
	skip func(path string) bool
}

type problem struct{ path, msg string }

func (p *planner) add(path, format string, args ...any) {
	if p.skip != nil && p.skip(path) {
		return
	}
	if len(p.probs) >= maxErrors {
		p.omitted++
		return
	}
	p.probs = append(p.probs, problem{path, fmt.Sprintf(format, args...)})
}

func (p *planner) failed() bool { return len(p.probs)+p.omitted > 0 }

// err returns the problems as an *ErrorList in file order, or nil.
func (p *planner) err() error {
	if !p.failed() {
		return nil
	}
	list := &ErrorList{Max: maxErrors}
	for _, e := range p.s.errorsAt(p.probs) {
		list.Add(e)
	}
	list.Omitted += p.omitted
	list.Sort()
	return list
}

// plan applies every rule, recording each problem, and returns the sizes
// it could compute.
func (p *planner) plan(waits bool) Result {
	s := p.s
	r := Result{Mode: s.Mode, NumWorkers: s.NumWorkers}
	indicesOK := p.checkIndices("cube_task_indices", s.CubeTaskIndices)
	indicesOK = p.checkIndices("vector_task_indices", s.VectorTaskIndices) && indicesOK
	workersOK := true
	switch s.Mode {
	case EventDriven:
		workersOK = p.eventDriven(&r, indicesOK)
		if waits {
			p.untriggeredWaits()
		}
	case AIVPipeline:
		workersOK = p.aivPipeline(&r)
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
	if uint64(r.AICWorkers) > uint64(slots) || uint64(r.AIVWorkers) > 2*uint64(slots) {
		p.add("num_workers", "%d AIC and %d AIV workers do not fit in %d AIC and %d AIV slots",
			r.AICWorkers, r.AIVWorkers, slots, 2*uint64(slots))
		return r
	}
	if !indicesOK {
		return r
	}
	var aicOK, aivOK bool
	r.AICRecordCapacity, aicOK = p.roundUp("cube_task_indices", "AIC", r.AICRequiredRecords)
	r.AIVRecordCapacity, aivOK = p.roundUp("vector_task_indices", "AIV", r.AIVRequiredRecords)
	if !aicOK || !aivOK {
		return r
	}
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
func (p *planner) eventDriven(r *Result, indicesOK bool) bool {
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
	r.AICWorkers = uint32(n / 2)
	ok := true
	if len(s.CubeTaskIndices) > 0 && n == 0 {
		p.add("num_workers", "num_workers is 0: no AIC worker for the %d cube tasks", len(s.CubeTaskIndices))
		ok = false
	}
	if !p.vectorWorkers(r, true) {
		return false
	}
	if ok && indicesOK {
		r.AICRequiredRecords = busiestWorker(s, s.CubeTaskIndices, r.AICWorkers)
		r.AIVRequiredRecords = busiestWorker(s, s.VectorTaskIndices, r.AIVWorkers)
	}
	return ok
}

// untriggeredWaits reports each scheduled task that waits on an event no
// scheduled task triggers: the device would hang there. Queue entries past
// the task table are skipped (checkIndices reports them).
func (p *planner) untriggeredWaits() {
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
				p.add(fmt.Sprintf("tasks[%d].dependent_event", id),
					"task %d waits on event %d, which no scheduled task triggers (the device would hang)", id, e)
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

// vectorWorkers sets r.AIVWorkers to the AIV workers that run tasks in
// either mode: num_workers / vector_worker_stride, as the reference's
// activeVectorWorkers counts them. needed says the vector queue needs at
// least one of them (event-driven mode deals it over them).
func (p *planner) vectorWorkers(r *Result, needed bool) bool {
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
	r.AIVWorkers = uint32(aiv)
	if needed && len(s.VectorTaskIndices) > 0 && aiv == 0 {
		switch {
		case n == 0:
			p.add("num_workers", "num_workers is 0: no AIV worker for the %d vector tasks", len(s.VectorTaskIndices))
		case s.VectorWorkerStride == 0:
			p.add("num_workers", "%d workers with the default vector_worker_stride %d leave no AIV worker for the %d vector tasks",
				n, stride, len(s.VectorTaskIndices))
		default:
			p.add("vector_worker_stride", "%d workers with stride %d leave no AIV worker for the %d vector tasks",
				n, stride, len(s.VectorTaskIndices))
		}
		return false
	}
	return true
}

// aivPipeline sizes an AIV pipeline as the reference does: AIV capacity
// from the vector queue's length, whatever the worker count (num_workers
// 1 at the default stride sizes the slots though no AIV worker is active).
func (p *planner) aivPipeline(r *Result) bool {
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
	if !p.vectorWorkers(r, false) {
		return false
	}
	// Every worker runs every vector task and writes one compute record
	// per task: no waits, no triggers.
	r.AIVRequiredRecords = uint64(len(s.VectorTaskIndices))
	return ok
}
