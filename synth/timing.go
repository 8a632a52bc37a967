package synth

import (
	"math/rand/v2"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Timings are in system-counter cycles (50 MHz on 910B-class chips, so one
// cycle is 20 ns). They are plausible, not measured: what matters is that a
// trace looks like a MegaKernel (long Cube matmuls, short vector stages,
// communication in between) and that waits follow the dependencies.

// BaseEntryCycle is about where the system counter stands when a kernel
// starts on a device that has been up for a few hours; every simulated
// capture's entry cycles lie within 1e10 cycles above it.
const BaseEntryCycle = 1_000_000_000_000

// computeCycles is the median compute duration of task type t under
// family f: a family's task type takes the time of the schema's task type
// of its name (MegaMoe's 107 is ShmemGetMem, a transfer, not the schema's
// 107, MhcPost).
func computeCycles(f abi.Family, t abi.TaskType) uint64 {
	if f != abi.FamilyNone {
		name, ok := f.TaskTypeName(uint32(t))
		if !ok {
			return 500
		}
		v, ok := abi.FamilyNone.ParseTaskType(name)
		if !ok {
			return 500
		}
		t = abi.TaskType(v)
	}
	switch t {
	case abi.TaskTypeTerminate:
		return 12
	case abi.TaskTypeBeginTaskGraph:
		return 25
	case abi.TaskTypeMatMul:
		return 2000 // ~40 µs
	case abi.TaskTypeGroupedMatMul:
		return 3200 // ~64 µs: several experts' GEMMs back to back
	case abi.TaskTypeMhcProjection, abi.TaskTypeMhcMapping, abi.TaskTypeMhcGradMapping,
		abi.TaskTypeMhcGradPrevAAndMapping:
		return 1200 // small matmuls
	case abi.TaskTypeShmemPutMemSignal, abi.TaskTypeShmemGetMem:
		return 900 // ~18 µs over HCCS
	case abi.TaskTypeAddCustom:
		return 150
	case abi.TaskTypeSwiGLU, abi.TaskTypeRmsNorm, abi.TaskTypeMhcNormCast:
		return 300
	case abi.TaskTypeSwiGLUGrad, abi.TaskTypeRmsNormGrad, abi.TaskTypeMhcPostGrad,
		abi.TaskTypeMhcGradPhiRms, abi.TaskTypeMhcGradPrevA, abi.TaskTypeMhcGradPrevXAndPost:
		return 450
	case abi.TaskTypeMhcPost, abi.TaskTypeMhcInputMix:
		return 250
	}
	return 500 // a task type the schema does not name
}

// jitter returns median scaled by a factor in [0.8, 1.25), at least 1.
func jitter(rng *rand.Rand, median uint64) uint64 {
	d := uint64(float64(median) * (0.8 + 0.45*rng.Float64()))
	return max(d, 1)
}

// between returns a value in [lo, hi].
func between(rng *rand.Rand, lo, hi uint64) uint64 {
	return lo + rng.Uint64N(hi-lo+1)
}

// Small fixed costs of the runtime around a task, as [lo, hi] ranges.
var (
	dispatchCycles = [2]uint64{20, 60} // entry to the first task
	gapCycles      = [2]uint64{2, 10}  // between one record and the next
	wakeCycles     = [2]uint64{2, 8}   // from an event firing to the wait ending
	triggerCycles  = [2]uint64{3, 10}  // signalling an event
)
