// Package agreement_test proves that the two sides of the ABI, the generated
// C++ header (gen/cpp/cycleabi_abi.h) and the Go decoders, agree byte for
// byte, three independent ways:
//
//  1. A C++ writer harness (cxx/harness.cpp) built with every C++ compiler on
//     PATH writes whole captures through the header's device-side helpers
//     and prints a manifest of what it wrote; the Go decoders must read back
//     exactly the manifest. One capture is committed (testdata/gold.bin) and
//     always decoded, even where no compiler exists. Run with --recorder,
//     the harness writes as kernels holding a cycleabi::BasicRecorder per
//     core, and must write the same bytes.
//  2. The header's structs and enums, compiled with -g, are read back from
//     the object file's DWARF and compared with abi/schema.yaml.
//  3. The header compiled with stand-ins for the AscendC and CUDA qualifiers
//     shows CYCLEABI_FN and CYCLEABI_GM are applied everywhere they must be;
//     every qualifier removed from a copy of the header is caught.
//
// The C++ sources live in cxx/ (the go tool refuses .cpp files in a package
// directory that does not use cgo).
package agreement_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/cxxtest"
	"github.com/stretchr/testify/require"
)

const (
	// genCpp holds the generated header, for -I.
	genCpp = "../../gen/cpp"
	// harnessSrc is the writer harness.
	harnessSrc = "cxx/harness.cpp"
	// schemaFile is the single source of truth.
	schemaFile = "../../abi/schema.yaml"
)

// sanitizeFlags build the harness with AddressSanitizer and
// UndefinedBehaviorSanitizer; any report aborts the run.
var sanitizeFlags = []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}

// sanitizeEnv makes a sanitizer report fail the run loudly.
var sanitizeEnv = []string{"ASAN_OPTIONS=abort_on_error=0:halt_on_error=1", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"}

// buildDir holds everything the tests compile; one per test binary run.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cycleabi-agreement-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// harnessBuild is one way of building the harness.
type harnessBuild struct {
	cxx      cxxtest.Compiler
	std      string
	sanitize bool
}

func (b harnessBuild) String() string {
	s := b.cxx.Name + "/" + b.std
	if b.sanitize {
		s += "/asan+ubsan"
	}
	return s
}

// harnessBuilds are every build the agreement test runs: each compiler on
// PATH at the oldest and newest standard the header supports, plain
// (optimised, so the optimiser gets its chance to exploit any undefined
// behaviour) and with the sanitizers.
//
// Under -short (make test) each compiler builds it twice, C++11 plain and
// C++20 with the sanitizers, so both standards and the sanitizers are
// still met; make ci builds all four pairs.
func harnessBuilds(t *testing.T) []harnessBuild {
	var out []harnessBuild
	for _, cxx := range cxxtest.Compilers(t) {
		if testing.Short() {
			out = append(out, harnessBuild{cxx, "c++11", false}, harnessBuild{cxx, "c++20", true})
			continue
		}
		for _, std := range []string{"c++11", "c++20"} {
			out = append(out, harnessBuild{cxx, std, false}, harnessBuild{cxx, std, true})
		}
	}
	return out
}

// once caches a build's result across tests and parallel subtests.
type once struct {
	sync.Once
	path string
	err  error
}

var builds sync.Map // key string -> *once

// cached runs build once per key and returns its path or error.
func cached(key string, build func() (string, error)) (string, error) {
	v, _ := builds.LoadOrStore(key, &once{})
	o := v.(*once)
	o.Do(func() { o.path, o.err = build() })
	return o.path, o.err
}

// errNoSanitizer marks a toolchain without the sanitizer runtimes.
var errNoSanitizer = errors.New("no sanitizer runtime")

// sanitizerWorks reports whether cxx can build and run a program with
// sanitizeFlags; the error says why not.
func sanitizerWorks(cxx cxxtest.Compiler) error {
	_, err := cached("sanitizer-probe/"+cxx.Path, func() (string, error) {
		dir := filepath.Join(buildDir, "sanitizer-probe-"+cxx.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		src := filepath.Join(dir, "probe.cpp")
		exe := filepath.Join(dir, "probe")
		if err := os.WriteFile(src, []byte("#include <vector>\nint main() { std::vector<int> v(3); return v[1]; }\n"), 0o644); err != nil {
			return "", err
		}
		args := append(append([]string{}, sanitizeFlags...), "-o", exe, src)
		if out, err := cxx.Try("c++11", args...); err != nil {
			return "", fmt.Errorf("%w: %s cannot link a program built with %s: %v\n%s", errNoSanitizer, cxx.Name,
				strings.Join(sanitizeFlags, " "), err, out)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), sanitizeEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%w: a program %s built with %s does not run: %v\n%s", errNoSanitizer, cxx.Name,
				strings.Join(sanitizeFlags, " "), err, out)
		}
		return exe, nil
	})
	return err
}

// buildHarness compiles the harness for b once and returns the executable.
// It skips the test when b needs sanitizer runtimes the toolchain lacks.
func buildHarness(t *testing.T, b harnessBuild) string {
	t.Helper()
	if b.sanitize {
		if err := sanitizerWorks(b.cxx); err != nil {
			t.Skipf("skipping the sanitizer build: %v (install libasan and libubsan for g++, or compiler-rt for clang++)", err)
		}
	}
	exe, err := cached("harness/"+b.cxx.Path+"/"+b.String(), func() (string, error) {
		exe := filepath.Join(buildDir, "harness-"+strings.NewReplacer("/", "-", "+", "p").Replace(b.String()))
		args := []string{"-I", genCpp, "-o", exe, harnessSrc}
		if b.sanitize {
			args = append(append([]string{"-O1", "-g"}, sanitizeFlags...), args...)
		} else {
			args = append([]string{"-O2"}, args...)
		}
		if out, err := b.cxx.Try(b.std, args...); err != nil {
			return "", fmt.Errorf("%s -std=%s %s: %v\n%s", b.cxx.Name, b.std, strings.Join(args, " "), err, out)
		}
		return exe, nil
	})
	require.NoError(t, err)
	return exe
}

// runHarness runs the harness writing into a fresh directory and returns the
// directory and the manifest it printed. A helper that broke the harness's
// model, or a sanitizer report, fails the test with the harness's stderr.
func runHarness(t *testing.T, exe string, scenarios ...string) (dir string, manifestText []byte) {
	t.Helper()
	return runHarnessWith(t, exe, nil, scenarios...)
}

// runHarnessWith is runHarness with flags before the directory
// (--recorder).
func runHarnessWith(t *testing.T, exe string, flags []string, scenarios ...string) (dir string, manifestText []byte) {
	t.Helper()
	dir = t.TempDir()
	cmd := exec.Command(exe, append(append(append([]string{}, flags...), dir), scenarios...)...)
	cmd.Env = append(os.Environ(), sanitizeEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoErrorf(t, err, "%s\n%s", exe, stderr.String())
	require.Emptyf(t, stderr.String(), "%s wrote to stderr", exe)

	return dir, out
}
