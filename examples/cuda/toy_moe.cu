// toy_moe: the host side of examples/cuda's toy MegaKernel (the kernel is
// toy_moe_kernel.cuh). It reads a task table (go run
// ./examples/cuda/tasktable SCHEDULE), runs the persistent kernel with one
// block per table block, and:
//
//   toy_moe capture TABLE OUT.bin   runs the schedule once recording (after
//                                   a warm-up run) and writes the buffer,
//                                   the capture
//   toy_moe time TABLE RUNS         times RUNS launches recording off and on,
//                                   interleaved: medians and the slowdown
//   toy_moe bench                   ns per Record (and per bare loop)
//   toy_moe live TABLE LAUNCHES     the buffer in mapped host memory, read by
//                                   a host thread while the kernel runs;
//                                   every published record checked field by
//                                   field against the table (build with
//                                   -DCYCLEABI_CUDA_SYSTEM_SCOPE)
//   toy_moe hang TABLE OUT.bin [TASK]
//                                   a kernel that hangs: TASK's trigger (by
//                                   default the table's first) is withheld,
//                                   so the cores waiting on its event wait
//                                   forever; the host copies the buffer from
//                                   mapped host memory while the kernel is
//                                   stuck, writes it, and lets the waits give
//                                   up (the cores stop where they are) so the
//                                   process can end (the live build)
//
// Every result is a line "result KEY VALUE" (scripts/gpu-check.sh reads
// them); errors go to stderr with exit status 1. Built as a shared library
// with -DTOY_MOE_LIBRARY it exports toy_moe_capture(table, out) instead of
// main, for harness.py (torch.profiler).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I gen/cpp -o toy_moe examples/cuda/toy_moe.cu
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <algorithm>

#include <cuda_runtime.h>

#include "toy_moe_kernel.cuh"

namespace {

const unsigned long long kWaitTimeoutNS = 1000000000ull;  // 1 s: a wait that never ends is a bug
const int kThreadsPerBlock = 32;

struct Failure {
  std::string what;
};

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw Failure{std::string(what) + ": " + cudaGetErrorString(e)};
  }
}

// Table is a task table as tasktable writes it.
struct Table {
  uint32_t cube_slots = 0, aic_capacity = 0, aiv_capacity = 0;
  unsigned long long buffer_bytes = 0;
  std::vector<uint32_t> event_ids, event_triggers;
  std::vector<ToyBlock> blocks;
  std::vector<ToyOp> ops;
};

Table ReadTable(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) {
    throw Failure{std::string(path) + ": cannot open"};
  }
  Table t;
  auto bad = [&](const char* what) {
    std::fclose(f);
    return Failure{std::string(path) + ": not a task table (" + what + "); write one with go run ./examples/cuda/tasktable"};
  };
  int version = 0;
  unsigned n = 0;
  if (std::fscanf(f, " cycleabi-cuda-tasktable %d", &version) != 1 || version != 1) throw bad("header");
  if (std::fscanf(f, " layout %u %u %u %llu", &t.cube_slots, &t.aic_capacity, &t.aiv_capacity, &t.buffer_bytes) != 4)
    throw bad("layout");
  if (std::fscanf(f, " events %u", &n) != 1 || n > (1u << 24)) throw bad("events");
  for (unsigned i = 0; i < n; ++i) {
    unsigned id = 0, triggers = 0;
    if (std::fscanf(f, " event %u %u", &id, &triggers) != 2) throw bad("event");
    t.event_ids.push_back(id);
    t.event_triggers.push_back(triggers);
  }
  if (std::fscanf(f, " blocks %u", &n) != 1 || n > 4096) throw bad("blocks");
  for (unsigned i = 0; i < n; ++i) {
    ToyBlock b{};
    if (std::fscanf(f, " block %u %u %u", &b.core_type, &b.block_id, &b.num_ops) != 3 || b.num_ops > (1u << 24))
      throw bad("block");
    b.first_op = static_cast<uint32_t>(t.ops.size());
    for (uint32_t j = 0; j < b.num_ops; ++j) {
      ToyOp o{};
      if (std::fscanf(f, " op %u %d %u %u %u %u %u", &o.kind, &o.event, &o.work_ns, &o.desc_id, &o.task_id,
                      &o.stage_task_index, &o.owner_id) != 7 ||
          o.kind > kToySignal || o.event >= static_cast<int>(t.event_ids.size()) || o.event < -1)
        throw bad("op");
      t.ops.push_back(o);
    }
    t.blocks.push_back(b);
  }
  std::fclose(f);
  if (t.cube_slots != TOY_CUBE_SLOTS) {
    throw Failure{std::string(path) + ": planned for " + std::to_string(t.cube_slots) +
                  " cube slots; this build has TOY_CUBE_SLOTS " + std::to_string(TOY_CUBE_SLOTS)};
  }
  uint64_t size = 0;
  if (!cycleabi::BufferSize(t.cube_slots, t.aic_capacity, t.aiv_capacity, &size) || size != t.buffer_bytes) {
    throw Failure{std::string(path) + ": the layout's size is not the header's BufferSize"};
  }
  return t;
}

// Device holds the table on the GPU and runs the kernel.
struct Device {
  const Table& t;
  ToyBlock* blocks = nullptr;
  ToyOp* ops = nullptr;
  uint32_t* triggers = nullptr;
  uint32_t* counts = nullptr;
  uint32_t* timeouts = nullptr;
  cudaEvent_t begin{}, end{};

  explicit Device(const Table& table) : t(table) {
    int sms = 0, per_sm = 0;
    Check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    Check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, MegaKernel_toy_moe<true>, kThreadsPerBlock, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (static_cast<long>(sms) * per_sm < static_cast<long>(t.blocks.size())) {
      throw Failure{"the GPU holds " + std::to_string(sms * per_sm) + " resident blocks, the table needs " +
                    std::to_string(t.blocks.size()) + " (they wait on each other)"};
    }
    Check(cudaMalloc(&blocks, t.blocks.size() * sizeof(ToyBlock)), "cudaMalloc");
    Check(cudaMalloc(&ops, std::max<size_t>(1, t.ops.size()) * sizeof(ToyOp)), "cudaMalloc");
    const size_t ne = std::max<size_t>(1, t.event_triggers.size());
    Check(cudaMalloc(&triggers, ne * sizeof(uint32_t)), "cudaMalloc");
    Check(cudaMalloc(&counts, ne * sizeof(uint32_t)), "cudaMalloc");
    Check(cudaMalloc(&timeouts, sizeof(uint32_t)), "cudaMalloc");
    Check(cudaMemcpy(blocks, t.blocks.data(), t.blocks.size() * sizeof(ToyBlock), cudaMemcpyHostToDevice), "copy");
    if (!t.ops.empty()) Check(cudaMemcpy(ops, t.ops.data(), t.ops.size() * sizeof(ToyOp), cudaMemcpyHostToDevice), "copy");
    if (!t.event_triggers.empty())
      Check(cudaMemcpy(triggers, t.event_triggers.data(), t.event_triggers.size() * sizeof(uint32_t),
                       cudaMemcpyHostToDevice),
            "copy");
    Check(cudaMemset(timeouts, 0, sizeof(uint32_t)), "cudaMemset");
    Check(cudaEventCreate(&begin), "cudaEventCreate");
    Check(cudaEventCreate(&end), "cudaEventCreate");
  }
  ~Device() {
    cudaFree(blocks);
    cudaFree(ops);
    cudaFree(triggers);
    cudaFree(counts);
    cudaFree(timeouts);
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }

  // Run launches the kernel once on buffer (a device pointer; unused
  // without recording) and returns its time in µs.
  double Run(uint8_t* buffer, bool record) {
    Check(cudaMemset(counts, 0, std::max<size_t>(1, t.event_triggers.size()) * sizeof(uint32_t)), "cudaMemset");
    ToyParams p{blocks, ops, triggers, counts, buffer, t.aic_capacity, t.aiv_capacity, timeouts, kWaitTimeoutNS,
                -1, 0};
    Check(cudaEventRecord(begin), "cudaEventRecord");
    if (record) {
      MegaKernel_toy_moe<true><<<static_cast<unsigned>(t.blocks.size()), kThreadsPerBlock>>>(p);
    } else {
      MegaKernel_toy_moe<false><<<static_cast<unsigned>(t.blocks.size()), kThreadsPerBlock>>>(p);
    }
    Check(cudaGetLastError(), "launch");
    Check(cudaEventRecord(end), "cudaEventRecord");
    Check(cudaEventSynchronize(end), "kernel");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    uint32_t n = 0;
    Check(cudaMemcpy(&n, timeouts, sizeof(n), cudaMemcpyDeviceToHost), "copy");
    if (n != 0) {
      throw Failure{std::to_string(n) + " waits timed out: the table's events never fired"};
    }
    return ms * 1000.0;
  }
};

// Capture runs the schedule recording (after a warm-up run when warm_up)
// and writes the buffer to out_path.
void Capture(const char* table_path, const char* out_path, bool warm_up) {
  Table t = ReadTable(table_path);
  Device d(t);
  uint8_t* buffer = nullptr;
  Check(cudaMalloc(&buffer, t.buffer_bytes), "cudaMalloc");
  if (warm_up) {
    d.Run(buffer, true);
  }
  Check(cudaMemset(buffer, 0, t.buffer_bytes), "cudaMemset");
  const double us = d.Run(buffer, true);
  std::vector<uint8_t> host(t.buffer_bytes);
  Check(cudaMemcpy(host.data(), buffer, t.buffer_bytes, cudaMemcpyDeviceToHost), "copy");
  cudaFree(buffer);
  FILE* f = std::fopen(out_path, "wb");
  if (f == nullptr || std::fwrite(host.data(), 1, host.size(), f) != host.size() || std::fclose(f) != 0) {
    throw Failure{std::string(out_path) + ": cannot write"};
  }
  std::printf("result capture_bytes %zu\nresult capture_kernel_us %.1f\n", host.size(), us);
}

#ifndef TOY_MOE_LIBRARY
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

#if defined(CYCLEABI_PUBLISH_AT_EXIT)
const char* const kModeName = "at-exit";
#elif defined(CYCLEABI_PUBLISH_EVERY_K)
const std::string kModeName = "every-" + std::to_string(CYCLEABI_PUBLISH_EVERY_K);
#else
const char* const kModeName = "every-record";
#endif

#ifdef CYCLEABI_CUDA_SYSTEM_SCOPE
const char* const kScopeName = "system";
#else
const char* const kScopeName = "gpu";
#endif

void Time(const char* table_path, int runs) {
  Table t = ReadTable(table_path);
  Device d(t);
  uint8_t* buffer = nullptr;
  Check(cudaMalloc(&buffer, t.buffer_bytes), "cudaMalloc");
  std::vector<double> off, on;
  for (int i = 0; i < 3; ++i) {  // warm-up
    d.Run(buffer, false);
    d.Run(buffer, true);
  }
  for (int i = 0; i < runs; ++i) {
    off.push_back(d.Run(buffer, false));
    on.push_back(d.Run(buffer, true));
  }
  cudaFree(buffer);
  const double a = Median(off), b = Median(on);
  std::printf("result off_us %.1f\nresult on_us %.1f\nresult slowdown_pct %.2f\n", a, b, (b - a) / a * 100.0);
}

void Bench() {
  const uint32_t blocks = 3 * TOY_CUBE_SLOTS, capacity = 1024, passes = 16;
  uint64_t size = 0;
  cycleabi::BufferSize(TOY_CUBE_SLOTS, capacity, capacity, &size);
  uint8_t* buffer = nullptr;
  unsigned long long *ns = nullptr, *sink = nullptr;
  Check(cudaMalloc(&buffer, size), "cudaMalloc");
  Check(cudaMalloc(&ns, blocks * sizeof(unsigned long long)), "cudaMalloc");
  Check(cudaMalloc(&sink, blocks * sizeof(unsigned long long)), "cudaMalloc");
  auto run = [&](bool record) {
    std::vector<double> per;
    for (int rep = 0; rep < 5; ++rep) {
      if (record) {
        ToyRecordBench<true><<<blocks, kThreadsPerBlock>>>(buffer, capacity, passes, ns, sink);
      } else {
        ToyRecordBench<false><<<blocks, kThreadsPerBlock>>>(buffer, capacity, passes, ns, sink);
      }
      Check(cudaGetLastError(), "launch");
      Check(cudaDeviceSynchronize(), "bench kernel");
      std::vector<unsigned long long> h(blocks);
      Check(cudaMemcpy(h.data(), ns, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "copy");
      double sum = 0;
      for (unsigned long long v : h) sum += static_cast<double>(v);
      per.push_back(sum / blocks / (static_cast<double>(capacity) * passes));
    }
    return Median(per);
  };
  const double bare = run(false), rec = run(true);
  std::printf("result bare_loop_ns %.1f\nresult record_loop_ns %.1f\nresult record_ns %.1f\n", bare, rec, rec - bare);
  cudaFree(buffer);
  cudaFree(ns);
  cudaFree(sink);
}

// Live runs launches kernels on a buffer in mapped host memory while a host
// thread reads it: each record whose count is published is checked field
// by field against the table.
void Live(const char* table_path, int launches) {
  Table t = ReadTable(table_path);
  Device d(t);
  uint8_t* host = nullptr;
  Check(cudaHostAlloc(reinterpret_cast<void**>(&host), t.buffer_bytes, cudaHostAllocMapped), "cudaHostAlloc");
  uint8_t* dev = nullptr;
  Check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0), "cudaHostGetDevicePointer");
  const uint32_t nblocks = static_cast<uint32_t>(t.blocks.size());
  std::vector<uint64_t> offsets(nblocks);
  std::vector<uint32_t> capacity(nblocks);
  for (uint32_t b = 0; b < nblocks; ++b) {
    const cycleabi::CoreType ct = static_cast<cycleabi::CoreType>(t.blocks[b].core_type);
    offsets[b] = cycleabi::SlotOffset(ct, t.blocks[b].block_id, t.cube_slots, t.aic_capacity, t.aiv_capacity);
    capacity[b] = cycleabi::RecordCapacity(ct, t.aic_capacity, t.aiv_capacity);
  }
  unsigned long long checked = 0, live = 0, incomplete = 0;
  std::string first_bad;
  for (int launch = 0; launch < launches; ++launch) {
    std::memset(host, 0xA5, t.buffer_bytes);  // a field not yet written reads 0xA5...
    std::vector<uint32_t> seen(nblocks, 0);
    std::atomic<bool> done(false);
    auto sweep = [&](bool during) {
      for (uint32_t b = 0; b < nblocks; ++b) {
        const volatile uint8_t* slot = host + offsets[b];
        const uint32_t count = *reinterpret_cast<const volatile uint32_t*>(slot + offsetof(cycleabi::CoreHeader, record_count));
        if (count > capacity[b] || count <= seen[b]) {
          continue;  // not initialised yet (0xA5A5A5A5), or nothing new
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        for (uint32_t i = seen[b]; i < count; ++i) {
          const volatile cycleabi::ProfileRecord* r =
              reinterpret_cast<const volatile cycleabi::ProfileRecord*>(slot + sizeof(cycleabi::CoreHeader)) + i;
          const ToyOp& want = t.ops[t.blocks[b].first_op + i];
          const uint64_t start = r->start_cycle, end = r->end_cycle;
          const bool ok = i < t.blocks[b].num_ops && r->desc_id == want.desc_id && r->task_id == want.task_id &&
                          r->stage_task_index == want.stage_task_index && r->owner_id == want.owner_id &&
                          start <= end && end != 0xA5A5A5A5A5A5A5A5ull;
          if (!ok) {
            ++incomplete;
            if (first_bad.empty()) {
              first_bad = "launch " + std::to_string(launch) + " block " + std::to_string(b) + " record " +
                          std::to_string(i) + " of " + std::to_string(count);
            }
          }
          ++checked;
          live += during ? 1 : 0;
        }
        seen[b] = count;
      }
    };
    std::thread reader([&] {
      while (!done.load(std::memory_order_acquire)) {
        sweep(true);
      }
    });
    try {
      d.Run(dev, true);
    } catch (...) {
      done.store(true, std::memory_order_release);
      reader.join();
      throw;
    }
    done.store(true, std::memory_order_release);
    reader.join();
    sweep(false);  // what the reader had not reached when the kernel ended
  }
  cudaFreeHost(host);
  std::printf("result live_records_checked %llu\nresult live_records_seen_running %llu\nresult live_incomplete %llu\n",
              checked, live, incomplete);
  if (!first_bad.empty()) {
    std::fprintf(stderr, "toy_moe live: first incomplete record: %s\n", first_bad.c_str());
  }
}

// Hang runs the schedule once with task's trigger withheld (task < 0: the
// table's first trigger), on a buffer in mapped host memory: the host
// copies the buffer while the kernel is stuck, writes it to out_path, and
// reports the task and how many cores the hang stopped.
void Hang(const char* table_path, const char* out_path, long task) {
  // The host reads the buffer kReadAfterMS into the launch, while the waits
  // on the withheld trigger still spin; they give up at kGiveUpNS, long
  // after the rest of the schedule (about a millisecond) has finished.
  const unsigned kReadAfterMS = 1000;
  const unsigned long long kGiveUpNS = 3000000000ull;
  Table t = ReadTable(table_path);
  bool found = false;
  for (const ToyOp& op : t.ops) {
    if (op.kind == kToyTrigger && op.event >= 0 && (task < 0 || op.task_id == static_cast<uint32_t>(task))) {
      task = op.task_id;
      found = true;
      break;
    }
  }
  if (!found) {
    throw Failure{"task " + std::to_string(task) + " sends no trigger the table can withhold"};
  }
  Device d(t);
  uint8_t* host = nullptr;
  Check(cudaHostAlloc(reinterpret_cast<void**>(&host), t.buffer_bytes, cudaHostAllocMapped), "cudaHostAlloc");
  uint8_t* dev = nullptr;
  Check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0), "cudaHostGetDevicePointer");
  std::memset(host, 0, t.buffer_bytes);  // zeroed before the launch: no stale slot
  Check(cudaMemset(d.counts, 0, std::max<size_t>(1, t.event_triggers.size()) * sizeof(uint32_t)), "cudaMemset");
  ToyParams p{d.blocks, d.ops, d.triggers, d.counts, dev, t.aic_capacity, t.aiv_capacity, d.timeouts, kGiveUpNS,
              static_cast<int32_t>(task), 1};
  MegaKernel_toy_moe<true><<<static_cast<unsigned>(t.blocks.size()), kThreadsPerBlock>>>(p);
  Check(cudaGetLastError(), "launch");
  Check(cudaEventRecord(d.end), "cudaEventRecord");
  std::this_thread::sleep_for(std::chrono::milliseconds(kReadAfterMS));
  const bool stuck = cudaEventQuery(d.end) == cudaErrorNotReady;
  std::atomic_thread_fence(std::memory_order_acquire);
  std::vector<uint8_t> copy(host, host + t.buffer_bytes);  // what a debugger would read off the stuck kernel
  Check(cudaEventSynchronize(d.end), "kernel");
  uint32_t stopped = 0;
  Check(cudaMemcpy(&stopped, d.timeouts, sizeof(stopped), cudaMemcpyDeviceToHost), "copy");
  cudaFreeHost(host);
  FILE* f = std::fopen(out_path, "wb");
  if (f == nullptr || std::fwrite(copy.data(), 1, copy.size(), f) != copy.size() || std::fclose(f) != 0) {
    throw Failure{std::string(out_path) + ": cannot write"};
  }
  std::printf("result hang_task %ld\nresult hang_read_while_stuck %d\nresult hang_cores_stopped %u\n", task,
              stuck ? 1 : 0, stopped);
}

#endif  // TOY_MOE_LIBRARY

}  // namespace

#ifdef TOY_MOE_LIBRARY
// toy_moe_capture is Capture for harness.py: 0 on success, 1 with the
// error on stderr.
extern "C" int toy_moe_capture(const char* table_path, const char* out_path, int warm_up) {
  try {
    Capture(table_path, out_path, warm_up != 0);
    std::fflush(stdout);
    return 0;
  } catch (const Failure& f) {
    std::fprintf(stderr, "toy_moe: %s\n", f.what.c_str());
    return 1;
  }
}
#else
int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  // Mapped host memory (live): needed before the context exists on systems
  // without unified addressing, harmless elsewhere.
  cudaSetDeviceFlags(cudaDeviceMapHost);
  cudaGetLastError();
  try {
    std::printf("result mode %s\nresult scope %s\n", std::string(kModeName).c_str(), kScopeName);
    if (cmd == "capture" && argc == 4) {
      Capture(argv[2], argv[3], true);
    } else if (cmd == "time" && argc == 4) {
      Time(argv[2], std::max(1, std::atoi(argv[3])));
    } else if (cmd == "bench" && argc == 2) {
      Bench();
    } else if (cmd == "live" && argc == 4) {
      Live(argv[2], std::max(1, std::atoi(argv[3])));
    } else if (cmd == "hang" && (argc == 4 || argc == 5)) {
      Hang(argv[2], argv[3], argc == 5 ? std::atol(argv[4]) : -1);
    } else {
      std::fprintf(stderr,
                   "usage: toy_moe capture TABLE OUT.bin | time TABLE RUNS | bench | live TABLE LAUNCHES | "
                   "hang TABLE OUT.bin [TASK]\n");
      return 2;
    }
  } catch (const Failure& f) {
    std::fprintf(stderr, "toy_moe %s: %s\n", cmd.c_str(), f.what.c_str());
    return 1;
  }
  return 0;
}
#endif
