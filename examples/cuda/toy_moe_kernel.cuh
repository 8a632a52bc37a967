// The device side of examples/cuda's toy MegaKernel: a persistent kernel
// that runs a task table (tasktable/) block by block, with real waits on
// event counters, and records every operation through the generated header
// (gen/cpp/cycleabi_abi.h) under its CUDA preset. toy_moe.cu is the host
// program; tests/cpp compiles this file to PTX with clang (no CUDA
// installation needed) in every publish mode.
//
// The publish mode is the compile's: -DCYCLEABI_PUBLISH_EVERY_K=16,
// -DCYCLEABI_PUBLISH_AT_EXIT, or neither (every record); a buffer read
// while the kernel runs, in mapped host memory, needs
// -DCYCLEABI_CUDA_SYSTEM_SCOPE.
#ifndef CYCLEABI_EXAMPLES_TOY_MOE_KERNEL_CUH_
#define CYCLEABI_EXAMPLES_TOY_MOE_KERNEL_CUH_

#define CYCLEABI_CUDA
#include "cycleabi_abi.h"

// The buffer's cube slot count; the host refuses a table planned for
// another.
#ifndef TOY_CUBE_SLOTS
#define TOY_CUBE_SLOTS 24
#endif

// ToyRecorder is the recorder of one block; its core type (AIC or AIV) is
// the block's, chosen at run time.
typedef cycleabi::DynamicRecorder<TOY_CUBE_SLOTS> ToyRecorder;

// Operation kinds of the task table.
enum ToyOpKind : uint32_t { kToyWait = 0, kToyCompute = 1, kToyTrigger = 2, kToySignal = 3 };

// ToyOp is one operation of a block and the record it writes.
struct ToyOp {
  uint32_t kind;
  int32_t event;  // dense event index, -1 for none
  uint32_t work_ns;
  uint32_t desc_id, task_id, stage_task_index, owner_id;
};

// ToyBlock is one block: the core it plays and its operations.
struct ToyBlock {
  uint32_t core_type, block_id, first_op, num_ops;
};

struct ToyParams {
  const ToyBlock* blocks;
  const ToyOp* ops;
  const uint32_t* event_triggers;  // per event, the triggers that fire it
  uint32_t* event_counts;          // per event, the triggers so far (zeroed before a launch)
  uint8_t* buffer;                 // the profiling buffer
  uint32_t aic_capacity, aiv_capacity;
  uint32_t* timeouts;              // waits that gave up
  unsigned long long wait_timeout_ns;
  // The hang mode (toy_moe hang): the task whose trigger is withheld (-1:
  // none), and whether a wait that gives up stops its core where it is
  // (no record of the wait, no Flush), as a core of a hung kernel would.
  int32_t withheld_task;
  uint32_t stop_on_timeout;
};

__device__ __forceinline__ uint32_t ToyLoadAcquire(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// ToySignal adds one trigger to an event counter after this block's work.
__device__ __forceinline__ void ToySignal(uint32_t* count) {
  __threadfence();
  atomicAdd(count, 1u);
}

// MegaKernel_toy_moe runs block blockIdx.x of the table on thread 0 of the
// block; with kRecord it records every operation. Launch one block per
// table block, all resident at once (they wait on each other).
template <bool kRecord>
__global__ void MegaKernel_toy_moe(ToyParams p) {
  if (threadIdx.x != 0) {
    return;
  }
  const ToyBlock b = p.blocks[blockIdx.x];
  ToyRecorder recorder;
  if (kRecord) {
    recorder.Init(static_cast<cycleabi::CoreType>(b.core_type), b.block_id, p.buffer, p.aic_capacity,
                  p.aiv_capacity);
  }
  for (uint32_t i = 0; i < b.num_ops; ++i) {
    const ToyOp op = p.ops[b.first_op + i];
    const uint64_t start = recorder.Now();
    switch (op.kind) {
      case kToyWait:
        while (op.event >= 0 && ToyLoadAcquire(&p.event_counts[op.event]) < p.event_triggers[op.event]) {
          if (recorder.Now() - start > p.wait_timeout_ns) {
            atomicAdd(p.timeouts, 1u);
            if (p.stop_on_timeout) {
              return;  // hung here: what was published stays, nothing more
            }
            break;
          }
        }
        break;
      case kToyCompute:
      case kToySignal:
        while (recorder.Now() - start < op.work_ns) {
        }
        if (op.kind == kToySignal && op.event >= 0) {
          ToySignal(&p.event_counts[op.event]);
        }
        break;
      default:  // kToyTrigger
        if (static_cast<int32_t>(op.task_id) == p.withheld_task) {
          continue;  // the trigger withheld: not sent, not recorded
        }
        if (op.event >= 0) {
          ToySignal(&p.event_counts[op.event]);
        }
        break;
    }
    if (kRecord) {
      recorder.Record(op.desc_id, op.task_id, op.stage_task_index, op.owner_id, start, recorder.Now());
    }
  }
  if (kRecord) {
    recorder.Flush();
  }
}

// ToyRecordBench times Record on thread 0 of every block: passes times,
// Init, then capacity iterations of two clock reads and (with kRecord) one
// Record, then Flush. ns[block] gets the loop's length in ns; sink keeps
// the bare loop from being optimised away.
template <bool kRecord>
__global__ void ToyRecordBench(uint8_t* buffer, uint32_t capacity, uint32_t passes, unsigned long long* ns,
                               unsigned long long* sink) {
  if (threadIdx.x != 0) {
    return;
  }
  const cycleabi::CoreType core_type = blockIdx.x < TOY_CUBE_SLOTS ? cycleabi::CoreType::AIC : cycleabi::CoreType::AIV;
  const uint32_t block_id = blockIdx.x < TOY_CUBE_SLOTS ? blockIdx.x : blockIdx.x - TOY_CUBE_SLOTS;
  ToyRecorder recorder;
  unsigned long long acc = 0;
  const uint64_t t0 = recorder.Now();
  for (uint32_t pass = 0; pass < passes; ++pass) {
    if (kRecord) {
      recorder.Init(core_type, block_id, buffer, capacity, capacity);
    }
    for (uint32_t i = 0; i < capacity; ++i) {
      const uint64_t start = recorder.Now();
      const uint64_t end = recorder.Now();
      if (kRecord) {
        recorder.Record(cycleabi::kRuntimeStageTriggerEvent, i, pass, blockIdx.x, start, end);
      } else {
        acc += end - start;
      }
    }
    if (kRecord) {
      recorder.Flush();
    }
  }
  ns[blockIdx.x] = recorder.Now() - t0;
  sink[blockIdx.x] = acc;
}

#endif  // CYCLEABI_EXAMPLES_TOY_MOE_KERNEL_CUH_
