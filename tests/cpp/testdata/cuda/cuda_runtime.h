// A stand-in for CUDA's cuda_runtime.h with only what examples/cuda's host
// program uses, declared as the CUDA runtime declares it, for clang's
// compile of examples/cuda/toy_moe.cu without a CUDA installation: the
// device names (cuda_runtime_standin.h), the runtime calls and the kernel
// launch's configuration call. Never linked.
#ifndef CYCLEABI_TEST_CUDA_RUNTIME_H_
#define CYCLEABI_TEST_CUDA_RUNTIME_H_

#include <stddef.h>

#include "cuda_runtime_standin.h"

enum cudaError { cudaSuccess = 0, cudaErrorSetOnActiveProcess = 36, cudaErrorNotReady = 600 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUstream_st* cudaStream_t;
#define cudaHostAllocMapped 0x02
#define cudaDeviceMapHost 0x08

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

extern "C" {
__host__ cudaError_t cudaMalloc(void** devPtr, size_t size);
__host__ cudaError_t cudaFree(void* devPtr);
__host__ cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemset(void* devPtr, int value, size_t count);
__host__ cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags);
__host__ cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
__host__ cudaError_t cudaFreeHost(void* ptr);
__host__ cudaError_t cudaSetDeviceFlags(unsigned int flags);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaGetLastError(void);
__host__ const char* cudaGetErrorString(cudaError_t error);
__host__ cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize);
__host__ cudaError_t cudaEventCreate(cudaEvent_t* event);
__host__ cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
__host__ cudaError_t cudaEventQuery(cudaEvent_t event);
__host__ cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t event);
__host__ cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t sharedMem,
                                      cudaStream_t stream);
// The launch's configuration call: clang without a CUDA installation
// assumes a CUDA version that calls cudaConfigureCall; newer ones call
// __cudaPushCallConfiguration.
__host__ cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t sharedMem = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t sharedMem = 0, void* stream = 0);
}

// The C++ overloads cuda_runtime.h adds.
template <class T>
static inline __host__ cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(devPtr), size);
}
template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T func, int blockSize,
                                                                                size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                       dynamicSMemSize);
}

#endif  // CYCLEABI_TEST_CUDA_RUNTIME_H_
