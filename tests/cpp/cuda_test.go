package cpp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CUDA preset and the publish modes (docs/cuda.md): a host-side model
// of each mode's publish order (TestPublishModes), and the PTX each mode
// compiles to, from clang's CUDA device compile without a CUDA installation
// (TestCUDAPresetPTX).

const (
	publishCheck   = "testdata/publish_check.cpp"
	cudaDir        = "testdata/cuda"
	cudaStandin    = cudaDir + "/cuda_runtime_standin.h"
	cudaKernels    = cudaDir + "/recorder_kernels.cu"
	requireCUDAEnv = "CYCLEABI_REQUIRE_CUDA_CLANG"
)

// publishMode is a publish mode as a kernel chooses it (defines) and as
// the test models it: Record publishes after every interval-th record, 0
// meaning only Flush does.
type publishMode struct {
	name     string
	defines  []string
	interval int
}

var publishModes = []publishMode{
	{"every-record", nil, 1},
	{"every-record-explicit", []string{"-DCYCLEABI_PUBLISH_EVERY_RECORD"}, 1},
	{"every-16", []string{"-DCYCLEABI_PUBLISH_EVERY_K=16"}, 16},
	{"every-5", []string{"-DCYCLEABI_PUBLISH_EVERY_K=5"}, 5},
	{"at-exit", []string{"-DCYCLEABI_PUBLISH_AT_EXIT"}, 0},
}

// wantPublishLog is what publish_check must print for records records in
// a slot of capacity capacity, computed from the modes' promises: Init
// reads the clock (behind a barrier where the hooks have one); Record
// publishes count n when the mode says so and the record was written; Flush
// publishes what Record left unpublished; AppendRecord publishes every
// record it writes. barrier says whether CYCLEABI_BARRIER() logs (the
// default hooks) or is left out (the CUDA preset).
func wantPublishLog(m publishMode, barrier bool, records, capacity int) (recorder, appendLog string) {
	pub := func(n int) string {
		if barrier {
			return fmt.Sprintf(" B P%d B", n)
		}
		return fmt.Sprintf(" P%d", n)
	}
	publishes := func(n int) bool { return m.interval != 0 && n%m.interval == 0 }
	var r, a strings.Builder
	r.WriteString("recorder")
	if barrier {
		r.WriteString(" B")
	}
	r.WriteString(" N")
	a.WriteString("append")
	for i := 1; i <= records; i++ {
		r.WriteString(" R")
		a.WriteString(" R")
		if i <= capacity {
			if publishes(i) {
				r.WriteString(pub(i))
			}
			a.WriteString(pub(i))
		}
	}
	r.WriteString(" F")
	if n := min(records, capacity); !publishes(n) {
		r.WriteString(pub(n))
	}
	return r.String(), a.String()
}

// runPublishCheck builds publish_check against the header in includeDir
// with defines and runs it for each scenario; it returns the lines printed
// per scenario.
func runPublishCheck(t *testing.T, cxx cxxtest.Compiler, includeDir string, defines []string, scenarios [][2]int) [][]string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "publish_check")
	args := append([]string{"-O2", "-I", includeDir}, defines...)
	cxx.Compile(t, "c++11", append(args, "-o", exe, publishCheck)...)
	var out [][]string
	for _, sc := range scenarios {
		b, err := exec.Command(exe, strconv.Itoa(sc[0]), strconv.Itoa(sc[1])).Output()
		_, exited := err.(*exec.ExitError)
		require.Falsef(t, err != nil && !exited, "%v", err)
		out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	}
	return out
}

// publishScenarios are (records, capacity): a partial batch, a slot filled
// exactly, and a slot that drops records.
var publishScenarios = [][2]int{{37, 48}, {48, 48}, {60, 48}, {0, 16}}

// TestPublishModes builds publish_check in every publish mode, with the
// default hooks (a barrier that logs) and with the CUDA preset's host pass
// (which defines no barrier), and holds its log to the order each mode
// promises, computed here: Record publishes count n after record n is
// complete and only where the mode says, Flush publishes the rest,
// AppendRecord publishes every record in every mode, and the CUDA preset
// puts no barrier before the clock or around the publish. The buffer's
// bytes after Flush are the same in every mode, and DynamicRecorder (core
// type at run time) writes the bytes BasicRecorder<AIV> does.
func TestPublishModes(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	bytes := map[int]string{}
	for _, preset := range []struct {
		name    string
		defines []string
		barrier bool
	}{{"default-hooks", nil, true}, {"cuda-preset", []string{"-DCUDA_PRESET"}, false}} {
		for _, m := range publishModes {
			name := preset.name + "/" + m.name
			outs := runPublishCheck(t, cxx, genCpp, append(append([]string(nil), preset.defines...), m.defines...), publishScenarios)
			for i, sc := range publishScenarios {
				lines := outs[i]
				wantR, wantA := wantPublishLog(m, preset.barrier, sc[0], sc[1])
				if len(lines) != 4 || lines[0] != wantR || lines[1] != wantA || lines[3] != "ok" {
					assert.Fail(t, fmt.Sprintf("%s, %d records in %d: publish_check printed\n%s\nwant\n%s\n%s\n(bytes)\nok", name, sc[0], sc[1], strings.Join(lines, "\n"), wantR, wantA))
					continue
				}
				if b, ok := bytes[i]; !ok {
					bytes[i] = lines[2]
				} else {
					assert.Equalf(t, b, lines[2], "%s, %d records in %d: the buffer differs from the every-record mode's", name, sc[0], sc[1])
				}
			}
		}
	}
}

// publishMutants break one promise each in a copy of the header;
// TestPublishModes's model must then reject the mode named.
var publishMutants = []struct {
	name, old, new string
	mode           publishMode
}{{
	name: "Flush never publishes",
	old:  "    if (header_ != nullptr && !detail::PublishesAt(count_)) {\n",
	new:  "    if (false) {\n",
	mode: publishModes[4],
}, {
	name: "every K publishes every record",
	old:  "    if (detail::PublishesAt(count_)) {\n",
	new:  "    if (true) {\n",
	mode: publishModes[2],
}, {
	name: "the count published before the record's last field",
	old:  "  record->owner_id = owner_id;\n}\n",
	new:  "  CYCLEABI_PUBLISH_STORE(&header->record_count, index + 1);\n  record->owner_id = owner_id;\n}\n",
	mode: publishModes[3],
}}

func TestPublishModeMutants(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	header := committedHeader(t)
	for _, m := range publishMutants {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			dir := mutatedHeader(t, header, m.old, m.new)
			sc := publishScenarios[0]
			lines := runPublishCheck(t, cxx, dir, m.mode.defines, [][2]int{sc})[0]
			wantR, wantA := wantPublishLog(m.mode, true, sc[0], sc[1])
			assert.Falsef(t, len(lines) == 4 && lines[0] == wantR && lines[1] == wantA && lines[3] == "ok", "the model accepted the mutant in mode %s", m.mode.name)
		})
	}
}

// TestPublishModeErrors: two publish modes at once, or a K below 1, stop
// the compile with a message that names the macro.
func TestPublishModeErrors(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	for _, c := range []struct {
		defines []string
		want    string
	}{
		{[]string{"-DCYCLEABI_PUBLISH_EVERY_K=16", "-DCYCLEABI_PUBLISH_AT_EXIT"}, "define at most one of"},
		{[]string{"-DCYCLEABI_PUBLISH_EVERY_RECORD", "-DCYCLEABI_PUBLISH_AT_EXIT"}, "define at most one of"},
		{[]string{"-DCYCLEABI_PUBLISH_EVERY_K=0"}, "CYCLEABI_PUBLISH_EVERY_K: define it as K"},
		{[]string{"-DCYCLEABI_PUBLISH_EVERY_K="}, "CYCLEABI_PUBLISH_EVERY_K: define it as K"},
	} {
		src := filepath.Join(t.TempDir(), "mode.cpp")
		require.NoError(t, os.WriteFile(src, []byte("#include \"cycleabi_abi.h\"\n"), 0o644))
		out, err := cxx.Try("c++11", append(append([]string{"-I", genCpp}, c.defines...), "-fsyntax-only", src)...)
		assert.Errorf(t, err, "%s: want a message with %q:\n%s", strings.Join(c.defines, " "), c.want, out)
		assert.Containsf(t, out, c.want, "%s", strings.Join(c.defines, " "))
	}
}

// cudaClang is a clang that compiles CUDA for an NVIDIA GPU, and the
// newest GPU it knows of the ones the test asks for.
type cudaClang struct {
	path, arch string
}

// findCUDAClang finds the clang the PTX test uses: the first of
// clang++-19 ... clang++-16 and clang++ that compiles CUDA for sm_90 (the
// H100/H200's architecture, clang 16 or newer), else for sm_86 (clang 14,
// Debian 12's default, stops there). None skips the test, or fails it when
// CYCLEABI_REQUIRE_CUDA_CLANG is set (.ci/run sets it).
func findCUDAClang(t *testing.T) cudaClang {
	t.Helper()
	src := filepath.Join(t.TempDir(), "probe.cu")
	require.NoError(t, os.WriteFile(src, []byte("__attribute__((global)) void probe() {}\n"), 0o644))
	for _, arch := range []string{"sm_90", "sm_86"} {
		for _, name := range []string{"clang++-19", "clang++-18", "clang++-17", "clang++-16", "clang++"} {
			p, err := exec.LookPath(name)
			if err != nil {
				continue
			}
			if exec.Command(p, cudaArgs(arch, "-o", os.DevNull, src)...).Run() == nil {
				return cudaClang{p, arch}
			}
		}
	}
	msg := "no clang on PATH compiles CUDA for sm_90 or sm_86 (install clang-16 or newer, e.g. apt-get install clang-19)"
	require.Emptyf(t, os.Getenv(requireCUDAEnv), "%s and %s is set", msg, requireCUDAEnv)
	t.Skip(msg)
	return cudaClang{}
}

// cudaArgs are the flags of a device-only CUDA compile to PTX without a
// CUDA installation.
func cudaArgs(arch string, rest ...string) []string {
	return append([]string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=" + arch,
		"-std=c++11", "-O2", "-Wall", "-Wextra", "-Werror", "-S"}, rest...)
}

// ptxEntries splits PTX into its kernels' bodies, by name.
func ptxEntries(ptx string) map[string]string {
	out := map[string]string{}
	parts := regexp.MustCompile(`\.entry (\w+)\(`).FindAllStringSubmatchIndex(ptx, -1)
	for i, p := range parts {
		end := len(ptx)
		if i+1 < len(parts) {
			end = parts[i+1][0]
		}
		out[ptx[p[2]:p[3]]] = ptx[p[0]:end]
	}
	return out
}

// compilePTX compiles file for the GPU with the header and the CUDA
// stand-in, and returns the PTX.
func compilePTX(t *testing.T, cc cudaClang, file string, defines ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.ptx")
	args := cudaArgs(cc.arch, append(append([]string{"-include", cudaStandin, "-I", genCpp}, defines...), "-o", out, file)...)
	b, err := exec.Command(cc.path, args...).CombinedOutput()
	require.NoErrorf(t, err, "%s %s\n%s", cc.path, strings.Join(args, " "), b)
	ptx, err := os.ReadFile(out)
	require.NoError(t, err)
	return string(ptx)
}

// TestCUDAPresetPTX compiles testdata/cuda/recorder_kernels.cu under the
// CUDA preset in each publish mode with clang (device only, against a
// stand-in for the CUDA names the preset uses) and reads each kernel's PTX:
// the clock is %globaltimer with no fence; a bad layout traps; Record
// publishes with exactly one st.release.gpu per record in the every-record
// mode, only behind the K test in the every-K mode (one record does not
// publish) and never at exit, where Flush does; with
// CYCLEABI_CUDA_SYSTEM_SCOPE the store is st.release.sys. No mode emits a
// fence (membar/fence) unless the kernel defines CYCLEABI_BARRIER itself.
func TestCUDAPresetPTX(t *testing.T) {
	cc := findCUDAClang(t)
	t.Logf("%s --cuda-gpu-arch=%s", cc.path, cc.arch)
	release := regexp.MustCompile(`st\.release\.(gpu|sys)\.u32`)
	fence := regexp.MustCompile(`\b(membar|fence)\.`)
	// Release stores per kernel; many is at least one (a compiler may
	// unroll record_many's loop) or none.
	const many = -1
	type want struct{ recordOne, recordMany, flushOnly int }
	cases := []struct {
		name    string
		defines []string
		scope   string
		fences  bool
		want    want
	}{
		{"every-record", nil, "gpu", false, want{1, many, 0}},
		{"every-16", []string{"-DCYCLEABI_PUBLISH_EVERY_K=16"}, "gpu", false, want{0, many, 0}},
		{"at-exit", []string{"-DCYCLEABI_PUBLISH_AT_EXIT"}, "gpu", false, want{0, 0, 1}},
		{"every-record/system-scope", []string{"-DCYCLEABI_CUDA_SYSTEM_SCOPE"}, "sys", false, want{1, many, 0}},
		{"at-exit/system-scope", []string{"-DCYCLEABI_PUBLISH_AT_EXIT", "-DCYCLEABI_CUDA_SYSTEM_SCOPE"}, "sys", false, want{0, 0, 1}},
		{"every-record/kernel's barrier", []string{"-DCYCLEABI_BARRIER()=__threadfence_system()"}, "gpu", true, want{1, many, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			entries := ptxEntries(compilePTX(t, cc, cudaKernels, c.defines...))
			for _, k := range []struct {
				name string
				n    int
			}{{"record_one", c.want.recordOne}, {"record_many", c.want.recordMany}, {"flush_only", c.want.flushOnly}} {
				body, ok := entries[k.name]
				require.Truef(t, ok, "no kernel %s in the PTX", k.name)
				stores := release.FindAllStringSubmatch(body, -1)
				assert.Falsef(t, k.n == many && len(stores) == 0, "%s: %d release stores of record_count, want %d (-1: at least one)", k.name, len(stores), k.n)
				assert.Falsef(t, k.n != many && len(stores) != k.n, "%s: %d release stores of record_count, want %d (-1: at least one)", k.name, len(stores), k.n)
				for _, s := range stores {
					assert.Equalf(t, c.scope, s[1], "%s: %s: scope", k.name, s[0])
				}
				assert.Containsf(t, body, "trap;", "%s: no trap for a bad layout", k.name)
				assert.Equalf(t, (c.fences && k.n != 0), fence.MatchString(body), "%s: fence in the PTX, want %v", k.name, c.fences && k.n != 0)
			}
			now := entries["now_only"]
			require.Equalf(t, 2, strings.Count(now, "%globaltimer"), "now_only: want two reads of %%globaltimer and no fence:\n%s", now)
			assert.Falsef(t, fence.MatchString(now), "now_only: want two reads of %%globaltimer and no fence:\n%s", now)
		})
	}
}

// TestCUDAExample compiles examples/cuda/toy_moe.cu, the toy MegaKernel
// scripts/gpu-check.sh runs, with clang against stand-ins for the CUDA
// names and runtime calls it uses (testdata/cuda/cuda_runtime.h): the
// device side to PTX and the host side, in every publish mode and as the
// harness's shared library. The recording kernel publishes with
// st.release (at exit once, from Flush; at system scope for the live
// build); the kernel that does not record has no release store.
func TestCUDAExample(t *testing.T) {
	cc := findCUDAClang(t)
	const example = "../../examples/cuda/toy_moe.cu"
	release := regexp.MustCompile(`st\.release\.(gpu|sys)\.u32`)
	for _, c := range []struct {
		name    string
		defines []string
		scope   string
		exact   int // release stores in the recording kernel; 0: at least one
	}{
		{"every-record", nil, "gpu", 0},
		{"every-16", []string{"-DCYCLEABI_PUBLISH_EVERY_K=16"}, "gpu", 0},
		{"at-exit", []string{"-DCYCLEABI_PUBLISH_AT_EXIT"}, "gpu", 1},
		{"live", []string{"-DCYCLEABI_CUDA_SYSTEM_SCOPE"}, "sys", 0},
		{"library", []string{"-DTOY_MOE_LIBRARY"}, "gpu", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			defines := append([]string{"-std=c++17", "-I", cudaDir, "-I", "../../examples/cuda"}, c.defines...)
			entries := ptxEntries(compilePTX(t, cc, example, defines...))
			on, off := entries["_Z18MegaKernel_toy_moeILb1EEv9ToyParams"], entries["_Z18MegaKernel_toy_moeILb0EEv9ToyParams"]
			require.NotEmptyf(t, on, "the PTX lacks MegaKernel_toy_moe<true> or <false>: kernels %v", keysOf(entries))
			require.NotEmptyf(t, off, "the PTX lacks MegaKernel_toy_moe<true> or <false>: kernels %v", keysOf(entries))
			stores := release.FindAllStringSubmatch(on, -1)
			require.NotEmptyf(t, stores, "MegaKernel_toy_moe<true>: %d release stores, want %d (0: at least one)", len(stores), c.exact)
			assert.Falsef(t, c.exact != 0 && len(stores) != c.exact, "MegaKernel_toy_moe<true>: %d release stores, want %d (0: at least one)", len(stores), c.exact)
			for _, s := range stores {
				assert.Equalf(t, c.scope, s[1], "MegaKernel_toy_moe<true>: %s: scope", s[0])

			}
			assert.False(t, release.MatchString(off), "MegaKernel_toy_moe<false> publishes, but records nothing")
			args := cudaArgs(cc.arch, append(append([]string{"-include", cudaStandin, "-I", genCpp}, defines...),
				"--cuda-host-only", "-fsyntax-only", example)...)
			b, err := exec.Command(cc.path, args...).CombinedOutput()
			assert.NoErrorf(t, err, "the host side does not compile\n%s", b)
		})
	}
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
