package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHangCommands: synth's fault flags write a hung capture, which
// analyze --plan diagnoses in text and JSON (exit 0), analyze without the
// schedule asks for it, and validate warns stopped-in-task.
func TestHangCommands(t *testing.T) {
	t.Parallel()
	const moe = "../../../examples/moe_layer.yaml"
	hung := filepath.Join(t.TempDir(), "hung.bin")
	out, code, errOut := runOut(t, "synth", moe, "--stop-in-task", "100", "-o", hung)
	require.Equalf(t, ExitOK, code, "synth: exit, %s", out+errOut)
	require.Containsf(t, out, "the kernel hangs: stopped: AIC/6 inside task 100; 47 core(s) wait forever", "synth: exit, %s", out+errOut)
	out, code, _ = runOut(t, "analyze", hung, "--plan", moe, "--kernel-family", "none")
	require.Equal(t, ExitOK, code, "analyze --plan: exit")
	assert.Contains(t, out, "root: task 100 (GroupedMatMul) on AIC/6 never finished though its dependencies were met", "analyze --plan: exit")
	stdout, _, code := runMain(t, "analyze", hung, "--plan", moe, "--kernel-family", "none", "--format", "json")
	var rep struct {
		Ranks []struct {
			Diagnosis struct {
				Roots []struct {
					Kind  string `json:"kind"`
					Tasks []struct {
						Task uint32 `json:"task"`
						Core string `json:"core"`
					} `json:"tasks"`
				} `json:"roots"`
			} `json:"diagnosis"`
		} `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), "analyze --format json: exit")
	require.Equal(t, ExitOK, code, "analyze --format json: exit")
	r := rep.Ranks[0].Diagnosis.Roots
	require.Len(t, r, 1, "JSON roots")
	require.Equal(t, "stopped-inside", r[0].Kind, "JSON roots")
	require.Equal(t, uint32(100), r[0].Tasks[0].Task, "JSON roots")
	assert.Equal(t, "AIC/6", r[0].Tasks[0].Core, "JSON roots")
	out, _, _ = runOut(t, "analyze", hung, "--kernel-family", "none")
	assert.Contains(t, out, "give its schedule (--plan SCHEDULE)", "analyze without --plan")
	out, code, _ = runOut(t, "validate", hung)
	assert.Equalf(t, ExitOK, code, "validate: exit\n%s", out)
	assert.Contains(t, out, "warning stopped-in-task AIC/6", "validate")
}

// TestHangFromTrace: the capture's JSON trace gets the same diagnosis;
// one whose core never entered (a trace holds no core without records)
// says that the core wrote no record.
func TestHangFromTrace(t *testing.T) {
	t.Parallel()
	const moe = "../../../examples/moe_layer.yaml"
	dir := t.TempDir()
	for _, tc := range []struct {
		fault []string
		root  string
	}{
		{[]string{"--stop-in-task", "100"}, "root: task 100 (GroupedMatMul) on AIC/6 never finished though its dependencies were met"},
		{[]string{"--idle-cores", "1", "--hang"}, "root: task 6 (MatMul) on AIC/0 never ran: its core wrote no record (a JSON trace holds no core without one"},
	} {
		bin, trace := filepath.Join(dir, "c.bin"), filepath.Join(dir, "c.json")
		out, code, _ := runOut(t, append([]string{"synth", moe, "-o", bin}, tc.fault...)...)
		require.Equalf(t, ExitOK, code, "synth: %s", out)
		out, code, _ = runOut(t, "decode", bin, "--plan", moe, "--kernel-family", "none", "-o", trace)
		require.Equalf(t, ExitOK, code, "decode: %s", out)
		out, _, _ = runOut(t, "analyze", trace, "--plan", moe, "--kernel-family", "none")
		assert.Containsf(t, out, tc.root, "%v: analyze of the trace", tc.fault)
	}
}

// TestSynthFaultErrors: the fault flags' values and their clash with a
// watchdog are usage errors; a fault the schedule cannot have is invalid.
func TestSynthFaultErrors(t *testing.T) {
	t.Parallel()
	const moe = "../../../examples/moe_layer.yaml"
	out := filepath.Join(t.TempDir(), "x.bin")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--hang", "--wait-timeout", "100"}, ExitUsage, "give one or the other"},
		{[]string{"--stop-in-task", "4294967295"}, ExitUsage, "--stop-in-task must be below 4294967295"},
		{[]string{"--starve-event", "-1"}, ExitUsage, "starve-event"},
		{[]string{"--stop-in-task", "99999"}, ExitInvalid, "cannot stop inside task 99999: no queue holds it"},
		{[]string{"--skip-trigger", "11"}, ExitInvalid, "a ShmemPutMemSignal's put signals its event itself"},
		{[]string{"--starve-event", "999"}, ExitInvalid, "cannot starve event 999"},
	} {
		_, code, errOut := runOut(t, append([]string{"synth", moe, "-o", out}, tc.args...)...)
		require.Equalf(t, tc.code, code, "%v: exit", tc.args)
		assert.Containsf(t, errOut, tc.msg, "%v: exit", tc.args)
	}
}
