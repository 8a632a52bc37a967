// recorder_check: the device writers of the generated header (Recorder and
// AppendRecord) run on the host with hooks that watch them, checked against
// the ABI's rules computed here independently of the header.
//
// The hooks: CYCLEABI_BARRIER() inspects the slot being written and logs
// (record_count, how many leading records are complete); CYCLEABI_NOW()
// is a counter; CYCLEABI_TRAP() counts traps. The rules:
//
//   - whenever a barrier sees record_count N, records 0..N-1 are complete;
//     and the order is upstream's: Init's clock read behind one barrier,
//     then per record one barrier with the record written and the count
//     not yet raised, and one with the count raised;
//   - a full slot counts drops and nothing is written past it;
//   - an invalid capacity, or a core with no slot, traps and writes nothing,
//     and the recorder then writes nothing either.
//
// Usage: recorder_check. Prints "PASS <check>" or "FAIL <check>: <why>" per
// check and exits 1 when any check failed. tests/cpp runs it, and runs it
// again against copies of the header with one rule broken, each of which
// must fail its check.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

void OnBarrier();
uint64_t NextCycle();
void OnTrap();

#define CYCLEABI_BARRIER() OnBarrier()
#define CYCLEABI_NOW() NextCycle()
#define CYCLEABI_TRAP() OnTrap()
#include "cycleabi_abi.h"

namespace {

using cycleabi::BasicRecorder;
using cycleabi::CoreType;

const uint8_t kFill = 0xA5;
const uint32_t kCube = 24;  // the smallest buffer: 24 AIC slots, 48 AIV slots
const uint64_t kHeaderBytes = 64;
const uint64_t kRecordBytes = 32;

typedef BasicRecorder<CoreType::AIC, kCube> AicRecorder;
typedef BasicRecorder<CoreType::AIV, kCube> AivRecorder;

// The test's own reading of the layout: 24 AIC slots of 64 + 32*A bytes,
// then 48 AIV slots of 64 + 32*V bytes.
uint64_t Stride(uint64_t capacity) { return kHeaderBytes + kRecordBytes * capacity; }
uint64_t Size(uint64_t aic, uint64_t aiv) { return kCube * Stride(aic) + 2 * kCube * Stride(aiv); }
uint64_t Offset(CoreType t, uint64_t block, uint64_t aic, uint64_t aiv) {
  return t == CoreType::AIC ? block * Stride(aic) : kCube * Stride(aic) + block * Stride(aiv);
}

void Put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = v << 8 | p[i];
  }
  return v;
}
uint32_t Get32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// Rec is the i-th record a check writes.
struct Rec {
  uint64_t start, end;
  uint32_t desc, task, index, owner;
};
Rec RecordFor(uint32_t i) {
  Rec r;
  r.start = 1000ull * i + 7;
  r.end = r.start + 3ull * i + 1;
  r.desc = 0x20000u + i;
  r.task = 100 + i;
  r.index = i;
  r.owner = i % 2 == 1 ? 0xFFFFFFFFu : i;
  return r;
}
// Wire is the record's 32 bytes, laid out by hand: start, end, desc_id,
// task_id, stage_task_index, owner_id, little-endian.
std::vector<uint8_t> Wire(const Rec& r) {
  std::vector<uint8_t> b(kRecordBytes);
  Put64(&b[0], r.start);
  Put64(&b[8], r.end);
  Put32(&b[16], r.desc);
  Put32(&b[20], r.task);
  Put32(&b[24], r.index);
  Put32(&b[28], r.owner);
  return b;
}

// What the hooks see.
struct Snapshot {
  uint32_t count;
  uint32_t complete;
};
const uint8_t* g_slot = nullptr;  // the slot the barrier inspects; none when null
uint32_t g_capacity = 0;
std::vector<Rec> g_expected;
std::vector<Snapshot> g_log;
std::string g_violation;  // the first barrier that broke the rule
uint64_t g_barriers = 0;
uint64_t g_clock = 0;
uint64_t g_clock_reads = 0;
int g_traps = 0;

std::string Str(uint64_t v) { return std::to_string(static_cast<unsigned long long>(v)); }

}  // namespace

void OnBarrier() {
  ++g_barriers;
  if (g_slot == nullptr) {
    return;
  }
  const uint32_t count = Get32(g_slot + 8);
  uint32_t complete = 0;
  while (complete < g_capacity && complete < g_expected.size() &&
         std::memcmp(g_slot + kHeaderBytes + kRecordBytes * complete, Wire(g_expected[complete]).data(),
                     kRecordBytes) == 0) {
    ++complete;
  }
  if (complete < count && g_violation.empty()) {
    g_violation = "a barrier saw record_count " + Str(count) + " with only " + Str(complete) + " records complete";
  }
  Snapshot s = {count, complete};
  g_log.push_back(s);
}

uint64_t NextCycle() {
  ++g_clock_reads;
  g_clock += 977;
  return g_clock;
}

void OnTrap() { ++g_traps; }

namespace {

int failures = 0;

void Report(const std::string& name, const std::string& why) {
  if (why.empty()) {
    std::printf("PASS %s\n", name.c_str());
  } else {
    std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    ++failures;
  }
}

void Reset(const uint8_t* slot, uint32_t capacity) {
  g_slot = slot;
  g_capacity = capacity;
  g_expected.clear();
  g_log.clear();
  g_violation.clear();
  g_traps = 0;
  g_clock_reads = 0;
  g_barriers = 0;
}

// Watch points the barrier at a slot that has been initialised.
void Watch(const uint8_t* slot, uint32_t capacity) {
  g_slot = slot;
  g_capacity = capacity;
}

// InitProblem checks what Init did besides the header: one clock read
// behind one barrier, no trap.
std::string InitProblem() {
  if (g_traps != 0) return "Init trapped on a valid layout";
  if (g_clock_reads != 1 || g_barriers != 1) {
    return "Init read the clock " + Str(g_clock_reads) + " times behind " + Str(g_barriers) + " barriers, want 1 and 1";
  }
  return "";
}

// Outside is the number of bytes outside [from, to) that are no longer kFill.
uint64_t Outside(const std::vector<uint8_t>& buf, uint64_t from, uint64_t to) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < buf.size(); ++i) {
    if ((i < from || i >= to) && buf[i] != kFill) {
      ++n;
    }
  }
  return n;
}

// HeaderProblem checks a written header field by field; "" when it is right.
std::string HeaderProblem(const uint8_t* h, uint64_t entry, uint32_t count, uint32_t dropped, CoreType t,
                          uint32_t block, uint32_t capacity) {
  std::string p;
  if (Get64(h) != entry) p += " entry_cycle " + Str(Get64(h)) + " want " + Str(entry);
  if (Get32(h + 8) != count) p += " record_count " + Str(Get32(h + 8)) + " want " + Str(count);
  if (Get32(h + 12) != dropped) p += " dropped_count " + Str(Get32(h + 12)) + " want " + Str(dropped);
  if (Get32(h + 16) != static_cast<uint32_t>(t)) p += " core_type " + Str(Get32(h + 16));
  if (Get32(h + 20) != block) p += " block_id " + Str(Get32(h + 20)) + " want " + Str(block);
  if (Get32(h + 24) != capacity) p += " record_capacity " + Str(Get32(h + 24)) + " want " + Str(capacity);
  for (uint64_t i = 28; i < kHeaderBytes; ++i) {
    if (h[i] != 0) {
      p += " byte " + Str(i) + " of the header is not zero";
      break;
    }
  }
  return p;
}

// OrderProblem compares the barrier log with upstream's order for n records.
std::string OrderProblem(uint32_t n) {
  std::vector<Snapshot> want;
  for (uint32_t i = 1; i <= n; ++i) {
    Snapshot written = {i - 1, i};  // the record is written, its count not yet published
    Snapshot published = {i, i};
    want.push_back(written);
    want.push_back(published);
  }
  if (!g_violation.empty()) {
    return g_violation;
  }
  for (size_t i = 0; i < want.size() || i < g_log.size(); ++i) {
    if (i >= g_log.size() || i >= want.size() || g_log[i].count != want[i].count ||
        g_log[i].complete != want[i].complete) {
      std::string got = i < g_log.size() ? "(" + Str(g_log[i].count) + ", " + Str(g_log[i].complete) + ")" : "none";
      std::string exp = i < want.size() ? "(" + Str(want[i].count) + ", " + Str(want[i].complete) + ")" : "none";
      return "barrier " + Str(i) + " saw (record_count, complete records) " + got + ", want " + exp;
    }
  }
  return "";
}

// order/recorder: Init then 20 Records on AIV/5 (capacity 32).
void OrderRecorder() {
  const uint32_t aic = 16, aiv = 32, block = 5, n = 20;
  std::vector<uint8_t> buf(Size(aic, aiv), kFill);
  const uint64_t off = Offset(CoreType::AIV, block, aic, aiv);
  Reset(nullptr, 0);
  AivRecorder r;
  r.Init(block, buf.data(), aic, aiv);
  const uint64_t entry = g_clock;
  std::string why = InitProblem();
  Watch(&buf[off], aiv);
  for (uint32_t i = 0; i < n; ++i) {
    const Rec rec = RecordFor(i);
    g_expected.push_back(rec);
    if (!r.Record(rec.desc, rec.task, rec.index, rec.owner, rec.start, rec.end)) {
      why = "Record " + Str(i) + " returned false with room in the slot";
    }
  }
  if (why.empty()) why = OrderProblem(n);
  if (why.empty()) why = HeaderProblem(&buf[off], entry, n, 0, CoreType::AIV, block, aiv);
  if (why.empty() && Outside(buf, off, off + kHeaderBytes + kRecordBytes * n) != 0) {
    why = Str(Outside(buf, off, off + kHeaderBytes + kRecordBytes * n)) + " bytes changed outside the header and records";
  }
  Report("order/recorder", why);
}

// order/append: InitSlot then 20 AppendRecords on AIC/3: the same order
// without Init's barrier (InitSlot takes the entry cycle as given).
void OrderAppend() {
  const uint32_t aic = 32, aiv = 16, block = 3, n = 20;
  std::vector<uint8_t> buf(Size(aic, aiv), kFill);
  const uint64_t off = Offset(CoreType::AIC, block, aic, aiv);
  Reset(nullptr, 0);
  cycleabi::CoreHeader* h = cycleabi::InitSlot(buf.data(), CoreType::AIC, block, kCube, aic, aiv, 4242);
  std::string why = g_barriers == 0 ? "" : "InitSlot passed a barrier";
  Watch(&buf[off], aic);
  for (uint32_t i = 0; i < n; ++i) {
    const Rec rec = RecordFor(i);
    g_expected.push_back(rec);
    if (!cycleabi::AppendRecord(h, rec.start, rec.end, rec.desc, rec.task, rec.index, rec.owner)) {
      why = "AppendRecord " + Str(i) + " returned false with room in the slot";
    }
  }
  if (why.empty()) why = OrderProblem(n);
  if (why.empty()) why = HeaderProblem(&buf[off], 4242, n, 0, CoreType::AIC, block, aic);
  Report("order/append", why);
}

// full/recorder: 21 Records into the last AIC slot (capacity 16), whose
// neighbour is AIV/0: 16 land, 5 are dropped, nothing is written past it.
void FullRecorder() {
  const uint32_t aic = 16, aiv = 16, block = kCube - 1, n = 21;
  std::vector<uint8_t> buf(Size(aic, aiv), kFill);
  const uint64_t off = Offset(CoreType::AIC, block, aic, aiv);
  Reset(nullptr, 0);
  AicRecorder r;
  r.Init(block, buf.data(), aic, aiv);
  const uint64_t entry = g_clock;
  std::string why = InitProblem();
  Watch(&buf[off], aic);
  uint32_t written = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Rec rec = RecordFor(i);
    g_expected.push_back(rec);
    const bool ok = r.Record(rec.desc, rec.task, rec.index, rec.owner, rec.start, rec.end);
    if (ok != (i < aic)) {
      why = "Record " + Str(i) + " returned " + (ok ? "true" : "false") + " in a slot of " + Str(aic);
    }
    written += ok ? 1 : 0;
  }
  if (why.empty()) why = OrderProblem(written);  // drops pass no barrier
  if (why.empty()) why = HeaderProblem(&buf[off], entry, aic, n - aic, CoreType::AIC, block, aic);
  if (why.empty() && Outside(buf, off, off + Stride(aic)) != 0) {
    why = Str(Outside(buf, off, off + Stride(aic))) + " bytes changed outside the slot";
  }
  Report("full/recorder", why);
}

// full/zero-capacity: an AIC region of capacity 0 holds headers only; every
// Record is a drop and no record byte is written.
void FullZero() {
  const uint32_t aic = 0, aiv = 16, block = 7;
  std::vector<uint8_t> buf(Size(aic, aiv), kFill);
  const uint64_t off = Offset(CoreType::AIC, block, aic, aiv);
  Reset(nullptr, 0);
  AicRecorder r;
  r.Init(block, buf.data(), aic, aiv);
  const uint64_t entry = g_clock;
  std::string why = InitProblem();
  for (uint32_t i = 0; i < 3; ++i) {
    const Rec rec = RecordFor(i);
    if (r.Record(rec.desc, rec.task, rec.index, rec.owner, rec.start, rec.end)) {
      why = "Record returned true in a slot of capacity 0";
    }
  }
  if (why.empty()) why = HeaderProblem(&buf[off], entry, 0, 3, CoreType::AIC, block, aic);
  if (why.empty() && Outside(buf, off, off + kHeaderBytes) != 0) why = "bytes changed outside the header";
  Report("full/zero-capacity", why);
}

// Refused is what a refused Init must leave: one trap, no byte written, and
// a recorder whose Records write nothing.
template <typename R>
std::string Refused(uint32_t block, uint32_t aic, uint32_t aiv) {
  // The buffer is sized for valid neighbours of the capacities asked for,
  // so that a recorder that ignored the refusal would write inside it.
  const uint64_t size = Size(aic > 0xFFFF ? 16 : aic + 16, aiv > 0xFFFF ? 16 : aiv + 16) + 4096;
  std::vector<uint8_t> buf(size, kFill);
  Reset(nullptr, 0);
  R r;
  r.Init(block, buf.data(), aic, aiv);
  if (g_traps != 1) return "Init trapped " + Str(g_traps) + " times, want 1";
  for (uint32_t i = 0; i < 3; ++i) {
    const Rec rec = RecordFor(i);
    if (r.Record(rec.desc, rec.task, rec.index, rec.owner, rec.start, rec.end)) return "Record returned true";
  }
  if (g_traps != 1) return "Record trapped";
  if (Outside(buf, 0, 0) != 0) return Str(Outside(buf, 0, 0)) + " bytes written";
  return "";
}

// invalid/capacity: either region's capacity not a multiple of 16, or over
// kMaxRecordsPerCore, traps on both core types (upstream checks both).
void InvalidCapacity() {
  const uint32_t max = 134217712;  // (0xFFFFFFFF - 64) / 32 rounded down to 16
  const uint32_t cases[][2] = {{8, 16}, {16, 17}, {16, 1}, {max + 16, 16}, {16, 0xFFFFFFF0u}, {0xFFFFFFFFu, 16}};
  std::string why;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && why.empty(); ++i) {
    const uint32_t aic = cases[i][0], aiv = cases[i][1];
    std::string p = Refused<AicRecorder>(0, aic, aiv);
    if (p.empty()) p = Refused<AivRecorder>(0, aic, aiv);
    if (!p.empty()) why = "capacities " + Str(aic) + ", " + Str(aiv) + ": " + p;
  }
  if (why.empty() && !cycleabi::IsValidCapacity(max)) why = "the test's maximum is not valid";
  Report("invalid/capacity", why);
}

// invalid/worker: a worker id past its region has no slot: trap, no write.
void InvalidWorker() {
  std::string why = Refused<AicRecorder>(kCube, 16, 16);
  if (!why.empty()) why = "AIC/" + Str(kCube) + ": " + why;
  if (why.empty()) {
    why = Refused<AivRecorder>(2 * kCube, 16, 16);
    if (!why.empty()) why = "AIV/" + Str(2 * kCube) + ": " + why;
  }
  Report("invalid/worker", why);
}

// reinit: Init starts over: after a refused Init, and after records.
void Reinit() {
  const uint32_t aic = 16, aiv = 16, block = 2;
  std::vector<uint8_t> buf(Size(aic, aiv), kFill);
  const uint64_t off = Offset(CoreType::AIV, block, aic, aiv);
  Reset(nullptr, 0);
  AivRecorder r;
  r.Init(block, buf.data(), 8, aiv);  // refused
  r.Init(block, buf.data(), aic, aiv);
  const Rec a = RecordFor(0), b = RecordFor(1);
  r.Record(a.desc, a.task, a.index, a.owner, a.start, a.end);
  r.Init(block, buf.data(), aic, aiv);  // a new launch on the same buffer
  const uint64_t entry = g_clock;
  r.Record(b.desc, b.task, b.index, b.owner, b.start, b.end);
  std::string why;
  if (g_traps != 1) why = "trapped " + Str(g_traps) + " times, want 1";
  if (why.empty()) why = HeaderProblem(&buf[off], entry, 1, 0, CoreType::AIV, block, aiv);
  if (why.empty() && std::memcmp(&buf[off + kHeaderBytes], Wire(b).data(), kRecordBytes) != 0) {
    why = "record 0 after the second Init is not the second launch's";
  }
  Report("reinit", why);
}

}  // namespace

int main() {
  OrderRecorder();
  OrderAppend();
  FullRecorder();
  FullZero();
  InvalidCapacity();
  InvalidWorker();
  Reinit();
  return failures == 0 ? 0 : 1;
}
