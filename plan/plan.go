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
// capacities". It stops at the first problem, returned as an *Error naming
// the field or task (with its line and column when s was parsed from text).
func Plan(s *Schedule) (Result, error) {
	r := Result{Mode: s.Mode, NumWorkers: s.NumWorkers}
	if err := checkIndices(s, "cube_task_indices", s.CubeTaskIndices); err != nil {
		return r, err
	}
	if err := checkIndices(s, "vector_task_indices", s.VectorTaskIndices); err != nil {
		return r, err
	}
	var err error
	switch s.Mode {
	case EventDriven:
		err = planEventDriven(s, &r)
	case AIVPipeline:
		err = planAIVPipeline(s, &r)
	default:
		err = s.ErrorAt("mode", "unsupported mode %v", s.Mode)
	}
	if err != nil {
		return r, err
	}

	slots, ok := CubeSlotCount(s.NumWorkers)
	if !ok {
		return r, s.ErrorAt("num_workers", "%d workers need more than %d cube slots", s.NumWorkers, uint32(math.MaxUint32))
	}
	r.CubeSlotCount = slots
	// Every worker must own a slot. With a stride of at least 1 this cannot
	// fail (AIC workers = n/2 <= C and AIV workers = n/stride <= n <= 2C),
	// but the buffer would be silently too small if a rule above changed.
	if uint64(r.AICWorkers) > uint64(slots) || uint64(r.AIVWorkers) > 2*uint64(slots) {
		return r, s.ErrorAt("num_workers", "%d AIC and %d AIV workers do not fit in %d AIC and %d AIV slots",
			r.AICWorkers, r.AIVWorkers, slots, 2*uint64(slots))
	}

	if r.AICRecordCapacity, err = roundUp(s, "cube_task_indices", "AIC", r.AICRequiredRecords); err != nil {
		return r, err
	}
	if r.AIVRecordCapacity, err = roundUp(s, "vector_task_indices", "AIV", r.AIVRequiredRecords); err != nil {
		return r, err
	}
	if r.BufferSize, err = abi.BufferSize(r.CubeSlotCount, r.Capacities()); err != nil {
		return r, s.ErrorAt("num_workers", "buffer for %d cube slots: %v", r.CubeSlotCount, err)
	}
	return r, nil
}

// roundUp rounds a requirement up to a capacity, or names the queue whose
// busiest worker needs more than a slot can hold.
func roundUp(s *Schedule, queue, core string, required uint64) (uint32, error) {
	c, err := abi.RoundUpCapacity(required)
	if err != nil {
		return 0, s.ErrorAt(queue, "the busiest %s worker writes %d records, more than the %d a slot can hold",
			core, required, abi.MaxRecordsPerCore)
	}
	return c, nil
}

func checkIndices(s *Schedule, field string, queue []uint32) error {
	for i, id := range queue {
		if uint64(id) >= uint64(len(s.Tasks)) {
			return s.ErrorAt(fmt.Sprintf("%s[%d]", field, i), "task %d is out of range: the schedule has %d tasks", id, len(s.Tasks))
		}
	}
	return nil
}

func planEventDriven(s *Schedule, r *Result) error {
	n := s.NumWorkers
	if n < 0 || n%2 != 0 {
		return s.ErrorAt("num_workers", "num_workers must be even and non-negative in event_driven mode, got %d", n)
	}
	if n/2 > math.MaxUint32 {
		return s.ErrorAt("num_workers", "%d workers are more than the ABI can number", n)
	}
	r.AICWorkers = uint32(n / 2)
	if len(s.CubeTaskIndices) > 0 && n == 0 {
		return s.ErrorAt("num_workers", "num_workers is 0: no AIC worker for the %d cube tasks", len(s.CubeTaskIndices))
	}
	if err := vectorWorkers(s, r); err != nil {
		return err
	}
	r.AICRequiredRecords = busiestWorker(s, s.CubeTaskIndices, r.AICWorkers)
	r.AIVRequiredRecords = busiestWorker(s, s.VectorTaskIndices, r.AIVWorkers)
	return nil
}

// busiestWorker deals queue round-robin over workers and returns the most
// records one worker writes.
func busiestWorker(s *Schedule, queue []uint32, workers uint32) uint64 {
	if len(queue) == 0 {
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
// activeVectorWorkers counts them.
func vectorWorkers(s *Schedule, r *Result) error {
	n := s.NumWorkers
	stride := s.Stride()
	if stride < 1 {
		return s.ErrorAt("vector_worker_stride", "vector_worker_stride must be at least 1, got %d", stride)
	}
	aiv := n / stride
	if aiv > math.MaxUint32 {
		return s.ErrorAt("num_workers", "%d workers are more than the ABI can number", n)
	}
	r.AIVWorkers = uint32(aiv)
	if len(s.VectorTaskIndices) > 0 && aiv == 0 {
		if n == 0 {
			return s.ErrorAt("num_workers", "num_workers is 0: no AIV worker for the %d vector tasks", len(s.VectorTaskIndices))
		}
		if s.VectorWorkerStride == 0 {
			return s.ErrorAt("num_workers", "%d workers with the default vector_worker_stride %d leave no AIV worker for the %d vector tasks",
				n, stride, len(s.VectorTaskIndices))
		}
		return s.ErrorAt("vector_worker_stride", "%d workers with stride %d leave no AIV worker for the %d vector tasks",
			n, stride, len(s.VectorTaskIndices))
	}
	return nil
}

func planAIVPipeline(s *Schedule, r *Result) error {
	n := s.NumWorkers
	if n <= 0 {
		return s.ErrorAt("num_workers", "num_workers must be positive in aiv_pipeline mode, got %d", n)
	}
	if n > math.MaxUint32 {
		return s.ErrorAt("num_workers", "%d workers are more than the ABI can number", n)
	}
	if len(s.CubeTaskIndices) > 0 {
		return s.ErrorAt("cube_task_indices", "aiv_pipeline mode runs no cube tasks, got %d", len(s.CubeTaskIndices))
	}
	for i, id := range s.VectorTaskIndices {
		t := &s.Tasks[id]
		field := ""
		switch {
		case t.DependentEvent.Valid():
			field = "dependent_event"
		case t.TriggerEvent.Valid():
			field = "trigger_event"
		default:
			continue
		}
		return s.ErrorAt(fmt.Sprintf("tasks[%d].%s", id, field),
			"an AIV pipeline cannot use events, but task %d (vector_task_indices[%d]) has %s", id, i, field)
	}
	if err := vectorWorkers(s, r); err != nil {
		return err
	}
	// Every worker runs every vector task and writes one compute record
	// per task: no waits, no triggers.
	r.AIVRequiredRecords = uint64(len(s.VectorTaskIndices))
	return nil
}
