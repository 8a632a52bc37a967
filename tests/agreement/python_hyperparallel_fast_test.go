package agreement_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/megakernel/cycleabi/internal/testkit/pytest"
)

// TestHyperParallelFastExport runs testdata/hyper_parallel_fast_check.py:
// `cycleabi decode --upstream-compat` (built here) writes the bytes the
// drop-in's Python path writes (json.dumps(parse_cycle_buffer(...)) and
// json.dumps(build_window(...)), ensure_ascii=False), on the example
// capture and its variants, and install() on a stand-in of upstream's
// profiler exports its windows through the program: the cycleabi on PATH
// is a wrapper that logs each call, and the script checks the log.
func TestHyperParallelFastExport(t *testing.T) {
	py := pytest.Interpreter(t)
	bin := t.TempDir()
	real := filepath.Join(bin, "cycleabi-real")
	build := exec.Command("go", "build", "-o", real, "../../cmd/cycleabi")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	log := filepath.Join(bin, "calls.log")
	wrapper := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> '%s'\nexec '%s' \"$@\"\n", log, real)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "cycleabi"), []byte(wrapper), 0o755))
	for _, f := range []string{"../../python/cycleabi/hyper_parallel.py", "../../python/cycleabi/__init__.py",
		"../../examples/moe_layer.bin", "testdata/hyper_parallel_fast_check.py"} {
		_, err := os.ReadFile(f) // so that go test's cache sees them
		require.NoError(t, err)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command(py, "testdata/hyper_parallel_fast_check.py", root, log)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{"ok export plain", "ok export drops, records before the anchor", "ok export host capacities",
		"ok export hyper_multicore layout", "ok export cycles past 2**63, int mhz", "ok export escaped names",
		"ok export refuses reserved", "ok window three invocations, two ranks, drops",
		"ok window detailed, host capacities, hyper_multicore layout", "ok window one invocation", "ok window empty",
		"ok window refuses", "ok window lazy dict"} {
		assert.True(t, strings.Contains(string(out), want), "no %q in:\n%s", want, out)
	}
}
