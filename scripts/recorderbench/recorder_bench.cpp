// recorder_bench: nanoseconds per record on the host, cycleabi::Recorder's
// Record (count and capacity held in the object) against the free
// AppendRecord (which reads both back from the header on every call), as a
// proxy for the device's hot path. CYCLEABI_BARRIER() is a compiler barrier:
// like PipeBarrier<PIPE_ALL> it keeps the stores in order and the buffer out
// of registers across it, but costs no instruction.
//
// Usage: recorder_bench RUNS. Each run fills one slot of 1024 records 20000
// times with each writer, alternating which goes first; it prints each run,
// then the medians and their ratio. scripts/bench-recorder.sh builds and
// runs it.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CYCLEABI_BARRIER() __asm__ __volatile__("" ::: "memory")
#define CYCLEABI_CORE_TYPE 2
#include "cycleabi_abi.h"

namespace {

const uint32_t kCapacity = 1024;
const uint32_t kFills = 20000;
const uint32_t kBlock = 7;

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// RecordLoop fills the slot kFills times through a Recorder; ns per record.
double RecordLoop(std::vector<uint8_t>* buffer) {
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  for (uint32_t f = 0; f < kFills; ++f) {
    cycleabi::Recorder r;
    r.Init(kBlock, buffer->data(), kCapacity, kCapacity);
    for (uint32_t i = 0; i < kCapacity; ++i) {
      r.Record(cycleabi::kTaskTypeBase + i, f, i, cycleabi::kInvalidOwnerID, 1000ull * i, 1000ull * i + f);
    }
  }
  return Seconds(start, std::chrono::steady_clock::now()) * 1e9 / (static_cast<double>(kFills) * kCapacity);
}

// AppendLoop does the same through InitSlot and AppendRecord.
double AppendLoop(std::vector<uint8_t>* buffer) {
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  for (uint32_t f = 0; f < kFills; ++f) {
    cycleabi::CoreHeader* h = cycleabi::InitSlot(buffer->data(), cycleabi::CoreType::AIV, kBlock,
                                                 cycleabi::kMinCubeSlots, kCapacity, kCapacity, 0);
    for (uint32_t i = 0; i < kCapacity; ++i) {
      cycleabi::AppendRecord(h, 1000ull * i, 1000ull * i + f, cycleabi::kTaskTypeBase + i, f, i,
                             cycleabi::kInvalidOwnerID);
    }
  }
  return Seconds(start, std::chrono::steady_clock::now()) * 1e9 / (static_cast<double>(kFills) * kCapacity);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1) {
    std::fprintf(stderr, "usage: recorder_bench RUNS\n");
    return 2;
  }
  uint64_t size = 0;
  if (!cycleabi::BufferSize(cycleabi::kMinCubeSlots, kCapacity, kCapacity, &size)) {
    std::fprintf(stderr, "recorder_bench: no buffer size\n");
    return 1;
  }
  std::vector<uint8_t> buffer(size, 0);
  std::vector<double> record, append;
  RecordLoop(&buffer);  // warm the slot and the caches
  AppendLoop(&buffer);
  for (int run = 0; run < runs; ++run) {
    if (run % 2 == 0) {
      record.push_back(RecordLoop(&buffer));
      append.push_back(AppendLoop(&buffer));
    } else {
      append.push_back(AppendLoop(&buffer));
      record.push_back(RecordLoop(&buffer));
    }
    std::printf("run %d: Record %.3f ns/record, AppendRecord %.3f ns/record\n", run + 1, record.back(), append.back());
  }
  // The last fill's record_count, so that the writes are used.
  const cycleabi::CoreHeader* h = reinterpret_cast<const cycleabi::CoreHeader*>(
      buffer.data() + cycleabi::SlotOffset(cycleabi::CoreType::AIV, kBlock, cycleabi::kMinCubeSlots, kCapacity, kCapacity));
  const double r = Median(record), a = Median(append);
  std::printf("median of %d runs (%u records each): Record %.3f ns/record, AppendRecord %.3f ns/record; AppendRecord/Record %.2fx (record_count %u)\n",
              runs, kFills * kCapacity, r, a, a / r, h->record_count);
  return 0;
}
