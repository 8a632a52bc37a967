package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCaptured runs the command line like run does and returns what it
// printed on stdout, the exit code, and the error it would print.
// runOut is runMain for tests that read everything a command wrote as
// one text: its stdout, then its stderr; and stderr alone, where the error
// that ends a failed run is.
func runOut(t *testing.T, args ...string) (out string, code int, errOut string) {
	t.Helper()
	stdout, stderr, code := runMain(t, args...)
	return stdout + stderr, code, stderr
}

func writeSchedule(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func TestPlanCommand(t *testing.T) {
	t.Parallel()
	const moe = "../../../examples/moe_layer.yaml"
	out, code, errOut := runOut(t, "plan", moe)
	require.Equalf(t, ExitOK, code, "exit: %v", errOut)
	for _, want := range []string{
		"65 required by the busiest worker, capacity 80 per core",
		"cube slots    24 (24 AIC + 48 AIV slots)",
		"buffer size   188928 bytes (184.5 KiB)",
		"decode flags  --cube-slots 24 --aic-capacity 80 --aiv-capacity 80",
	} {
		assert.Contains(t, out, want, "text output lacks")
	}

	out, _, _ = runOut(t, "plan", moe, "--format", "json")
	var r map[string]any
	require.NoErrorf(t, json.Unmarshal([]byte(out), &r), "json output: %v\n%s", errOut, out)
	for k, v := range map[string]float64{
		"aic_required_records": 65, "aiv_required_records": 65, "aic_record_capacity": 80,
		"aiv_record_capacity": 80, "cube_slot_count": 24, "buffer_size": 188928,
	} {
		assert.Equalf(t, v, r[k], "json %s", k)
	}

	out, _, _ = runOut(t, "plan", moe, "--format", "flags")
	assert.Equal(t, "--cube-slots 24 --aic-capacity 80 --aiv-capacity 80\n", out, "flags output")
}

func TestPlanCommandErrors(t *testing.T) {
	t.Parallel()
	bad := writeSchedule(t, "num_workers: 3\ntasks: []\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"plan", bad}, ExitInvalid, "s.yaml:1:14: num_workers: num_workers must be even"},
		{[]string{"plan", writeSchedule(t, "tasks: [{task_type: Nope}]\n")}, ExitInvalid, `unknown task type "Nope"`},
		{[]string{"plan", "no-such-file.yaml"}, ExitUsage, "no-such-file.yaml: schedule file not found"},
		{[]string{"plan", bad, "--format", "xml"}, ExitUsage, "--format must be text, json or flags"},
		{[]string{"plan"}, ExitUsage, "accepts 1 arg"},
	} {
		_, code, errOut := runOut(t, tc.args...)
		require.Equalf(t, tc.code, code, "%v: exit", tc.args)
		assert.Containsf(t, errOut, tc.msg, "%v: exit", tc.args)
	}
}

// One run reports every problem of a schedule (exit 1), the text's and the
// plan's alike.
func TestPlanReportsEveryProblem(t *testing.T) {
	t.Parallel()
	path := writeSchedule(t, "num_workers: 3\ntasks:\n  - {task_type: MatMull}\ncube_task_indices: [0]\nvector_task_indices: [4]\n")
	_, code, errOut := runOut(t, "plan", path)
	require.Equalf(t, ExitInvalid, code, "exit: %v", errOut)
	// num_workers 3 is odd: nothing is planned over it, but the index past
	// the table and the task type are reported with it.
	want := path + `:1:14: num_workers: num_workers must be even and non-negative in event_driven mode, got 3
` + path + `:3:17: tasks[0].task_type: unknown task type "MatMull"`
	require.Truef(t, strings.HasPrefix(errOut, "cycleabi: "+want), "got\n%v\nwant it to start\ncycleabi: %s", errOut, want)
	assert.Contains(t, errOut, path+":5:23: vector_task_indices[0]: task 4 is out of range", "the index past the table is not reported")
}

// A schedule past the YAML cap is refused with the cap and the variable
// that raises it, before go-yaml builds its nodes; raising it plans it.
func TestPlanYAMLCap(t *testing.T) {
	path := writeSchedule(t, "num_workers: 2\ntasks: [{task_type: MatMul}]\ncube_task_indices: [0]\n")
	t.Setenv("CYCLEABI_MAX_YAML_BYTES", "40")
	_, code, errOut := runOut(t, "plan", path)
	require.Equal(t, ExitUsage, code, "exit")
	require.Contains(t, errOut, "more than the cap of 40 bytes on text read as YAML; set CYCLEABI_MAX_YAML_BYTES to raise it", "exit")
	t.Setenv("CYCLEABI_MAX_YAML_BYTES", "1000")
	_, code, errOut = runOut(t, "plan", path)
	require.Equalf(t, ExitOK, code, "exit: %v", errOut)
	t.Setenv("CYCLEABI_MAX_INPUT_BYTES", "40")
	_, code, errOut = runOut(t, "plan", path)
	require.Equal(t, ExitUsage, code, "exit")
	require.Contains(t, errOut, "on schedule files; set CYCLEABI_MAX_INPUT_BYTES to raise it", "exit")
}

// An AIV pipeline of one worker at the default stride is sized as the
// reference sizes it, and the text says no AIV worker is active.
func TestPlanPipelineOneWorker(t *testing.T) {
	t.Parallel()
	path := writeSchedule(t, "mode: aiv_pipeline\nnum_workers: 1\ntasks: [{task_type: RmsNorm}]\nvector_task_indices: [0]\n")
	out, code, errOut := runOut(t, "plan", path)
	require.Equalf(t, ExitOK, code, "exit: %v", errOut)
	for _, want := range []string{"no active AIV worker", "1 required by the busiest worker, capacity 16 per core", "--aic-capacity 0 --aiv-capacity 16"} {
		assert.Contains(t, out, want, "output lacks")
	}
}

// TestPlanUntriggeredWait: a wait on an event no task of this rank
// triggers (a peer's ShmemPutMemSignal sets it in a multi-rank MoE) is a
// warning naming that case, with the reference's capacities and exit 0;
// --strict makes it the error it was (exit 1, nothing on stdout).
func TestPlanUntriggeredWait(t *testing.T) {
	t.Parallel()
	path := writeSchedule(t, `num_workers: 2
tasks:
  - {task_type: GroupedMatMul, dependent_event: 7, trigger_event: 8}
  - {task_type: ShmemPutMemSignal, dependent_event: 8}
cube_task_indices: [0]
vector_task_indices: [1]
`)
	out, errOut, code := runMain(t, "plan", path, "--format", "flags")
	require.Equalf(t, ExitOK, code, "exit: %s", errOut)
	// The reference: task 0 writes wait, compute and trigger (3), task 1
	// (a ShmemPutMemSignal) wait and compute (2); both round up to 16.
	assert.Equal(t, "--cube-slots 24 --aic-capacity 16 --aiv-capacity 16\n", out, "flags")
	require.Contains(t, errOut, "warning: "+path+":3:", "stderr")
	require.Contains(t, errOut, "tasks[0].dependent_event: waits on event 7", "stderr")
	require.Contains(t, errOut, "peer's ShmemPutMemSignal", "stderr")
	assert.Equal(t, 1, strings.Count(errOut, "warning:"), "stderr")
	out, errOut, code = runMain(t, "plan", path, "--strict")
	require.Equal(t, ExitInvalid, code, "strict: exit")
	require.Empty(t, out, "strict: exit")
	assert.Contains(t, errOut, "tasks[0].dependent_event: waits on event 7, which no scheduled task of this rank triggers", "strict: exit")
	out, _, code = runMain(t, "plan", path, "--format", "json")
	var r struct {
		AIC      uint32   `json:"aic_record_capacity"`
		Warnings []string `json:"warnings"`
	}
	assert.Equalf(t, ExitOK, code, "format json: exit, %+v", r)
	require.NoErrorf(t, json.Unmarshal([]byte(out), &r), "format json: exit, %+v", r)
	assert.Equalf(t, uint32(16), r.AIC, "format json: exit, %+v", r)
	require.Lenf(t, r.Warnings, 1, "format json: exit, %+v", r)
}
