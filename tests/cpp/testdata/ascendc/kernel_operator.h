// A stand-in for the AscendC SDK's kernel_operator.h with only the names the
// header's CYCLEABI_ASCENDC preset uses: __aicore__, __gm__, PIPE_ALL (and
// its enum), AscendC::PipeBarrier, AscendC::GetSystemCycle, AscendC::Trap.
// The functions are declared and never defined, so the kernel's object file
// shows which of them it calls. clang++ plays __gm__ as an address space, so
// a pointer into the buffer that lost __gm__ does not compile.
#ifndef CYCLEABI_TEST_KERNEL_OPERATOR_H_
#define CYCLEABI_TEST_KERNEL_OPERATOR_H_

#include <stdint.h>

#if defined(__clang__)
#define __aicore__ __attribute__((annotate("aicore")))
#define __gm__ __attribute__((address_space(1)))
#else
#define __aicore__
#define __gm__
#endif

enum pipe_t { PIPE_ALL };

namespace AscendC {
template <pipe_t pipe>
__aicore__ void PipeBarrier();
__aicore__ int64_t GetSystemCycle();
__aicore__ void Trap();
}  // namespace AscendC

#endif  // CYCLEABI_TEST_KERNEL_OPERATOR_H_
