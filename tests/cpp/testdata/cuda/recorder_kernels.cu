// Kernels that each use one piece of the header's CUDA preset, compiled to
// PTX by tests/cpp (TestCUDAPresetPTX) once per publish mode; the test reads
// each kernel's PTX for the stores and fences the mode promises.
#define CYCLEABI_CUDA
#include "cycleabi_abi.h"

typedef cycleabi::DynamicRecorder<24> BlockRecorder;

// The core type of a block, chosen at run time: the first 24 blocks play AIC
// cores, the next 48 AIV cores.
__device__ static cycleabi::CoreType BlockCoreType(uint32_t block) {
  return block < 24 ? cycleabi::CoreType::AIC : cycleabi::CoreType::AIV;
}
__device__ static uint32_t BlockID(uint32_t block) { return block < 24 ? block : block - 24; }

// record_one: Init (capacities from the launch, so the bad-layout trap
// stays) and one Record.
extern "C" __global__ void record_one(uint8_t* buffer, uint32_t aic, uint32_t aiv) {
  BlockRecorder r;
  r.Init(BlockCoreType(blockIdx.x), BlockID(blockIdx.x), buffer, aic, aiv);
  const uint64_t start = r.Now();
  r.Record(0x10002u, blockIdx.x, 0, 0xFFFFFFFFu, start, r.Now());
}

// record_many: Init and n Records, no Flush.
extern "C" __global__ void record_many(uint8_t* buffer, uint32_t aic, uint32_t aiv, uint32_t n) {
  BlockRecorder r;
  r.Init(BlockCoreType(blockIdx.x), BlockID(blockIdx.x), buffer, aic, aiv);
  for (uint32_t i = 0; i < n; ++i) {
    r.Record(0x10002u, i, i, 0xFFFFFFFFu, 10 * i, 10 * i + 5);
  }
}

// flush_only: Init and Flush.
extern "C" __global__ void flush_only(uint8_t* buffer, uint32_t aic, uint32_t aiv) {
  BlockRecorder r;
  r.Init(BlockCoreType(blockIdx.x), BlockID(blockIdx.x), buffer, aic, aiv);
  r.Flush();
}

// now_only: the clock, twice, stored.
extern "C" __global__ void now_only(uint64_t* out) {
  BlockRecorder r;
  out[0] = r.Now();
  out[1] = r.Now();
}
