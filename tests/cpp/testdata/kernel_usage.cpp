// kernel_usage: what a device kernel does with the generated header, written
// only through the qualifier macros. The Go tests compile it with
// CYCLEABI_GM set to qualifiers that behave like a device address space
// (volatile everywhere; clang's address_space(1) where clang is on PATH), so
// a helper that drops CYCLEABI_GM from a pointer into the buffer fails to
// compile. It is never linked or run.

#include "cycleabi_abi.h"

namespace {

// Everything a kernel evaluates at compile time stays constexpr under every
// configuration.
static_assert(cycleabi::SlotStride(16) == cycleabi::kCoreHeaderSize + 16 * cycleabi::kProfileRecordSize,
              "SlotStride is constexpr");
static_assert(cycleabi::SlotOffset(cycleabi::CoreType::AIC, 1, cycleabi::kMinCubeSlots, 16, 16) ==
                  cycleabi::SlotStride(16),
              "SlotOffset is constexpr");
static_assert(cycleabi::TaskTypeDescId(cycleabi::TaskType::MatMul) == cycleabi::kTaskTypeBase + 103,
              "TaskTypeDescId is constexpr");
static_assert(cycleabi::kFingerprint == CYCLEABI_FINGERPRINT, "the fingerprint macro and constant agree");
static_assert(cycleabi::kAbiVersion == CYCLEABI_ABI_VERSION, "the version macro and constant agree");

}  // namespace

// A kernel's profiling prologue and one record, as an AscendC kernel would
// write them (with CYCLEABI_FN __aicore__ inline and CYCLEABI_GM __gm__).
bool ProfileOneTask(CYCLEABI_GM uint8_t* buffer, uint32_t block_id, uint32_t cube_slots, uint32_t aic_capacity,
                    uint32_t aiv_capacity, uint64_t now) {
  CYCLEABI_GM cycleabi::CoreHeader* slot = cycleabi::InitSlot(buffer, cycleabi::CoreType::AIV, block_id, cube_slots,
                                                              aic_capacity, aiv_capacity, now);
  if (slot == nullptr) {
    return false;
  }
  return cycleabi::AppendRecord(slot, now, now + 10, cycleabi::TaskTypeDescId(cycleabi::TaskType::SwiGLU), 1, 0,
                                cycleabi::kInvalidOwnerID);
}

// The same through the lower-level helpers.
bool ProfileByHand(CYCLEABI_GM uint8_t* buffer, uint32_t block_id, uint32_t cube_slots, uint32_t aic_capacity,
                   uint32_t aiv_capacity, uint64_t now) {
  CYCLEABI_GM cycleabi::CoreHeader* header =
      cycleabi::SlotHeader(buffer, cycleabi::CoreType::AIC, block_id, cube_slots, aic_capacity, aiv_capacity);
  if (header == nullptr) {
    return false;
  }
  cycleabi::InitCoreHeader(header, now, cycleabi::CoreType::AIC, block_id,
                           cycleabi::RecordCapacity(cycleabi::CoreType::AIC, aic_capacity, aiv_capacity));
  return cycleabi::AppendRecord(header, now, now, cycleabi::kRuntimeStageWaitDependency, 2, 1, 7);
}

// Host-side planning helpers, also callable from device code.
bool Plan(uint64_t aic_required, uint64_t aiv_required, uint32_t cube_slots, uint64_t* size) {
  uint32_t aic = 0;
  uint32_t aiv = 0;
  return cycleabi::RoundUpCapacity(aic_required, &aic) && cycleabi::RoundUpCapacity(aiv_required, &aiv) &&
         cycleabi::IsValidCapacity(aic) && cycleabi::BufferSize(cube_slots, aic, aiv, size) &&
         cycleabi::RegionOffset(cycleabi::CoreType::AIV, cube_slots, aic, aiv) < *size &&
         cycleabi::SlotCount(cycleabi::CoreType::AIV, cube_slots) == 2ull * cube_slots &&
         cycleabi::GraphStageDescId(3) != cycleabi::RuntimeStageDescId(3);
}
