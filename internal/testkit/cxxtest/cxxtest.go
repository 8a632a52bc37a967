// Package cxxtest finds the C++ compilers on PATH and compiles small
// programs against the generated header, for the tests of internal/abigen/cppgen
// and tests/cpp.
package cxxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Standards are the C++ language standards the header must compile under.
var Standards = []string{"c++11", "c++14", "c++17", "c++20"}

// StrictFlags are the warning flags every compile uses.
var StrictFlags = []string{"-Wall", "-Wextra", "-Werror", "-pedantic"}

// candidates are the compiler names looked up on PATH, in this order; $CXX,
// when set, is tried first.
var candidates = []string{"g++", "clang++"}

// RequireEnv names the environment variable that turns "no compiler on
// PATH" from a skip into a failure (set it in CI, where g++ is expected).
const RequireEnv = "CYCLEABI_REQUIRE_CXX"

// Compiler is a C++ compiler found on PATH.
type Compiler struct {
	// Name is how the tests refer to it ("g++", "clang++").
	Name string
	// Path is the executable.
	Path string
}

// Compilers returns every distinct C++ compiler on PATH. When there is none
// it skips the test, saying what to install (fails it when RequireEnv is set).
func Compilers(t testing.TB) []Compiler {
	t.Helper()
	names := candidates
	if cxx := os.Getenv("CXX"); cxx != "" {
		names = append([]string{cxx}, names...)
	}
	var out []Compiler
	seen := map[string]bool{}
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			real = p
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, Compiler{Name: filepath.Base(n), Path: p})
	}
	if len(out) == 0 {
		require.Empty(t, os.Getenv(RequireEnv), "no C++ compiler on PATH (looked for %s) and %s is set", strings.Join(names, ", "), RequireEnv)
		t.Skipf("no C++ compiler on PATH (looked for %s); install g++ or clang++ to run the C++ tests", strings.Join(names, ", "))
	}
	return out
}

// Compile runs the compiler at std with the strict flags and args (include
// directories, defines, sources, -o or -fsyntax-only) and fails the test
// with the compiler's output when it does not succeed.
func (c Compiler) Compile(t testing.TB, std string, args ...string) {
	t.Helper()
	msg, err := c.Try(std, args...)
	require.NoError(t, err, "%s -std=%s %s failed\n%s", c.Name, std, strings.Join(args, " "), msg)
}

// Try is Compile without the test: it returns the compiler's output and
// its error, for tests that expect a compile to fail.
func (c Compiler) Try(std string, args ...string) (string, error) {
	all := append(append([]string{"-std=" + std}, StrictFlags...), args...)
	b, err := exec.Command(c.Path, all...).CombinedOutput()
	return string(b), err
}

// IsClang reports whether the compiler is clang (for clang-only checks such
// as address_space qualifiers).
func (c Compiler) IsClang() bool {
	out, err := exec.Command(c.Path, "--version").Output()
	return err == nil && strings.Contains(string(out), "clang")
}
