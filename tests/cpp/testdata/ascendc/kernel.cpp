// A kernel-shaped file: a MegaKernel worker that records its tasks through
// the runtime's CycleTraceRecorder, here the five-line cycle_trace_recorder.h
// beside it (cycleabi::Recorder under the CYCLEABI_ASCENDC preset), built
// against the stand-in kernel_operator.h. tests/cpp compiles it for the cube
// side (-D__DAV_C220_CUBE__) and the vector side with EXPECT_CORE_TYPE and
// EXPECT_CUBE_SLOTS set to what the preset must pick.
#include "kernel_operator.h"
#include "cycle_trace_recorder.h"

namespace {

template <typename A, typename B>
struct IsSame {
  static constexpr bool value = false;
};
template <typename A>
struct IsSame<A, A> {
  static constexpr bool value = true;
};

static_assert(IsSame<MulticoreRuntime::CycleTraceRecorder,
                     cycleabi::BasicRecorder<static_cast<cycleabi::CoreType>(EXPECT_CORE_TYPE), EXPECT_CUBE_SLOTS>>::value,
              "the preset picked another core type or cube slot count");

}  // namespace

// The worker loop's shape: Init at entry, Now around each task, Record after it.
extern "C" __aicore__ void MegaKernelWorker(__gm__ uint8_t* profile_buffer, uint32_t worker_id,
                                            uint32_t aic_record_capacity, uint32_t aiv_record_capacity,
                                            uint32_t task_count) {
  MulticoreRuntime::CycleTraceRecorder recorder;
  recorder.Init(worker_id, profile_buffer, aic_record_capacity, aiv_record_capacity);
  for (uint32_t task_id = 0; task_id < task_count; ++task_id) {
    const uint64_t start = recorder.Now();
    recorder.Record(cycleabi::TaskTypeDescId(cycleabi::TaskType::MatMul), task_id, task_id, cycleabi::kInvalidOwnerID,
                    start, recorder.Now());
  }
}
