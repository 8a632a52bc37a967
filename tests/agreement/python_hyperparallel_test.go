package agreement_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHyperParallelDropIn runs testdata/hyper_parallel_check.py:
// cycleabi.hyper_parallel (python/cycleabi) against upstream's behaviour,
// event for event — parse_cycle_buffer against the transcription of
// upstream's decoder in decode/testdata/reference, merge_chrome_traces
// (through `cycleabi merge --upstream-compat`, built here) against
// upstream's placement rules on the cases of its unit tests,
// gate_profile_records against Gate buffers written as upstream lays them
// out, and install() on a stand-in of upstream's module layout.
func TestHyperParallelDropIn(t *testing.T) {
	py := pytest.Interpreter(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "cycleabi"), "../../cmd/cycleabi")
	built, err := build.CombinedOutput()
	require.NoErrorf(t, err, "go build:\n%s", built)

	for _, f := range []string{"../../python/cycleabi/hyper_parallel.py", "../../python/cycleabi/__init__.py",
		"../../decode/testdata/reference/cycle_trace.py", "../../examples/moe_layer.bin", "testdata/hyper_parallel_check.py"} {
		_, err := os.ReadFile(f)
		require.NoError(t, err)
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command(py, "testdata/hyper_parallel_check.py", root)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "%s", out)
	for _, want := range []string{"ok decode plain numpy", "ok decode refuses negative", "ok decode opt-in names",
		"ok merge window paths", "ok merge float rounding, overrun objects", "ok gate records", "ok gate refuses identity", "ok install"} {
		assert.Containsf(t, string(out), want, "no in:\n%s", out)
	}
}
