// A stand-in for the few CUDA names the header's CYCLEABI_CUDA preset and
// examples/cuda's kernel use, for clang's device-only compile without a CUDA
// installation (-nocudainc -nocudalib): the qualifiers as clang's
// attributes, __trap, and the thread and block indices, fences and atomics
// as clang's NVPTX builtins. nvcc provides the real ones.
#ifndef CYCLEABI_TEST_CUDA_RUNTIME_STANDIN_H_
#define CYCLEABI_TEST_CUDA_RUNTIME_STANDIN_H_

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))

__device__ inline void __trap() { __builtin_trap(); }

struct cycleabi_standin_uint3 {
  unsigned int x, y, z;
};
#define threadIdx \
  (cycleabi_standin_uint3{static_cast<unsigned int>(__nvvm_read_ptx_sreg_tid_x()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_tid_y()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_tid_z())})
#define blockIdx \
  (cycleabi_standin_uint3{static_cast<unsigned int>(__nvvm_read_ptx_sreg_ctaid_x()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_ctaid_y()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_ctaid_z())})
#define blockDim \
  (cycleabi_standin_uint3{static_cast<unsigned int>(__nvvm_read_ptx_sreg_ntid_x()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_ntid_y()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_ntid_z())})
#define gridDim \
  (cycleabi_standin_uint3{static_cast<unsigned int>(__nvvm_read_ptx_sreg_nctaid_x()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_nctaid_y()), static_cast<unsigned int>(__nvvm_read_ptx_sreg_nctaid_z())})

// __syncthreads is a clang builtin in CUDA mode.
__device__ inline void __threadfence() { __nvvm_membar_gl(); }
__device__ inline void __threadfence_system() { __nvvm_membar_sys(); }
__device__ inline unsigned int atomicAdd(unsigned int* p, unsigned int v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

#endif  // CYCLEABI_TEST_CUDA_RUNTIME_STANDIN_H_
