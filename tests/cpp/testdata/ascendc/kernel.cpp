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

typedef cycleabi::BasicRecorder<static_cast<cycleabi::CoreType>(EXPECT_CORE_TYPE), EXPECT_CUBE_SLOTS> Expected;
static_assert(IsSame<hyper_parallel::multicore::CycleTraceRecorder, Expected>::value,
              "the preset picked another core type or cube slot count");
// The runtime's namespace before ops/runtime/cycle_trace_recorder.h@e24fb0d6.
static_assert(IsSame<MulticoreRuntime::CycleTraceRecorder, Expected>::value,
              "the preset picked another core type or cube slot count");

}  // namespace

// The worker loop's shape: Init at entry, Now around each task, Record
// after it, in the runtime's namespace (hyper_parallel::multicore since
// ops/runtime/cycle_trace_recorder.h@e24fb0d6), where the worker names the
// recorder unqualified.
namespace hyper_parallel {
namespace multicore {
extern "C" __aicore__ void MegaKernelWorker(__gm__ uint8_t* profile_buffer, uint32_t worker_id,
                                            uint32_t aic_record_capacity, uint32_t aiv_record_capacity,
                                            uint32_t task_count) {
  CycleTraceRecorder recorder;
  recorder.Init(worker_id, profile_buffer, aic_record_capacity, aiv_record_capacity);
  for (uint32_t task_id = 0; task_id < task_count; ++task_id) {
    const uint64_t start = recorder.Now();
    recorder.Record(cycleabi::TaskTypeDescId(cycleabi::TaskType::MatMul), task_id, task_id, cycleabi::kInvalidOwnerID,
                    start, recorder.Now());
  }
}
}  // namespace multicore
}  // namespace hyper_parallel
