// qualifier_probe: a kernel that calls every helper of the generated header,
// written only through the header's qualifier macros. tests/agreement
// compiles it with stand-ins for the qualifiers an AscendC or a CUDA build
// predefines (qualifier_test.go), each chosen so that a helper missing
// CYCLEABI_FN, or a pointer into the buffer missing CYCLEABI_GM, fails the
// compile or the check that follows it. It is never linked or run.
//
// PROBE_KERNEL qualifies the kernel entry point (__global__, __aicore__);
// PROBE_HOST_CALLER adds a host function that calls the helpers too.

// The Recorder of a vector core (the probe's helpers run as one). The CUDA
// preset, so that its helpers (cycleabi::cuda) are declared and called too:
// each configuration predefines CYCLEABI_FN (and CYCLEABI_GM), which the
// preset keeps, and outside a CUDA device compile the helpers take their
// host branch.
#define CYCLEABI_CORE_TYPE 2
#define CYCLEABI_CUDA
#include "cycleabi_abi.h"

#ifndef PROBE_KERNEL
#define PROBE_KERNEL
#endif

// ProbeBody calls every helper, with values the compiler cannot fold, so
// each is used by device code (and, unoptimised, emitted).
CYCLEABI_FN uint64_t ProbeBody(CYCLEABI_GM uint8_t* buffer, uint32_t block_id, uint32_t cube_slots,
                               uint32_t aic_capacity, uint32_t aiv_capacity, uint64_t now) {
  uint64_t acc = cycleabi::RuntimeStageDescId(block_id);
  acc += cycleabi::TaskTypeDescId(static_cast<cycleabi::TaskType>(block_id));
  acc += cycleabi::GraphStageDescId(block_id);
  acc += cycleabi::IsValidCapacity(now) ? 1u : 0u;
  uint32_t capacity = 0;
  if (cycleabi::RoundUpCapacity(now, &capacity)) {
    acc += capacity;
  }
  acc += cycleabi::SlotStride(aic_capacity);
  acc += cycleabi::SlotCount(cycleabi::CoreType::AIV, cube_slots);
  acc += cycleabi::RecordCapacity(cycleabi::CoreType::AIC, aic_capacity, aiv_capacity);
  acc += cycleabi::RegionOffset(cycleabi::CoreType::AIV, cube_slots, aic_capacity, aiv_capacity);
  acc += cycleabi::SlotOffset(cycleabi::CoreType::AIC, block_id, cube_slots, aic_capacity, aiv_capacity);
  uint64_t size = 0;
  if (cycleabi::BufferSize(cube_slots, aic_capacity, aiv_capacity, &size)) {
    acc += size;
  }
  uint64_t total = 0;
  if (cycleabi::detail::AddRegion(&total, cube_slots, now)) {
    acc += total;
  }
  CYCLEABI_GM cycleabi::CoreHeader* header =
      cycleabi::SlotHeader(buffer, cycleabi::CoreType::AIC, block_id, cube_slots, aic_capacity, aiv_capacity);
  if (header != nullptr) {
    cycleabi::InitCoreHeader(header, now, cycleabi::CoreType::AIC, block_id, aic_capacity);
  }
  header = cycleabi::InitSlot(buffer, cycleabi::CoreType::AIV, block_id, cube_slots, aic_capacity, aiv_capacity, now);
  if (header != nullptr && cycleabi::AppendRecord(header, now, now + 1, cycleabi::kRuntimeStageTriggerEvent, block_id,
                                                  0, cycleabi::kInvalidOwnerID)) {
    acc += 1;
  }
  cycleabi::Recorder recorder;
  recorder.Init(block_id, buffer, aic_capacity, aiv_capacity);
  if (recorder.Record(cycleabi::kRuntimeStageTriggerEvent, block_id, 0, cycleabi::kInvalidOwnerID, now, recorder.Now())) {
    acc += 1;
  }
  recorder.Flush();
  cycleabi::DynamicRecorder<cycleabi::kMinCubeSlots> any_core;
  any_core.Init(static_cast<cycleabi::CoreType>(block_id % 3), block_id, buffer, aic_capacity, aiv_capacity);
  if (any_core.Record(cycleabi::kRuntimeStageTriggerEvent, block_id, 0, cycleabi::kInvalidOwnerID, now, any_core.Now())) {
    acc += 1;
  }
  any_core.Flush();
  acc += cycleabi::cuda::GlobalTimer();
  if (header != nullptr) {
    cycleabi::cuda::ReleaseStore(&header->record_count, block_id);
  } else {
    cycleabi::cuda::Trap();
  }
  return acc;
}

// ProbeKernel is the entry point, as a device build declares one.
PROBE_KERNEL void ProbeKernel(CYCLEABI_GM uint8_t* buffer, uint32_t block_id, uint32_t cube_slots,
                              uint32_t aic_capacity, uint32_t aiv_capacity, uint64_t now, CYCLEABI_GM uint64_t* out) {
  *out = ProbeBody(buffer, block_id, cube_slots, aic_capacity, aiv_capacity, now);
}

#ifdef PROBE_HOST_CALLER
// HostCaller calls the helpers from host code, as CUDA allows with
// CYCLEABI_FN = __host__ __device__ inline.
uint64_t HostCaller(CYCLEABI_GM uint8_t* buffer, uint32_t block_id, uint64_t now) {
  return ProbeBody(buffer, block_id, cycleabi::kMinCubeSlots, 16, 16, now);
}
#endif
