package cppgen

import "github.com/megakernel/cycleabi/internal/abigen/schema"

// The CUDA preset and the publish modes: the hooks a CUDA kernel needs
// (the qualifiers, %globaltimer, __trap, a release store of record_count
// and no full barrier), the helpers they call, and the compile-time choice
// of when Record publishes record_count.

/*
#ifdef CYCLEABI_CUDA
#ifndef CYCLEABI_FN
#define CYCLEABI_FN __host__ __device__ __forceinline__
#endif
...
#endif  // CYCLEABI_CUDA
*/
func (g *gen) genCUDAPreset() {
	g.comment("", "The CUDA preset: every qualifier and hook as a CUDA kernel needs them (nvcc provides the names; the preset includes nothing). Each one already defined is kept. Publishing is one release store of record_count at GPU scope, or at system scope with CYCLEABI_CUDA_SYSTEM_SCOPE (a buffer in mapped host memory, read while the kernel runs); Now() reads %globaltimer with no barrier before it. Needs sm_70 or newer.")
	g.P("#ifdef CYCLEABI_CUDA")
	g.defines([][2]string{
		{"CYCLEABI_FN", "__host__ __device__ __forceinline__"},
		{"CYCLEABI_PUBLISH_STORE(p, n)", "cycleabi::cuda::ReleaseStore((p), (n))"},
		{"CYCLEABI_NOW_BARRIER()", "((void)0)"},
		{"CYCLEABI_NOW()", "cycleabi::cuda::GlobalTimer()"},
		{"CYCLEABI_TRAP()", "cycleabi::cuda::Trap()"},
	})
	g.P("#endif  // CYCLEABI_CUDA")
	g.P("")
}

/*
#if defined(CYCLEABI_PUBLISH_EVERY_RECORD) + ... > 1
#error ...
#endif
*/
func (g *gen) genPublishMode() {
	g.P("#if defined(CYCLEABI_PUBLISH_EVERY_RECORD) + defined(CYCLEABI_PUBLISH_EVERY_K) + defined(CYCLEABI_PUBLISH_AT_EXIT) > 1")
	g.P("#error \"%s: define at most one of CYCLEABI_PUBLISH_EVERY_RECORD, CYCLEABI_PUBLISH_EVERY_K and CYCLEABI_PUBLISH_AT_EXIT\"", HeaderFile)
	g.P("#endif")
}

/*
#if defined(CYCLEABI_PUBLISH_AT_EXIT)
constexpr uint32_t kPublishInterval = 0;
...
#ifdef CYCLEABI_CUDA
namespace cuda { GlobalTimer, Trap, ReleaseStore }
#endif
*/
func (g *gen) genPublishHelpers() {
	g.Declare("kPublishInterval", "the publish mode", schema.Pos{})
	g.Declare("cuda", "the CUDA preset's helpers", schema.Pos{})
	g.P("")
	g.P("// Publishing.")
	g.P("")
	g.comment("", "kPublishInterval is the publish mode: Record publishes record_count after every kPublishInterval-th record of a slot, 1 by default (every record), K with CYCLEABI_PUBLISH_EVERY_K K, and 0 with CYCLEABI_PUBLISH_AT_EXIT (only Flush publishes).")
	g.P("#if defined(CYCLEABI_PUBLISH_AT_EXIT)")
	g.P("constexpr uint32_t kPublishInterval = 0;")
	g.P("#elif defined(CYCLEABI_PUBLISH_EVERY_K)")
	g.P("static_assert(0 + CYCLEABI_PUBLISH_EVERY_K + 0 >= 1, \"CYCLEABI_PUBLISH_EVERY_K: define it as K, a number of records >= 1\");")
	g.P("constexpr uint32_t kPublishInterval = CYCLEABI_PUBLISH_EVERY_K;")
	g.P("#else")
	g.P("constexpr uint32_t kPublishInterval = 1;")
	g.P("#endif")
	g.P("")
	g.P("#ifdef CYCLEABI_CUDA")
	g.P("namespace cuda {")
	g.P("")
	g.comment("", "GlobalTimer reads %globaltimer, the GPU's nanosecond timer (decode it with --soc nvidia: 1000 MHz); 0 in host code.")
	for _, l := range []string{
		"CYCLEABI_FN uint64_t GlobalTimer() {",
		"#ifdef __CUDA_ARCH__",
		"  uint64_t t;",
		`  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");`,
		"  return t;",
		"#else",
		"  return 0;",
		"#endif",
		"}",
		"",
	} {
		g.P("%s", l)
	}
	g.comment("", "Trap stops the kernel (__trap()); it does nothing in host code.")
	for _, l := range []string{
		"CYCLEABI_FN void Trap() {",
		"#ifdef __CUDA_ARCH__",
		"  __trap();",
		"#endif",
		"}",
		"",
	} {
		g.P("%s", l)
	}
	g.comment("", "ReleaseStore stores n to *p after every memory access of this thread before it is visible: st.release at GPU scope (other blocks, and the host after the kernel), or at system scope under CYCLEABI_CUDA_SYSTEM_SCOPE (the host while the kernel runs). In host code it is a release store.")
	for _, l := range []string{
		"CYCLEABI_FN void ReleaseStore(CYCLEABI_GM uint32_t* p, uint32_t n) {",
		"#if defined(__CUDA_ARCH__) && defined(CYCLEABI_CUDA_SYSTEM_SCOPE)",
		`  asm volatile("st.release.sys.u32 [%0], %1;" : : "l"(p), "r"(n) : "memory");`,
		"#elif defined(__CUDA_ARCH__)",
		`  asm volatile("st.release.gpu.u32 [%0], %1;" : : "l"(p), "r"(n) : "memory");`,
		"#elif defined(__GNUC__)",
		"  __atomic_store_n(p, n, __ATOMIC_RELEASE);",
		"#else",
		"  *p = n;",
		"#endif",
		"}",
		"",
		"}  // namespace cuda",
		"#endif  // CYCLEABI_CUDA",
	} {
		g.P("%s", l)
	}
}
