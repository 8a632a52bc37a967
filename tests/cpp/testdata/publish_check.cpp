// publish_check: the publish order of the header's recorder in one publish
// mode (chosen by the compile's -D flags, as a kernel chooses it), run on the
// host with hooks that log what it does.
//
// The hooks log, in order: "B" for CYCLEABI_BARRIER(), "N" for a clock read
// (CYCLEABI_NOW()) and "P<n>" for the store that publishes record_count n
// (CYCLEABI_PUBLISH_STORE). Built with -DCUDA_PRESET, the header's CUDA
// preset (its host pass: no __CUDA_ARCH__) supplies every other hook, and the
// log shows which barriers the preset leaves out. At every publish the
// program checks, independently of the header, that records 0..n-1 of the
// slot are complete and that nothing else raised record_count.
//
// Usage: publish_check RECORDS CAPACITY. It initialises AIV block 5 of a
// buffer of 24 cube slots (capacity CAPACITY in both regions), records
// RECORDS records through a DynamicRecorder, calls Flush, then does the same
// through InitSlot and AppendRecord on AIC block 2 (without Flush: it has
// none); and checks that BasicRecorder<AIV> writes the bytes
// DynamicRecorder does. It prints
//
//   recorder <log>
//   append <log>
//   bytes <hex of the whole buffer's FNV-1a 64 hash>
//   ok | violation <what>
//
// tests/cpp (TestPublishModes) computes the log each mode must give and
// compares.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

void OnBarrier();
uint64_t OnNow();
void OnPublish(uint32_t* p, uint32_t n);

#ifdef CUDA_PRESET
// The names nvcc provides, as a host compiler sees them in the host pass.
#define __host__
#define __device__
#define __forceinline__ inline
#define CYCLEABI_CUDA
#else
#define CYCLEABI_BARRIER() OnBarrier()
#endif
#define CYCLEABI_NOW() OnNow()
#define CYCLEABI_PUBLISH_STORE(p, n) OnPublish((p), (n))
#include "cycleabi_abi.h"

namespace {

const uint32_t kCube = 24;
const uint64_t kHeaderBytes = 64;
const uint64_t kRecordBytes = 32;

std::string g_log;
std::string g_violation;
const uint8_t* g_slot = nullptr;
uint32_t g_published = 0;  // the last count published in g_slot
uint64_t g_clock = 0;

uint32_t Get32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = v << 8 | p[i];
  }
  return v;
}

// The i-th record a check writes: its ids follow from i.
uint32_t Desc(uint32_t i) { return 0x20000u + i; }
uint32_t Task(uint32_t i) { return 1000 + 7 * i; }

bool Complete(const uint8_t* slot, uint32_t i) {
  const uint8_t* r = slot + kHeaderBytes + kRecordBytes * i;
  return Get64(r) == 100ull * i + 1 && Get64(r + 8) == 100ull * i + 51 && Get32(r + 16) == Desc(i) &&
         Get32(r + 20) == Task(i) && Get32(r + 24) == i && Get32(r + 28) == i % 3;
}

void Violation(const std::string& what) {
  if (g_violation.empty()) {
    g_violation = what;
  }
}

}  // namespace

void OnBarrier() { g_log += " B"; }

uint64_t OnNow() {
  g_log += " N";
  return ++g_clock;
}

void OnPublish(uint32_t* p, uint32_t n) {
  g_log += " P" + std::to_string(n);
  if (g_slot == nullptr || reinterpret_cast<const uint8_t*>(p) != g_slot + 8) {
    Violation("a publish outside the slot's record_count");
    return;
  }
  if (Get32(g_slot + 8) != g_published) {
    Violation("record_count changed outside a publish");
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!Complete(g_slot, i)) {
      Violation("publish " + std::to_string(n) + " with record " + std::to_string(i) + " incomplete");
      break;
    }
  }
  *p = n;
  g_published = n;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: publish_check RECORDS CAPACITY\n");
    return 2;
  }
  const uint32_t records = static_cast<uint32_t>(std::atoi(argv[1]));
  const uint32_t capacity = static_cast<uint32_t>(std::atoi(argv[2]));
  const uint64_t stride = kHeaderBytes + kRecordBytes * capacity;
  std::vector<uint8_t> buffer(3 * kCube * stride, 0xA5);

  cycleabi::DynamicRecorder<kCube> recorder;
  g_slot = buffer.data() + kCube * stride + 5 * stride;  // AIV block 5
  g_published = 0;
  recorder.Init(cycleabi::CoreType::AIV, 5, buffer.data(), capacity, capacity);
  for (uint32_t i = 0; i < records; ++i) {
    g_log += " R";
    recorder.Record(Desc(i), Task(i), i, i % 3, 100ull * i + 1, 100ull * i + 51);
  }
  g_log += " F";
  recorder.Flush();
  std::printf("recorder%s\n", g_log.c_str());

  g_log.clear();
  g_slot = buffer.data() + 2 * stride;  // AIC block 2
  g_published = 0;
  cycleabi::CoreHeader* header =
      cycleabi::InitSlot(buffer.data(), cycleabi::CoreType::AIC, 2, kCube, capacity, capacity, 1);
  for (uint32_t i = 0; header != nullptr && i < records; ++i) {
    g_log += " R";
    cycleabi::AppendRecord(header, 100ull * i + 1, 100ull * i + 51, Desc(i), Task(i), i, i % 3);
  }
  std::printf("append%s\n", g_log.c_str());

  // The same slot through BasicRecorder, whose core type is fixed at
  // compile time, in a second buffer: the same bytes as DynamicRecorder's.
  {
    std::vector<uint8_t> basic(buffer.size(), 0xA5);
    std::vector<uint8_t> dynamic(buffer.size(), 0xA5);
    cycleabi::DynamicRecorder<kCube> d;
    cycleabi::BasicRecorder<cycleabi::CoreType::AIV, kCube> b;
    g_slot = dynamic.data() + kCube * stride + 5 * stride;
    g_published = 0;
    g_clock = 0;  // the same entry_cycle in both
    d.Init(cycleabi::CoreType::AIV, 5, dynamic.data(), capacity, capacity);
    for (uint32_t i = 0; i < records; ++i) {
      d.Record(Desc(i), Task(i), i, i % 3, 100ull * i + 1, 100ull * i + 51);
    }
    d.Flush();
    g_slot = basic.data() + kCube * stride + 5 * stride;
    g_published = 0;
    g_clock = 0;
    b.Init(5, basic.data(), capacity, capacity);
    for (uint32_t i = 0; i < records; ++i) {
      b.Record(Desc(i), Task(i), i, i % 3, 100ull * i + 1, 100ull * i + 51);
    }
    b.Flush();
    if (basic != dynamic) {
      Violation("BasicRecorder and DynamicRecorder wrote different bytes");
    }
  }

  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < buffer.size(); ++i) {
    h = (h ^ buffer[i]) * 1099511628211ull;
  }
  std::printf("bytes %016llx\n", static_cast<unsigned long long>(h));
  if (g_violation.empty()) {
    std::printf("ok\n");
    return 0;
  }
  std::printf("violation %s\n", g_violation.c_str());
  return 1;
}
