// harness: writes whole profiling buffers the way device kernels do, through
// the device-side helpers of the generated header and nothing else, and
// prints a manifest of what it wrote. The Go tests (tests/agreement) build it
// with every C++ compiler on PATH, run it, decode every capture with the Go
// decoders and require the records, counts and drops to equal the manifest.
//
// Usage: harness [--recorder] OUTDIR [SCENARIO...]
//
// The kernels write through the free functions (InitSlot, AppendRecord), or
// with --recorder through one cycleabi::BasicRecorder per core (Init,
// Record); both must write the same bytes. The header's hooks count what
// the writers do: two barriers per record written and none per drop, one
// barrier and one clock read per Recorder::Init (whose entry cycle is the
// clock), a trap exactly where a core has no slot.
//
// Writes OUTDIR/<scenario>.bin for each scenario (every scenario when none is
// named) and prints the manifest to stdout. A helper that disagrees with the
// harness's own model of the ABI (below) is reported on stderr and the
// harness exits 1; a bad command line exits 2.
//
// The manifest comes from the harness's model, not from reading the buffer
// back: the model is what a kernel asked the helpers to do (enter a slot,
// append a record), and the ABI's rules for what that must leave in memory
// (a record lands when record_count < record_capacity, otherwise
// dropped_count grows). Per capture:
//
//   capture NAME
//   file NAME.bin
//   layout cube_slots=C aic_capacity=A aiv_capacity=V size=BYTES
//   slot AIC/3 offset=O entry_cycle=E record_count=K dropped_count=D core_type=1 block_id=3 record_capacity=A reserved=0
//   record AIC/3 I start_cycle=S end_cycle=E desc_id=D task_id=T stage_task_index=X owner_id=W
//   totals live_slots=N records=R dropped=D
//   end
//
// One slot line per slot a core entered, in buffer order, each followed by
// its records in index order; slots not listed were never entered and must
// read as all zero.

#include <cstdint>

namespace {
uint64_t barriers_ = 0;
uint64_t clock_ = 0;
uint64_t clock_reads_ = 0;
uint64_t traps_ = 0;
uint64_t ReadClock() {
  ++clock_reads_;
  return clock_;
}
}  // namespace

#define CYCLEABI_BARRIER() (++barriers_)
#define CYCLEABI_NOW() ReadClock()
#define CYCLEABI_TRAP() (++traps_)
#include "cycleabi_abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using cycleabi::CoreHeader;
using cycleabi::CoreType;

const uint64_t kMaxU64 = ~static_cast<uint64_t>(0);
const uint32_t kMaxU32 = 0xFFFFFFFFu;

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

const char* TypeName(CoreType t) { return t == CoreType::AIC ? "AIC" : "AIV"; }

// The scenario being written, for messages.
std::string current_;

// Fail reports a helper that broke the ABI's rules and exits 1.
void Fail(const std::string& what) {
  std::fprintf(stderr, "harness: %s: %s\n", current_.c_str(), what.c_str());
  std::exit(1);
}

std::string Slot(CoreType t, uint32_t block) { return std::string(TypeName(t)) + "/" + std::to_string(block); }

// recorder_ is --recorder: the kernels write through BasicRecorder.
bool recorder_ = false;

// AnyRecorder is a BasicRecorder of any core type and cube slot count,
// which are template arguments, for a harness that writes as every core.
class AnyRecorder {
 public:
  virtual ~AnyRecorder() {}
  virtual void Init(uint32_t worker_id, uint8_t* buffer, uint32_t aic_capacity, uint32_t aiv_capacity) = 0;
  virtual bool Record(uint32_t desc_id, uint32_t task_id, uint32_t stage_task_index, uint32_t owner_id,
                      uint64_t start_cycle, uint64_t end_cycle) = 0;
};

template <CoreType kCoreType, uint32_t kCubeSlots>
class RecorderOf : public AnyRecorder {
 public:
  void Init(uint32_t worker_id, uint8_t* buffer, uint32_t aic_capacity, uint32_t aiv_capacity) override {
    r_.Init(worker_id, buffer, aic_capacity, aiv_capacity);
  }
  bool Record(uint32_t desc_id, uint32_t task_id, uint32_t stage_task_index, uint32_t owner_id, uint64_t start_cycle,
              uint64_t end_cycle) override {
    return r_.Record(desc_id, task_id, stage_task_index, owner_id, start_cycle, end_cycle);
  }

 private:
  cycleabi::BasicRecorder<kCoreType, kCubeSlots> r_;
};

template <uint32_t kCubeSlots>
AnyRecorder* NewRecorderFor(CoreType t) {
  if (t == CoreType::AIC) {
    return new RecorderOf<CoreType::AIC, kCubeSlots>();
  }
  return new RecorderOf<CoreType::AIV, kCubeSlots>();
}

// NewRecorder is the recorder of a core of type t in a buffer of cube_slots
// cube slots: every cube slot count a scenario uses is instantiated here.
AnyRecorder* NewRecorder(CoreType t, uint32_t cube_slots) {
  switch (cube_slots) {
    case cycleabi::kMinCubeSlots:
      return NewRecorderFor<cycleabi::kMinCubeSlots>(t);
    case 25:
      return NewRecorderFor<25>(t);
    case 40:
      return NewRecorderFor<40>(t);
  }
  Fail("no Recorder is instantiated for cube_slots " + std::to_string(cube_slots) + " (add it to NewRecorder)");
  return nullptr;
}

// Counters are the hooks' counts, to compare before and after a call.
struct Counters {
  uint64_t barriers, clock_reads, traps;
};
Counters Count() {
  Counters c = {barriers_, clock_reads_, traps_};
  return c;
}
// Since checks what the hooks saw since before: barriers, clock reads and
// traps; what names the call.
void Since(const Counters& before, uint64_t barriers, uint64_t clock_reads, uint64_t traps, const std::string& what) {
  if (barriers_ - before.barriers != barriers || clock_reads_ - before.clock_reads != clock_reads ||
      traps_ - before.traps != traps) {
    Fail(what + " passed " + std::to_string(barriers_ - before.barriers) + " barriers, read the clock " +
         std::to_string(clock_reads_ - before.clock_reads) + " times and trapped " +
         std::to_string(traps_ - before.traps) + " times; want " + std::to_string(barriers) + ", " +
         std::to_string(clock_reads) + " and " + std::to_string(traps));
  }
}

// RecordModel is one record as the kernel asked for it to be written.
struct RecordModel {
  uint64_t start_cycle;
  uint64_t end_cycle;
  uint32_t desc_id;
  uint32_t task_id;
  uint32_t stage_task_index;
  uint32_t owner_id;
};

// SlotModel is what a slot must hold after the kernel's calls.
struct SlotModel {
  bool entered;
  CoreType core_type;
  uint32_t block_id;
  uint64_t offset;
  uint64_t entry_cycle;
  uint32_t record_capacity;
  uint32_t dropped_count;
  std::vector<RecordModel> records;
};

// Capture is one profiling buffer being written, with the model of what it
// must hold.
class Capture {
 public:
  // Capture plans the buffer the way the host does: capacities are the
  // requirements rounded up by RoundUpCapacity, the size is BufferSize's.
  // The buffer starts zeroed, as the host hands it to the kernel.
  Capture(const char* name, uint32_t cube_slots, uint64_t aic_required, uint64_t aiv_required)
      : name_(name), cube_slots_(cube_slots), aic_capacity_(0), aiv_capacity_(0) {
    current_ = name;
    if (!cycleabi::RoundUpCapacity(aic_required, &aic_capacity_) ||
        !cycleabi::RoundUpCapacity(aiv_required, &aiv_capacity_)) {
      Fail("RoundUpCapacity refused a requirement below kMaxRecordsPerCore");
    }
    if (aic_capacity_ != (aic_required + 15) / 16 * 16 || aiv_capacity_ != (aiv_required + 15) / 16 * 16) {
      Fail("RoundUpCapacity did not round up to a multiple of 16");
    }
    // The harness's own arithmetic of the layout, independent of the
    // header's helpers: C AIC slots of 64 + 32*A bytes, then 2C AIV slots of
    // 64 + 32*V bytes.
    const uint64_t aic_stride = 64 + 32 * static_cast<uint64_t>(aic_capacity_);
    const uint64_t aiv_stride = 64 + 32 * static_cast<uint64_t>(aiv_capacity_);
    if (cycleabi::SlotStride(aic_capacity_) != aic_stride || cycleabi::SlotStride(aiv_capacity_) != aiv_stride) {
      Fail("SlotStride is not 64 + 32*capacity");
    }
    uint64_t size = 0;
    if (!cycleabi::BufferSize(cube_slots_, aic_capacity_, aiv_capacity_, &size)) {
      Fail("BufferSize refused a valid layout");
    }
    if (size != cube_slots_ * aic_stride + 2 * static_cast<uint64_t>(cube_slots_) * aiv_stride) {
      Fail("BufferSize is not C*(64+32A) + 2C*(64+32V)");
    }
    buffer_.assign(size, 0);
    for (uint32_t b = 0; b < cube_slots_; ++b) {
      slots_.push_back(Model(CoreType::AIC, b, b * aic_stride, aic_capacity_));
    }
    for (uint32_t b = 0; b < 2 * cube_slots_; ++b) {
      slots_.push_back(Model(CoreType::AIV, b, cube_slots_ * aic_stride + b * aiv_stride, aiv_capacity_));
    }
    recorders_.resize(slots_.size());
  }

  uint32_t cube_slots() const { return cube_slots_; }

  // Enter is a core's kernel entry: InitSlot on its slot, or Init of its
  // recorder, whose clock reads entry_cycle.
  void Enter(CoreType t, uint32_t block, uint64_t entry_cycle) {
    SlotModel& m = Find(t, block);
    const uint64_t offset =
        cycleabi::SlotOffset(t, block, cube_slots_, aic_capacity_, aiv_capacity_);
    if (offset != m.offset) {
      Fail("SlotOffset of " + Slot(t, block) + " is " + std::to_string(offset) + ", want " + std::to_string(m.offset));
    }
    const Counters before = Count();
    if (recorder_) {
      AnyRecorder* r = NewRecorder(t, cube_slots_);
      recorders_[Index(t, block)].reset(r);
      clock_ = entry_cycle;
      r->Init(block, buffer_.data(), aic_capacity_, aiv_capacity_);
      Since(before, 1, 1, 0, "Recorder::Init of " + Slot(t, block));
    } else {
      CoreHeader* header = cycleabi::InitSlot(buffer_.data(), t, block, cube_slots_, aic_capacity_, aiv_capacity_,
                                              entry_cycle);
      if (header != reinterpret_cast<CoreHeader*>(buffer_.data() + m.offset)) {
        Fail("InitSlot of " + Slot(t, block) + " did not return the header at its slot offset");
      }
      Since(before, 0, 0, 0, "InitSlot of " + Slot(t, block));
    }
    m.entered = true;
    m.entry_cycle = entry_cycle;
    m.dropped_count = 0;
    m.records.clear();
  }

  // EnterMissing is kernel entry on a core that has no slot: InitSlot must
  // return nullptr and write nothing; Recorder::Init must trap and write
  // nothing, and its Record too. (A core type that is not a CoreType has
  // no Recorder: BasicRecorder refuses it at compile time.)
  void EnterMissing(CoreType t, uint32_t block) {
    const std::vector<uint8_t> before = buffer_;
    if (recorder_ && (t == CoreType::AIC || t == CoreType::AIV)) {
      std::unique_ptr<AnyRecorder> r(NewRecorder(t, cube_slots_));
      const Counters counters = Count();
      r->Init(block, buffer_.data(), aic_capacity_, aiv_capacity_);
      if (r->Record(cycleabi::kRuntimeStageWaitDependency, 0, 0, 0, 1, 2)) {
        Fail("Record on " + Slot(t, block) + ", which has no slot, returned true");
      }
      Since(counters, 1, 1, 1, "Recorder::Init and Record of " + Slot(t, block) + ", which has no slot,");
    }
    if (cycleabi::InitSlot(buffer_.data(), t, block, cube_slots_, aic_capacity_, aiv_capacity_, kMaxU64) != nullptr) {
      Fail("InitSlot found a slot for " + Slot(t, block) + ", which the layout does not have");
    }
    if (cycleabi::SlotHeader(buffer_.data(), t, block, cube_slots_, aic_capacity_, aiv_capacity_) != nullptr) {
      Fail("SlotHeader found a slot for " + Slot(t, block));
    }
    if (buffer_ != before) {
      Fail("InitSlot wrote to the buffer for " + Slot(t, block) + ", which has no slot");
    }
  }

  // Append is one AppendRecord call by core (t, block) on its entered slot.
  void Append(CoreType t, uint32_t block, uint64_t start, uint64_t end, uint32_t desc, uint32_t task,
              uint32_t index, uint32_t owner) {
    SlotModel& m = Find(t, block);
    if (!m.entered) {
      Fail("the scenario appends to " + Slot(t, block) + " before entering it");
    }
    CoreHeader* header = cycleabi::SlotHeader(buffer_.data(), t, block, cube_slots_, aic_capacity_, aiv_capacity_);
    const bool fits = m.records.size() < m.record_capacity;
    const Counters before = Count();
    const bool written = recorder_ ? recorders_[Index(t, block)]->Record(desc, task, index, owner, start, end)
                                   : cycleabi::AppendRecord(header, start, end, desc, task, index, owner);
    Since(before, written ? 2 : 0, 0, 0, std::string(recorder_ ? "Record" : "AppendRecord") + " on " + Slot(t, block));
    if (written != fits) {
      Fail(std::string(recorder_ ? "Record" : "AppendRecord") + " on " + Slot(t, block) + " with " + std::to_string(m.records.size()) + " of " +
           std::to_string(m.record_capacity) + " records returned " + (written ? "true" : "false"));
    }
    if (fits) {
      RecordModel r = {start, end, desc, task, index, owner};
      m.records.push_back(r);
    } else {
      ++m.dropped_count;
    }
  }

  // Check reads every entered header back through the struct and compares
  // it with the model: the C++ side agrees with itself before Go looks.
  void Check() const {
    for (size_t i = 0; i < slots_.size(); ++i) {
      const SlotModel& m = slots_[i];
      if (!m.entered) {
        continue;
      }
      const CoreHeader* h = reinterpret_cast<const CoreHeader*>(buffer_.data() + m.offset);
      if (h->entry_cycle != m.entry_cycle || h->record_count != m.records.size() ||
          h->dropped_count != m.dropped_count || h->core_type != static_cast<uint32_t>(m.core_type) ||
          h->block_id != m.block_id || h->record_capacity != m.record_capacity || h->reserved != 0) {
        Fail("the header of " + Slot(m.core_type, m.block_id) + " differs from what the kernel wrote");
      }
    }
  }

  // Save writes the buffer to DIR/NAME.bin.
  void Save(const std::string& dir) const {
    const std::string path = dir + "/" + name_ + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(buffer_.data(), 1, buffer_.size(), f) != buffer_.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "harness: cannot write %s\n", path.c_str());
      std::exit(1);
    }
  }

  // PrintManifest prints the capture's manifest block (see the file comment).
  void PrintManifest() const {
    std::printf("capture %s\n", name_.c_str());
    std::printf("file %s.bin\n", name_.c_str());
    std::printf("layout cube_slots=%u aic_capacity=%u aiv_capacity=%u size=%llu\n", cube_slots_, aic_capacity_,
                aiv_capacity_, U(buffer_.size()));
    uint64_t live = 0, records = 0, dropped = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      const SlotModel& m = slots_[i];
      if (!m.entered) {
        continue;
      }
      ++live;
      records += m.records.size();
      dropped += m.dropped_count;
      const std::string slot = Slot(m.core_type, m.block_id);
      std::printf(
          "slot %s offset=%llu entry_cycle=%llu record_count=%u dropped_count=%u core_type=%u block_id=%u "
          "record_capacity=%u reserved=0\n",
          slot.c_str(), U(m.offset), U(m.entry_cycle), static_cast<uint32_t>(m.records.size()), m.dropped_count,
          static_cast<uint32_t>(m.core_type), m.block_id, m.record_capacity);
      for (size_t j = 0; j < m.records.size(); ++j) {
        const RecordModel& r = m.records[j];
        std::printf(
            "record %s %u start_cycle=%llu end_cycle=%llu desc_id=%u task_id=%u stage_task_index=%u owner_id=%u\n",
            slot.c_str(), static_cast<uint32_t>(j), U(r.start_cycle), U(r.end_cycle), r.desc_id, r.task_id,
            r.stage_task_index, r.owner_id);
      }
    }
    std::printf("totals live_slots=%llu records=%llu dropped=%llu\n", U(live), U(records), U(dropped));
    std::printf("end\n");
  }

 private:
  static SlotModel Model(CoreType t, uint32_t block, uint64_t offset, uint32_t capacity) {
    SlotModel m;
    m.entered = false;
    m.core_type = t;
    m.block_id = block;
    m.offset = offset;
    m.entry_cycle = 0;
    m.record_capacity = capacity;
    m.dropped_count = 0;
    return m;
  }

  // Index is the slot's index in slots_ and recorders_.
  size_t Index(CoreType t, uint32_t block) const {
    const uint64_t count = t == CoreType::AIC ? cube_slots_ : 2 * static_cast<uint64_t>(cube_slots_);
    if (block >= count) {
      Fail("the scenario names " + Slot(t, block) + ", which the layout does not have");
    }
    return t == CoreType::AIC ? block : static_cast<size_t>(cube_slots_) + block;
  }

  SlotModel& Find(CoreType t, uint32_t block) { return slots_[Index(t, block)]; }

  std::string name_;
  uint32_t cube_slots_;
  uint32_t aic_capacity_;
  uint32_t aiv_capacity_;
  std::vector<uint8_t> buffer_;
  std::vector<SlotModel> slots_;
  std::vector<std::unique_ptr<AnyRecorder> > recorders_;  // one per slot, with --recorder
};

const uint32_t kNoOwner = cycleabi::kInvalidOwnerID;

uint32_t Task(cycleabi::TaskType t) { return cycleabi::TaskTypeDescId(t); }

// Task writes what a task's core records for one task: an optional wait,
// the compute, and a trigger unless the task type emits none.
void TaskRecords(Capture* c, CoreType t, uint32_t block, uint64_t* now, cycleabi::TaskType type, uint32_t task_id,
                 uint32_t index, uint32_t owner, bool waits) {
  if (waits) {
    c->Append(t, block, *now, *now + 40, cycleabi::kRuntimeStageWaitDependency, task_id, index, owner);
    *now += 40;
  }
  c->Append(t, block, *now, *now + 1000 + 13 * task_id, Task(type), task_id, index, owner);
  *now += 1000 + 13 * task_id;
  if (type != cycleabi::TaskType::ShmemPutMemSignal) {
    c->Append(t, block, *now, *now + 5, cycleabi::kRuntimeStageTriggerEvent, task_id, index, owner);
    *now += 5;
  }
}

// Scenario gold (committed as testdata/gold.bin): a little of everything in
// one small buffer. Both core types with different capacities, idle slots,
// a slot entered without records, a full slot with drops, the first and last
// slot of each region, every descriptor namespace and an id outside them.
void Gold(Capture* c) {
  const uint32_t cube = c->cube_slots();
  c->Enter(CoreType::AIC, 0, 1000000);
  uint64_t now = 1000100;
  TaskRecords(c, CoreType::AIC, 0, &now, cycleabi::TaskType::MatMul, 1, 0, kNoOwner, true);
  TaskRecords(c, CoreType::AIC, 0, &now, cycleabi::TaskType::GroupedMatMul, 2, 0, 3, true);
  // AIC/5 overflows its slot: the appends past the capacity are dropped.
  c->Enter(CoreType::AIC, 5, 1000020);
  now = 1000200;
  for (uint32_t i = 0; i < 37; ++i) {
    c->Append(CoreType::AIC, 5, now, now + 900, Task(cycleabi::TaskType::GroupedMatMul), 10 + i, i, i % 4);
    now += 1000;
  }
  // The last AIC slot enters and records nothing.
  c->Enter(CoreType::AIC, cube - 1, 1000500);
  // AIV/0 enters first: the anchor.
  c->Enter(CoreType::AIV, 0, 999990);
  now = 1000000;
  c->Append(CoreType::AIV, 0, now, now + 300, cycleabi::GraphStageDescId(5), 20, 0, 7);
  c->Append(CoreType::AIV, 0, now + 300, now + 600, Task(cycleabi::TaskType::SwiGLU), 21, 1, 7);
  c->Append(CoreType::AIV, 0, now + 600, now + 600, 0x50000, 22, 0, kNoOwner);  // outside every namespace
  c->Append(CoreType::AIV, 0, now + 700, now + 710, cycleabi::kRuntimeStageTerminateTask, 23, 0, kNoOwner);
  // A middle AIV slot runs a remote put (no trigger record) and a get.
  c->Enter(CoreType::AIV, 17, 1000300);
  now = 1000400;
  TaskRecords(c, CoreType::AIV, 17, &now, cycleabi::TaskType::ShmemPutMemSignal, 30, 0, kNoOwner, true);
  TaskRecords(c, CoreType::AIV, 17, &now, cycleabi::TaskType::ShmemGetMem, 31, 0, kNoOwner, false);
  // The last AIV slot.
  c->Enter(CoreType::AIV, 2 * cube - 1, 1001000);
  now = 1001100;
  TaskRecords(c, CoreType::AIV, 2 * cube - 1, &now, cycleabi::TaskType::RmsNorm, 40, 2, kNoOwner, false);
  // Cores with no slot: nothing is written.
  c->EnterMissing(CoreType::AIC, cube);
  c->EnterMissing(CoreType::AIV, 2 * cube);
  c->EnterMissing(static_cast<CoreType>(0), 0);
  c->EnterMissing(static_cast<CoreType>(3), 0);
}

// Scenario every-core: every slot of both regions enters and records 1 to 4
// tasks' worth of records; no slot is idle.
void EveryCore(Capture* c) {
  const uint32_t cube = c->cube_slots();
  for (uint32_t b = 0; b < cube; ++b) {
    c->Enter(CoreType::AIC, b, 5000000 + 7 * b);
    uint64_t now = 5000100 + 3 * b;
    for (uint32_t k = 0; k <= b % 4; ++k) {
      TaskRecords(c, CoreType::AIC, b, &now, cycleabi::TaskType::MatMul, 100 * b + k, k, b, k % 2 == 1);
    }
  }
  for (uint32_t b = 0; b < 2 * cube; ++b) {
    c->Enter(CoreType::AIV, b, 5000000 + 11 * b);
    uint64_t now = 5000200 + 5 * b;
    for (uint32_t k = 0; k <= b % 3; ++k) {
      TaskRecords(c, CoreType::AIV, b, &now, cycleabi::TaskType::AddCustom, 1000 + 100 * b + k, k, kNoOwner, k == 0);
    }
  }
}

// Scenario aiv-pipeline: the AIV-pipeline layout, AIC capacity 0. Every AIV
// core runs the whole stage sequence; AIC cores that enter anyway can only
// drop (record_count 0, dropped_count > 0).
void AivPipeline(Capture* c) {
  const uint32_t cube = c->cube_slots();
  const cycleabi::TaskType stages[] = {cycleabi::TaskType::RmsNorm, cycleabi::TaskType::MhcInputMix,
                                       cycleabi::TaskType::MhcProjection, cycleabi::TaskType::MhcPost,
                                       cycleabi::TaskType::SwiGLU};
  for (uint32_t b = 0; b < 2 * cube; ++b) {
    c->Enter(CoreType::AIV, b, 20000 + b);
    uint64_t now = 20100 + b;
    for (uint32_t s = 0; s < 5; ++s) {
      c->Append(CoreType::AIV, b, now, now + 500 + s, Task(stages[s]), s, b, kNoOwner);
      now += 600;
    }
  }
  c->Enter(CoreType::AIC, 0, 20000);
  c->Append(CoreType::AIC, 0, 20010, 20020, Task(cycleabi::TaskType::MatMul), 0, 0, kNoOwner);
  c->Enter(CoreType::AIC, cube - 1, 0);
  for (uint32_t i = 0; i < 3; ++i) {
    c->Append(CoreType::AIC, cube - 1, 1, 2, cycleabi::kRuntimeStageWaitDependency, i, i, i);
  }
}

// Scenario full-slots: slots exactly full (no drop), one record over, and
// far over; plus one ordinary slot.
void FullSlots(Capture* c) {
  const uint32_t cube = c->cube_slots();
  struct Core {
    CoreType type;
    uint32_t block;
    uint32_t appends;
  };
  const Core cores[] = {
      {CoreType::AIC, 0, 16},          // exactly full
      {CoreType::AIC, 1, 17},          // one dropped
      {CoreType::AIV, 0, 1},           // ordinary
      {CoreType::AIV, 2 * cube - 1, 1016},  // 1000 dropped
  };
  for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); ++i) {
    const Core& k = cores[i];
    c->Enter(k.type, k.block, 700000 + i);
    uint64_t now = 700100 + 10 * i;
    for (uint32_t n = 0; n < k.appends; ++n) {
      c->Append(k.type, k.block, now, now + 7, cycleabi::GraphStageDescId(n % 9), n, n, static_cast<uint32_t>(i));
      now += 8;
    }
  }
}

// Scenarios cube-25 and cube-40: cube slot counts other than the minimum,
// one of them odd; the first and last slot of each region and one between.
void OtherCubeSlots(Capture* c) {
  const uint32_t cube = c->cube_slots();
  const uint32_t aic[] = {0, cube / 2, cube - 1};
  const uint32_t aiv[] = {0, cube, 2 * cube - 1};
  for (uint32_t i = 0; i < 3; ++i) {
    uint64_t now = 3000000 + 50000 * i;
    c->Enter(CoreType::AIC, aic[i], now);
    TaskRecords(c, CoreType::AIC, aic[i], &now, cycleabi::TaskType::MatMul, aic[i], i, aic[i], true);
    c->Enter(CoreType::AIV, aiv[i], now);
    TaskRecords(c, CoreType::AIV, aiv[i], &now, cycleabi::TaskType::SwiGLUGrad, 500 + aiv[i], i, kNoOwner, true);
    TaskRecords(c, CoreType::AIV, aiv[i], &now, cycleabi::TaskType::RmsNormGrad, 600 + aiv[i], i, kNoOwner, false);
  }
  c->EnterMissing(CoreType::AIC, cube);
  c->EnterMissing(CoreType::AIV, 2 * cube);
}

// Scenario extremes: every field at its edges. Cycles at 0 and near 2^64
// (end >= start throughout), entry_cycle 0 and 2^64-1, ids 0 and 0xFFFFFFFF.
void Extremes(Capture* c) {
  const uint32_t cube = c->cube_slots();
  // entry_cycle 0 on a live slot: the header is still not all zero.
  c->Enter(CoreType::AIC, 0, 0);
  c->Append(CoreType::AIC, 0, 0, 0, 0, 0, 0, 0);
  c->Append(CoreType::AIC, 0, 0, kMaxU64, kMaxU32, kMaxU32, kMaxU32, kMaxU32);
  c->Append(CoreType::AIC, 0, kMaxU64, kMaxU64, cycleabi::kRuntimeStageWaitDependency, kMaxU32, 0, kNoOwner);
  c->Enter(CoreType::AIC, cube - 1, kMaxU64);
  c->Append(CoreType::AIC, cube - 1, kMaxU64 - 0xFFFFFFFFull, kMaxU64 - 1, Task(cycleabi::TaskType::MatMul), 1, kMaxU32, 0);
  c->Append(CoreType::AIC, cube - 1, kMaxU64 - 1, kMaxU64, cycleabi::kRuntimeStageTriggerEvent, 1, kMaxU32, 0);
  c->Enter(CoreType::AIV, 0, 1ull << 63);
  c->Append(CoreType::AIV, 0, (1ull << 63) - 1, 1ull << 63, cycleabi::GraphStageDescId(0xFFFF), 0x80000000u, 0x7FFFFFFFu,
            0x80000000u);
  c->Append(CoreType::AIV, 0, 1ull << 32, (1ull << 32) + 1, cycleabi::kGraphStageBase - 1, 2, 3, kMaxU32 - 1);
  c->Enter(CoreType::AIV, 2 * cube - 1, kMaxU64 - 1);
  for (uint32_t i = 0; i < 16; ++i) {
    c->Append(CoreType::AIV, 2 * cube - 1, kMaxU64 - 16 + i, kMaxU64 - 16 + i, Task(cycleabi::TaskType::ShmemGetMem) + i,
              kMaxU32 - i, i, i == 0 ? kMaxU32 : i);
  }
}

// Scenario sparse: only one middle AIV slot enters. AIC/0 and AIV/0 are
// idle, so the capacities cannot be read from the buffer: it decodes only
// with the host's planned capacities.
void Sparse(Capture* c) {
  c->Enter(CoreType::AIV, 31, 424242);
  uint64_t now = 424300;
  TaskRecords(c, CoreType::AIV, 31, &now, cycleabi::TaskType::MhcGradPrevAAndMapping, 9, 4, 12, true);
}

struct Scenario {
  const char* name;
  uint32_t cube_slots;
  uint64_t aic_required;  // rounded up by RoundUpCapacity
  uint64_t aiv_required;
  void (*write)(Capture*);
};

const Scenario kScenarios[] = {
    {"gold", cycleabi::kMinCubeSlots, 20, 9, Gold},
    {"every-core", cycleabi::kMinCubeSlots, 16, 16, EveryCore},
    {"aiv-pipeline", cycleabi::kMinCubeSlots, 0, 5, AivPipeline},
    {"full-slots", cycleabi::kMinCubeSlots, 16, 16, FullSlots},
    {"cube-25", 25, 7, 33, OtherCubeSlots},
    {"cube-40", 40, 48, 16, OtherCubeSlots},
    {"extremes", cycleabi::kMinCubeSlots, 3, 16, Extremes},
    {"sparse", cycleabi::kMinCubeSlots, 1, 17, Sparse},
};

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && std::strcmp(argv[1], "--recorder") == 0) {
    recorder_ = true;
    first = 2;
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: harness [--recorder] OUTDIR [SCENARIO...]\n");
    return 2;
  }
  const std::string dir = argv[first];
  const size_t count = sizeof(kScenarios) / sizeof(kScenarios[0]);
  std::vector<const Scenario*> chosen;
  for (int i = first + 1; i < argc; ++i) {
    const Scenario* found = nullptr;
    for (size_t j = 0; j < count; ++j) {
      if (std::strcmp(argv[i], kScenarios[j].name) == 0) {
        found = &kScenarios[j];
      }
    }
    if (found == nullptr) {
      std::fprintf(stderr, "harness: no scenario %s\n", argv[i]);
      return 2;
    }
    chosen.push_back(found);
  }
  if (chosen.empty()) {
    for (size_t j = 0; j < count; ++j) {
      chosen.push_back(&kScenarios[j]);
    }
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    const Scenario& s = *chosen[i];
    Capture c(s.name, s.cube_slots, s.aic_required, s.aiv_required);
    s.write(&c);
    c.Check();
    c.Save(dir);
    c.PrintManifest();
  }
  return 0;
}
