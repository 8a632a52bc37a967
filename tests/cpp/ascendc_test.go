package cpp_test

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The kernel-shaped file, the stand-in AscendC headers and the five-line
// replacement of the runtime's recorder live in testdata/ascendc.
const (
	ascendcDir    = "testdata/ascendc"
	ascendcKernel = ascendcDir + "/kernel.cpp"
)

// ascendcCalls are the AscendC functions the preset's hooks call, as the
// kernel's object file names them: PipeBarrier<PIPE_ALL>, GetSystemCycle
// and Trap.
var ascendcCalls = []string{"_ZN7AscendC11PipeBarrierIL6pipe_t0EEEvv", "_ZN7AscendC14GetSystemCycleEv", "_ZN7AscendC4TrapEv"}

// compileKernel compiles the kernel for one side at std and returns its
// object file; defines are -D arguments.
func compileKernel(t *testing.T, cxx cxxtest.Compiler, std string, defines ...string) (string, error) {
	obj := filepath.Join(t.TempDir(), "kernel.o")
	args := append([]string{"-O1", "-I", genCpp, "-I", ascendcDir}, defines...)
	args = append(args, "-c", "-o", obj, ascendcKernel)
	out, err := cxx.Try(std, args...)
	if err != nil {
		return "", fmt.Errorf("%s -std=%s %s: %v\n%s", cxx.Name, std, strings.Join(args, " "), err, out)
	}
	return obj, nil
}

// undefined lists an object file's undefined symbols.
func undefined(t *testing.T, obj string) []string {
	t.Helper()
	f, err := elf.Open(obj)
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.Symbols()
	require.NoError(t, err)
	var out []string
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF && s.Name != "" {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// TestAscendCPreset compiles a kernel-shaped file through the five-line
// replacement of the runtime's recorder (CYCLEABI_ASCENDC, the cube slot
// count from NUM_WORKERS_CUBE) against a kernel_operator.h that has only
// the names the preset uses, with every compiler on PATH in C++11 and
// C++17, for the cube side (__DAV_C220_CUBE__) and the vector side. The
// file's static_assert holds the preset to the core type of each side and
// to the cube slot count given; the object must call PipeBarrier<PIPE_ALL>,
// GetSystemCycle and Trap and nothing else outside itself.
func TestAscendCPreset(t *testing.T) {
	sides := []struct {
		name     string
		defines  []string
		coreType int
	}{
		{"cube", []string{"-D__DAV_C220_CUBE__"}, 1},
		{"vector", nil, 2},
	}
	for _, cxx := range cxxtest.Compilers(t) {
		for _, std := range []string{"c++11", "c++17"} {
			for _, side := range sides {
				for _, cube := range []int{24, 40} {
					t.Run(fmt.Sprintf("%s/%s/%s/cube-%d", cxx.Name, std, side.name, cube), func(t *testing.T) {
						t.Parallel()
						defines := append([]string{
							fmt.Sprintf("-DEXPECT_CORE_TYPE=%d", side.coreType),
							fmt.Sprintf("-DEXPECT_CUBE_SLOTS=%d", cube),
							fmt.Sprintf("-DSTUB_NUM_WORKERS_CUBE=%d", cube),
						}, side.defines...)
						obj, err := compileKernel(t, cxx, std, defines...)
						require.NoError(t, err)
						got := map[string]bool{}
						for _, s := range undefined(t, obj) {
							got[s] = true
							// The optimiser may call the C library for the padding loop.
							assert.Falsef(t, !strings.HasPrefix(s, "mem") && !contains(ascendcCalls, s), "the kernel calls %s, which is not one of the preset's AscendC functions", s)
						}
						for _, s := range ascendcCalls {
							assert.Truef(t, got[s], "the kernel does not call %s", s)
						}
					})
				}
			}
		}
	}
}

// TestAscendCPresetCoreType shows the kernel's static_assert can fail: the
// cube side compiled expecting the vector core type does not compile.
func TestAscendCPresetCoreType(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	_, err := compileKernel(t, cxx, "c++11", "-D__DAV_C220_CUBE__", "-DEXPECT_CORE_TYPE=2", "-DEXPECT_CUBE_SLOTS=24")
	assert.ErrorContainsf(t, err, "the preset picked another core type", "the cube side compiled as the vector core type: %v", err)
}

// TestRecorderNeedsCoreType: without CYCLEABI_CORE_TYPE (and without the
// preset) the header still compiles, but using cycleabi::Recorder stops at
// a static_assert that says what to define.
func TestRecorderNeedsCoreType(t *testing.T) {
	cxx := cxxtest.Compilers(t)[0]
	dir := t.TempDir()
	src := filepath.Join(dir, "no_core_type.cpp")
	require.NoError(t, os.WriteFile(src, []byte("#include \"cycleabi_abi.h\"\n\nvoid Use() { cycleabi::Recorder r; (void)r; }\n"), 0o644))
	out, err := cxx.Try("c++11", "-I", genCpp, "-fsyntax-only", src)
	require.Errorf(t, err, "using Recorder without CYCLEABI_CORE_TYPE: err %v", err)
	assert.Containsf(t, out, "define CYCLEABI_CORE_TYPE (", "using Recorder without CYCLEABI_CORE_TYPE: err %v", err)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestDocsReplacement holds docs/cpp-header.md to the replacement of the
// runtime's recorder that TestAscendCPreset compiles: the docs show the
// file, whole, as one code block.
func TestDocsReplacement(t *testing.T) {
	file, err := os.ReadFile(filepath.Join(ascendcDir, "cycle_trace_recorder.h"))
	require.NoError(t, err)
	doc, err := os.ReadFile("../../docs/cpp-header.md")
	require.NoError(t, err)
	assert.Containsf(t, string(doc), "```cpp\n"+string(file)+"```\n", "docs/cpp-header.md does not show %s/cycle_trace_recorder.h as a code block:\n%s", ascendcDir, file)
}
