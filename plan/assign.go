package plan

import "github.com/megakernel/cycleabi/gen/go/abi"

// Assignment is the queue of task ids each worker runs, dealt exactly as
// Plan counted them.
type Assignment struct {
	mode     Mode
	vector   []uint32   // the whole vector queue (AIV pipeline)
	aic, aiv [][]uint32 // per worker; workers past the end run nothing
	// stride is vector_worker_stride; vectorWorkers the AIV workers.
	stride        uint32
	vectorWorkers uint32
}

// Assign deals s's queues to workers; r must be the Result of Plan(s). It
// allocates per worker that gets a task, never per worker num_workers
// names.
func Assign(s *Schedule, r Result) Assignment {
	a := Assignment{mode: r.Mode, vector: s.VectorTaskIndices, stride: uint32(s.Stride()), vectorWorkers: r.Region(VectorCores).Workers}
	if r.Mode != AIVPipeline {
		a.aic = deal(s.CubeTaskIndices, r.Region(CubeCores).Workers)
		a.aiv = deal(s.VectorTaskIndices, r.Region(VectorCores).Workers)
	}
	return a
}

// Queue returns the task ids worker w of core type t runs, in order. In an
// AIV pipeline every AIV worker runs the whole vector queue (the slice is
// shared; do not modify it).
func (a Assignment) Queue(t abi.CoreType, w uint32) []uint32 {
	switch {
	case t == VectorCores && a.mode == AIVPipeline:
		return a.vector
	case t == CubeCores && uint64(w) < uint64(len(a.aic)):
		return a.aic[w]
	case t == VectorCores && uint64(w) < uint64(len(a.aiv)):
		return a.aiv[w]
	}
	return nil
}

// WorkerOn returns the worker that runs on core t/block and how many
// tasks its queue holds (0 when no worker with tasks runs there): AIC
// worker w runs on AIC/w, AIV worker w on AIV/(w × vector_worker_stride),
// as the device places them (and package synth simulates).
func (a Assignment) WorkerOn(t abi.CoreType, block uint32) (worker uint32, tasks int) {
	w := block
	if t == VectorCores {
		if a.stride == 0 || block%a.stride != 0 {
			return 0, 0
		}
		w = block / a.stride
		if w >= a.vectorWorkers {
			return 0, 0
		}
	}
	return w, len(a.Queue(t, w))
}

// deal hands queue out round-robin over workers.
func deal(queue []uint32, workers uint32) [][]uint32 {
	n := min(uint64(workers), uint64(len(queue)))
	out := make([][]uint32, n)
	if n == 0 {
		return out
	}
	per := len(queue)/int(n) + 1
	for w := range out {
		out[w] = make([]uint32, 0, per)
	}
	w := 0
	for _, id := range queue {
		out[w] = append(out[w], id)
		if w++; w == len(out) {
			w = 0
		}
	}
	return out
}
