// layout_check: a host program that answers layout and writer questions
// through the generated header, so the Go tests can compare the C++ helpers
// with the Go side number for number and byte for byte.
//
// Usage: layout_check COMMAND... where each command is a word and its
// arguments; every command prints one line, "<command and arguments> = <answer>":
//
//   stride CAP              SlotStride(CAP)
//   valid CAP               IsValidCapacity(CAP): true or false
//   roundup REQ             RoundUpCapacity(REQ): the capacity, or error
//   size C A V              BufferSize(C, A, V): bytes, or error
//   slot T B C A V          SlotOffset(CoreType(T), B, C, A, V): bytes, or none
//   write T B C A V N       fill a whole buffer with 0xA5, InitSlot the slot
//                           of core (T, B) and AppendRecord N records (record
//                           i as in recordFor); prints
//                           "appended A dropped D count K outside O slot HEX":
//                           A appends that returned true, the header's
//                           dropped_count D and record_count K, O bytes changed
//                           outside the slot, HEX the slot's bytes.
//   wrap                    AppendRecord on a full slot whose dropped_count is
//                           0xFFFFFFFF: prints "dropped D appended A".
//
// Numbers are decimal or 0x hex. A malformed command exits 2.

#include "cycleabi_abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using cycleabi::CoreHeader;
using cycleabi::CoreType;

const uint8_t kFill = 0xA5;

int argc_;
char** argv_;
int next_;

uint64_t Arg() {
  if (next_ >= argc_) {
    std::fprintf(stderr, "layout_check: missing argument\n");
    std::exit(2);
  }
  const char* s = argv_[next_++];
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 0);
  if (*s == '\0' || *end != '\0') {
    std::fprintf(stderr, "layout_check: bad number %s\n", s);
    std::exit(2);
  }
  return v;
}

uint32_t Arg32() {
  const uint64_t v = Arg();
  if (v > 0xFFFFFFFFu) {
    std::fprintf(stderr, "layout_check: %llu does not fit in 32 bits\n", static_cast<unsigned long long>(v));
    std::exit(2);
  }
  return static_cast<uint32_t>(v);
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

// AppendFor appends the write command's i-th record, counting it in *appended
// when it fits; the Go test builds the same records.
void AppendFor(CYCLEABI_GM CoreHeader* header, uint32_t i, uint32_t* appended) {
  const uint64_t start = 1000000007ull * (i + 1);
  if (cycleabi::AppendRecord(header, start, start + 17ull * i, cycleabi::kTaskTypeBase + i, 7 * i, i,
                             i % 2 == 1 ? cycleabi::kInvalidOwnerID : i)) {
    ++*appended;
  }
}

void Write() {
  const CoreType type = static_cast<CoreType>(Arg32());
  const uint32_t block = Arg32(), cube = Arg32(), aic = Arg32(), aiv = Arg32(), n = Arg32();
  std::printf("write %u %u %u %u %u %u = ", static_cast<uint32_t>(type), block, cube, aic, aiv, n);
  uint64_t size = 0;
  if (!cycleabi::BufferSize(cube, aic, aiv, &size)) {
    std::printf("error\n");
    return;
  }
  std::vector<uint8_t> buffer(size, kFill);
  CoreHeader* header = cycleabi::InitSlot(buffer.data(), type, block, cube, aic, aiv, 0x1122334455667788ull + block);
  if (header == nullptr) {
    std::printf("none\n");
    return;
  }
  uint32_t appended = 0;
  for (uint32_t i = 0; i < n; ++i) {
    AppendFor(header, i, &appended);
  }
  const uint64_t offset = cycleabi::SlotOffset(type, block, cube, aic, aiv);
  const uint64_t stride = cycleabi::SlotStride(cycleabi::RecordCapacity(type, aic, aiv));
  uint64_t outside = 0;
  for (uint64_t i = 0; i < size; ++i) {
    if ((i < offset || i >= offset + stride) && buffer[i] != kFill) {
      ++outside;
    }
  }
  std::printf("appended %u dropped %u count %u outside %llu slot ", appended, header->dropped_count,
              header->record_count, U(outside));
  for (uint64_t i = offset; i < offset + stride; ++i) {
    std::printf("%02x", buffer[i]);
  }
  std::printf("\n");
}

void Wrap() {
  std::vector<uint8_t> slot(cycleabi::SlotStride(0), kFill);
  CoreHeader* header = reinterpret_cast<CoreHeader*>(slot.data());
  cycleabi::InitCoreHeader(header, 1, CoreType::AIC, 0, 0);
  header->dropped_count = 0xFFFFFFFFu;
  uint32_t appended = 0;
  AppendFor(header, 0, &appended);
  std::printf("wrap = dropped %u appended %u\n", header->dropped_count, appended);
}

}  // namespace

int main(int argc, char** argv) {
  argc_ = argc;
  argv_ = argv;
  next_ = 1;
  while (next_ < argc_) {
    const char* cmd = argv_[next_++];
    if (std::strcmp(cmd, "stride") == 0) {
      const uint32_t cap = Arg32();
      std::printf("stride %u = %llu\n", cap, U(cycleabi::SlotStride(cap)));
    } else if (std::strcmp(cmd, "valid") == 0) {
      const uint64_t cap = Arg();
      std::printf("valid %llu = %s\n", U(cap), cycleabi::IsValidCapacity(cap) ? "true" : "false");
    } else if (std::strcmp(cmd, "roundup") == 0) {
      const uint64_t req = Arg();
      uint32_t cap = 0;
      if (cycleabi::RoundUpCapacity(req, &cap)) {
        std::printf("roundup %llu = %u\n", U(req), cap);
      } else {
        std::printf("roundup %llu = error\n", U(req));
      }
    } else if (std::strcmp(cmd, "size") == 0) {
      const uint32_t cube = Arg32(), aic = Arg32(), aiv = Arg32();
      uint64_t size = 0;
      if (cycleabi::BufferSize(cube, aic, aiv, &size)) {
        std::printf("size %u %u %u = %llu\n", cube, aic, aiv, U(size));
      } else {
        std::printf("size %u %u %u = error\n", cube, aic, aiv);
      }
    } else if (std::strcmp(cmd, "slot") == 0) {
      const uint32_t type = Arg32(), block = Arg32(), cube = Arg32(), aic = Arg32(), aiv = Arg32();
      const uint64_t off = cycleabi::SlotOffset(static_cast<CoreType>(type), block, cube, aic, aiv);
      if (off == cycleabi::kNoSlot) {
        std::printf("slot %u %u %u %u %u = none\n", type, block, cube, aic, aiv);
      } else {
        std::printf("slot %u %u %u %u %u = %llu\n", type, block, cube, aic, aiv, U(off));
      }
    } else if (std::strcmp(cmd, "write") == 0) {
      Write();
    } else if (std::strcmp(cmd, "wrap") == 0) {
      Wrap();
    } else {
      std::fprintf(stderr, "layout_check: unknown command %s\n", cmd);
      return 2;
    }
  }
  return 0;
}
