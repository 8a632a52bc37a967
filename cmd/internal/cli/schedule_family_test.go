package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScheduleShmemGetMemByFamily: a schedule's task_type names are read
// in its kernel_family's table, so ShmemGetMem under MegaMoe is 107, what
// upstream's pull dispatch writes (tasks/alltoall.py@c852d237): synth
// writes 0x2006b, in YAML and in JSON (kernel_family before or after the
// tasks); without kernel_family it is the schema's 141, 0x2008d.
func TestScheduleShmemGetMemByFamily(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schedule string
		want           float64
	}{
		{"yaml", "num_workers: 2\nkernel_family: MegaMoe\ntasks:\n  - {task_type: ShmemGetMem}\nvector_task_indices: [0]\n", 0x2006b},
		{"yaml-family-last", "num_workers: 2\ntasks:\n  - {task_type: ShmemGetMem}\nvector_task_indices: [0]\nkernel_family: megamoe\n", 0x2006b},
		{"json", `{"num_workers": 2, "kernel_family": "MegaMoe", "tasks": [{"task_type": "ShmemGetMem"}], "vector_task_indices": [0]}`, 0x2006b},
		{"json-family-last", `{"num_workers": 2, "tasks": [{"task_type": "ShmemGetMem"}], "vector_task_indices": [0], "kernel_family": "MegaMoeGrad"}`, 0x2006b},
		{"seed", "num_workers: 2\ntasks:\n  - {task_type: ShmemGetMem}\nvector_task_indices: [0]\n", 0x2008d},
		{"none", "num_workers: 2\nkernel_family: none\ntasks:\n  - {task_type: ShmemGetMem}\nvector_task_indices: [0]\n", 0x2008d},
	}
	for _, c := range cases {
		dir := t.TempDir()
		sched := filepath.Join(dir, "s.yaml")
		require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
		capPath := filepath.Join(dir, "c.bin")
		_, errOut, code := runMain(t, "synth", sched, "-o", capPath)
		require.Equalf(t, ExitOK, code, "%s: %s: code", c.name, errOut)
		out := filepath.Join(dir, "t.json")
		_, errOut, code = runMain(t, "decode", capPath, "-o", out, "--kernel-family", "MegaMoe")
		require.Equalf(t, ExitOK, code, "%s: %s: code", c.name, errOut)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var computes []float64
		for _, e := range parseCLITrace(t, data).TraceEvents {
			if id, _ := e.Args["desc_id"].(float64); e.Ph == "X" && id >= 0x20000 && id < 0x30000 {
				computes = append(computes, id)
			}
		}
		assert.Equalf(t, []float64{c.want}, computes, "%s: compute desc ids, want [%#x]", c.name, int(c.want))
	}
}

// TestScheduleKernelFamilyErrors: a name the family's table lacks is an
// error listing that table, as an unknown family lists the families.
func TestScheduleKernelFamilyErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ schedule, want string }{
		{"num_workers: 2\nkernel_family: MegaMoe\ntasks:\n  - {task_type: RmsNorm}\nvector_task_indices: [0]\n",
			"s.yaml:4:17: tasks[0].task_type: unknown MegaMoe task type \"RmsNorm\"\nknown MegaMoe task types: Terminate, BeginTaskGraph, AddCustom, SwiGLU, MatMul, GroupedMatMul, ShmemPutMemSignal, SwiGLUGrad, ShmemGetMem"},
		{"num_workers: 2\nkernel_family: MoE\ntasks:\n  - {task_type: ShmemGetMem}\nvector_task_indices: [0]\n",
			`s.yaml:2:16: kernel_family: unknown kernel family "MoE"`},
	} {
		sched := filepath.Join(dir, "s.yaml")
		require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
		_, errOut, code := runMain(t, "plan", sched)
		require.Equal(t, ExitInvalid, code, "plan: code")
		assert.Contains(t, errOut, c.want, "plan: code")
	}
}

// TestPlanKernelGradients: in kernel-gradients mode plan sizes AIV for the
// even vector cores' ReplicaW2Return records (40 here, where the queue
// needs 2), says so, and warns on stderr that upstream's planner (16, the
// queue alone) would drop 24 on each; with records that fit upstream's
// capacity it does not warn.
func TestPlanKernelGradients(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sched := filepath.Join(dir, "kg.yaml")
	for _, c := range []struct {
		replicas string
		caps     string
		warn     bool
	}{{"40", "--aiv-capacity 48", true}, {"16", "--aiv-capacity 16", false}} {
		src := "num_workers: 48\nkernel_family: MegaMoe\nreplica_gradients: " + c.replicas + "\ntasks:\n  - {task_type: ShmemGetMem, trigger_event: 1}\n" +
			"  - {task_type: GroupedMatMul, dependent_event: 1}\ncube_task_indices: [1]\nvector_task_indices: [0]\n"
		require.NoError(t, os.WriteFile(sched, []byte(src), 0o644))
		stdout, errOut, code := runMain(t, "plan", sched)
		require.Equalf(t, ExitOK, code, "%s: code", errOut)
		assert.Containsf(t, stdout, "replica records  "+c.replicas+" ReplicaW2Return records on each even AIV core (kernel-gradients mode)", "replicas %s: stdout", c.replicas)
		assert.Containsf(t, stdout, c.caps, "replicas %s: stdout", c.replicas)
		const warning = "kg.yaml:3:20: replica_gradients: each even vector core writes 40 ReplicaW2Return records; upstream's planner counts only the vector queue (2 records on the busiest AIV worker) and sizes AIV at 16, so the device would drop 24 of them on each; this plan's AIV capacity is 48"
		assert.Equalf(t, c.warn, strings.Contains(errOut, warning), "replicas %s: stderr %q: warning", c.replicas, errOut)
	}
}
