package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSynthCommand: the demo's command line reproduces the committed
// capture, and .npy is chosen by the file name.
func TestSynthCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "moe.bin")
	out, code, errOut := runOut(t, "synth", "../../../examples/moe_layer.yaml", "--capacity-scale", "0.8", "--seed", "1", "-o", bin)
	require.Equalf(t, ExitOK, code, "exit: %v", errOut)
	require.Contains(t, out, "2974 records written, 10 dropped", "output")
	assert.Contains(t, out, "decode flags: --cube-slots 24 --aic-capacity 64 --aiv-capacity 64", "output")
	got, _ := os.ReadFile(bin)
	want, _ := os.ReadFile("../../../examples/moe_layer.bin")
	assert.Equal(t, []byte(want), []byte(got), "synth did not reproduce examples/moe_layer.bin")

	npy := filepath.Join(dir, "moe.npy")
	_, code, errOut = runOut(t, "synth", "../../../examples/moe_layer.yaml", "--capacity-scale", "0.8", "--seed", "1", "-o", npy)
	require.Equal(t, ExitOK, code, errOut)
	got, _ = os.ReadFile(npy)
	assert.Equal(t, []byte(append(capture.NPYHeader(uint64(len(want))), want...)), []byte(got), "the .npy capture is not the header and the same bytes")
}

func TestSynthCommandErrors(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "x.bin")
	deadlock := writeSchedule(t, `num_workers: 2
tasks:
  - {task_type: MatMul, dependent_event: 2, trigger_event: 1}
  - {task_type: SwiGLU, dependent_event: 1, trigger_event: 2}
cube_task_indices: [0]
vector_task_indices: [1]
`)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"synth", deadlock, "-o", out}, ExitInvalid, "deadlock: AIC/0 runs task 0"},
		{[]string{"synth", deadlock}, ExitUsage, "-o CAPTURE is required"},
		{[]string{"synth", deadlock, "-o", out, "--format", "hdf5"}, ExitUsage, "--format must be bin or npy"},
		{[]string{"synth", deadlock, "-o", out, "--capacity-scale", "0"}, ExitUsage, "--capacity-scale must be positive"},
		{[]string{"synth", deadlock, "-o", out, "--capacity-scale", "NaN"}, ExitUsage, "--capacity-scale must be positive"},
		{[]string{"synth", deadlock, "-o", out, "--capacity-scale", "Inf"}, ExitUsage, "--capacity-scale must be positive"},
		{[]string{"synth", deadlock, "-o", out, "--idle-cores", "3", "--wait-timeout", "100"}, ExitInvalid, "cannot make 3 of 2 workers idle"},
		{[]string{"synth", deadlock, "-o", out, "--wait-timeout", "18446744073709551615"}, ExitUsage, "--wait-timeout must be at most 4294967296 cycles"},
		{[]string{"synth", deadlock, "-o", filepath.Join(out, "sub", "x.bin"), "--wait-timeout", "100"}, ExitUsage, "x.bin"},
	} {
		_, code, errOut := runOut(t, tc.args...)
		require.Equalf(t, tc.code, code, "%v: exit", tc.args)
		assert.Containsf(t, errOut, tc.msg, "%v: exit", tc.args)
	}
	_, err := os.Stat(out)
	assert.Error(t, err, "a failed synth left a capture behind")
	// With a watchdog the deadlocked schedule simulates.
	_, code, errOut := runOut(t, "synth", deadlock, "-o", out, "--wait-timeout", "100")
	assert.Equalf(t, ExitOK, code, "with --wait-timeout: exit, %v", errOut)
}
