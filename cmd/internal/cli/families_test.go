package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// familyCase is a capture of one kernel family, synthesized from a
// schedule that gives its tasks the family's ids (profile_desc_id, as
// upstream's builders set TaskDescC.profile_desc_id), and what upstream
// names its records: the names are written out here from upstream's
// tables, not looked up in the schema.
type familyCase struct {
	name     string
	schedule string
	// flags choose the family (by kernel name or by family name).
	flags []string
	// events are the names of every record decode writes; types and
	// stages analyze's compute groups (typesNoPlan the types without the
	// schedule, when a graph stage's type then is unknown).
	events, types, typesNoPlan, stages []string
}

var familyCases = []familyCase{{
	name: "MegaMoe",
	// modules/mega_moe/profiling.py@206213f: 0x10001..0x10005 Dispatch,
	// GMM1, SwiGLU, GMM2, Combine; profiler/profiling.py@0e81ad83: task
	// type 107 is ShmemGetMem.
	schedule: `num_workers: 4
tasks:
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x10001, trigger_event: 1, owner_id: 0}
  - {task_type: GroupedMatMul, profile_desc_id: 0x10002, dependent_event: 1, trigger_event: 2, owner_id: 0}
  - {task_type: SwiGLU, profile_desc_id: 0x10003, dependent_event: 2, trigger_event: 3, owner_id: 0}
  - {task_type: GroupedMatMul, profile_desc_id: 0x10004, dependent_event: 3, trigger_event: 4, owner_id: 1}
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x10005, dependent_event: 4, owner_id: 1}
  - {task_type: 107}
cube_task_indices: [1, 3]
vector_task_indices: [0, 2, 4, 5]
`,
	flags: []string{"--kernel-name", "MegaMoe"},
	// A wait or trigger is named after its task's stage (the task's
	// compute record's), as upstream's host names it: Dispatch and
	// Combine signal their peers (no trigger record), Dispatch waits on
	// nothing, task 5 has no stage.
	events: []string{"Combine", "Combine_WaitDependency", "Dispatch", "GMM1", "GMM1_TriggerEvent", "GMM1_WaitDependency", "GMM2",
		"GMM2_TriggerEvent", "GMM2_WaitDependency", "SwiGLU", "SwiGLU_TriggerEvent", "SwiGLU_WaitDependency", "TaskType_ShmemGetMem", "TriggerEvent"},
	types:  []string{"GroupedMatMul", "ShmemGetMem", "ShmemPutMemSignal", "SwiGLU"},
	stages: []string{"Combine", "Dispatch", "GMM1", "GMM2", "SwiGLU", "TaskType_ShmemGetMem"},
}, {
	name: "MegaMoeGrad",
	// 0x11001..0x11007 DispatchGrad, ActGrad, W2Grad, SwiGLUGrad,
	// GateGrad, W1Grad, CombineGrad.
	schedule: `num_workers: 4
tasks:
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x11001, trigger_event: 1}
  - {task_type: GroupedMatMul, profile_desc_id: 0x11002, dependent_event: 1, trigger_event: 2}
  - {task_type: GroupedMatMul, profile_desc_id: 0x11003, dependent_event: 1, trigger_event: 3}
  - {task_type: SwiGLUGrad, profile_desc_id: 0x11004, dependent_event: 2, trigger_event: 4}
  - {task_type: GroupedMatMul, profile_desc_id: 0x11005, dependent_event: 4, trigger_event: 5}
  - {task_type: GroupedMatMul, profile_desc_id: 0x11006, dependent_event: 4, trigger_event: 6}
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x11007, dependent_event: 5}
cube_task_indices: [1, 2, 4, 5]
vector_task_indices: [0, 3, 6]
`,
	flags: []string{"--kernel-name", "mega_moe_grad"},
	events: []string{"ActGrad", "ActGrad_TriggerEvent", "ActGrad_WaitDependency", "CombineGrad", "CombineGrad_WaitDependency",
		"DispatchGrad", "GateGrad", "GateGrad_TriggerEvent", "GateGrad_WaitDependency", "SwiGLUGrad", "SwiGLUGrad_TriggerEvent",
		"SwiGLUGrad_WaitDependency", "W1Grad", "W1Grad_TriggerEvent", "W1Grad_WaitDependency", "W2Grad", "W2Grad_TriggerEvent",
		"W2Grad_WaitDependency"},
	types:  []string{"GroupedMatMul", "ShmemPutMemSignal", "SwiGLUGrad"},
	stages: []string{"ActGrad", "CombineGrad", "DispatchGrad", "GateGrad", "SwiGLUGrad", "W1Grad", "W2Grad"},
}, {
	name: "MHC",
	// profiler/profiling.py@979e2a9: 107..119 are the Mhc* task types;
	// graph stages are named on the host (GraphStage_<n> without a
	// names file).
	schedule: `num_workers: 2
tasks:
  - {task_type: 108, trigger_event: 1}
  - {task_type: 109, dependent_event: 1, trigger_event: 2}
  - {task_type: 107, dependent_event: 2}
  - {task_type: 111, graph_stage: 3}
cube_task_indices: [1]
vector_task_indices: [0, 2, 3]
`,
	flags:       []string{"--kernel-name", "HyperMegaMhc"},
	events:      []string{"GraphStage_3", "TaskType_MhcNormCast", "TaskType_MhcPost", "TaskType_MhcProjection", "TriggerEvent", "WaitDependency"},
	types:       []string{"MhcNormCast", "MhcPost", "MhcProjection", "RmsNorm"},
	typesNoPlan: []string{"MhcNormCast", "MhcPost", "MhcProjection", "graph stage GraphStage_3"},
	stages:      []string{"GraphStage_3", "TaskType_MhcNormCast", "TaskType_MhcPost", "TaskType_MhcProjection"},
}, {
	name: "Gate",
	// modules/mega_gate/plan.py and profiling.py@8f3c6ce: an AIV
	// pipeline whose task i (TaskType 107 + i, scheduler/config.py)
	// writes graph stage i, named Softplus, Sqrt, AddBias, TopK, ...
	schedule: `mode: aiv_pipeline
num_workers: 4
tasks:
  - {task_type: 107, profile_desc_id: 0x30000}
  - {task_type: 108, profile_desc_id: 0x30001}
  - {task_type: 109, profile_desc_id: 0x30002}
  - {task_type: 110, profile_desc_id: 0x30003}
  - {task_type: 111, profile_desc_id: 0x30004}
  - {task_type: 112, profile_desc_id: 0x30005}
  - {task_type: 113, profile_desc_id: 0x30006}
  - {task_type: 114, profile_desc_id: 0x30007}
  - {task_type: 115, profile_desc_id: 0x30008}
  - {task_type: 116, profile_desc_id: 0x30009}
vector_task_indices: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
`,
	flags:  []string{"--kernel-family", "megagateroute"},
	events: []string{"AddBias", "AddEpsilon", "CastIndex", "Div", "Gather", "MulScale", "ReduceSum", "Softplus", "Sqrt", "TopK"},
	types: []string{"GateAddBias", "GateAddEpsilon", "GateCastIndex", "GateDiv", "GateGather", "GateMulScale", "GateReduceSum",
		"GateSoftplus", "GateSqrt", "GateTopk"},
	stages: []string{"AddBias", "AddEpsilon", "CastIndex", "Div", "Gather", "MulScale", "ReduceSum", "Softplus", "Sqrt", "TopK"},
}}

type familyAnalysis struct {
	Ranks []struct {
		Totals struct {
			ComputeCycles uint64 `json:"compute_cycles"`
			WaitCycles    uint64 `json:"wait_cycles"`
			TriggerCycles uint64 `json:"trigger_cycles"`
			OtherCycles   uint64 `json:"other_cycles"`
		} `json:"totals"`
		TaskTypes []struct {
			Name string `json:"name"`
		} `json:"task_types"`
		Stages []struct {
			Name string `json:"name"`
		} `json:"stages"`
	} `json:"ranks"`
}

func groupNames(groups []struct {
	Name string `json:"name"`
}) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g.Name)
	}
	slices.Sort(out)
	return out
}

// TestKernelFamilyCaptures: captures of MegaMoe, MegaMoeGrad, MHC and Gate
// kernels, synthesized with their ids, decode with upstream's names and
// analyze with their compute counted as compute (no cycle is "other"),
// whatever the schedule says.
func TestKernelFamilyCaptures(t *testing.T) {
	t.Parallel()
	for _, c := range familyCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sched := filepath.Join(dir, "s.yaml")
			require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
			capPath := filepath.Join(dir, "c.bin")
			_, errOut, code := runMain(t, "synth", sched, "--seed", "3", "-o", capPath)
			require.Equalf(t, ExitOK, code, "%s: code", errOut)

			out := filepath.Join(dir, "t.json")
			_, errOut, code = runMain(t, append([]string{"decode", capPath, "-o", out}, c.flags...)...)
			require.Equalf(t, ExitOK, code, "%s: code", errOut)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			names := map[string]bool{}
			for _, e := range parseCLITrace(t, data).TraceEvents {
				if e.Ph == "X" {
					names[e.Name] = true
				}
			}
			var got []string
			for n := range names {
				got = append(got, n)
			}
			slices.Sort(got)
			assert.Equal(t, c.events, got, "decode's event names")

			for _, withPlan := range []bool{false, true} {
				args := append([]string{"analyze", capPath, "--format", "json"}, c.flags...)
				if withPlan {
					args = append(args, "--plan", sched)
				}
				stdout, errOut, code := runMain(t, args...)
				require.Equalf(t, ExitOK, code, "%s: code", errOut)
				var a familyAnalysis
				require.NoError(t, json.Unmarshal([]byte(stdout), &a))
				require.Len(t, a.Ranks, 1, "len(a.Ranks)")
				r := a.Ranks[0]
				assert.NotEqualf(t, uint64(0), r.Totals.ComputeCycles, "plan %v: r.Totals.ComputeCycles = 0, want non-zero", withPlan)
				assert.Equalf(t, uint64(0), r.Totals.OtherCycles, "plan %v: every record is compute, wait or trigger: r.Totals.OtherCycles", withPlan)
				types := c.types
				if !withPlan && c.typesNoPlan != nil {
					types = c.typesNoPlan
				}
				assert.Equalf(t, types, groupNames(r.TaskTypes), "plan %v: task types: groupNames(r.TaskTypes)", withPlan)
				assert.Equalf(t, c.stages, groupNames(r.Stages), "plan %v: stages: groupNames(r.Stages)", withPlan)
			}
		})
	}
}

// TestKernelFamilyChoice: without a flag the family is inferred from the
// ids and said; under --kernel-family none the seed's table stays (a
// MegaMoe capture's stages are DescId_<n> and "other", task type 107 is
// MhcPost); --kernel-family overrides --kernel-name (none asks for no
// family); an unknown family is a usage error listing the families; a
// names file still names first.
func TestKernelFamilyChoice(t *testing.T) {
	t.Parallel()
	c := familyCases[0]
	dir := t.TempDir()
	sched := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
	capPath := filepath.Join(dir, "c.bin")
	_, errOut, code := runMain(t, "synth", sched, "--seed", "3", "-o", capPath)
	require.Equalf(t, ExitOK, code, "%s: code", errOut)

	eventNames := func(args ...string) string {
		out := filepath.Join(dir, "t.json")
		_, errOut, code := runMain(t, append([]string{"decode", capPath, "-o", out}, args...)...)
		require.Equalf(t, ExitOK, code, "%s: code", errOut)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var names []string
		for _, e := range parseCLITrace(t, data).TraceEvents {
			if e.Ph == "X" && !slices.Contains(names, e.Name) {
				names = append(names, e.Name)
			}
		}
		slices.Sort(names)
		return strings.Join(names, " ")
	}
	seed := "DescId_65537 DescId_65538 DescId_65539 DescId_65540 DescId_65541 TaskType_MhcPost TriggerEvent WaitDependency"
	// Without a flag the family is inferred from the stage ids only
	// MegaMoe names (0x10001..0x10005), and said.
	assert.Equal(t, strings.Join(c.events, " "), eventNames(), "eventNames()")
	_, errOut, _ = runMain(t, "decode", capPath, "-o", filepath.Join(dir, "i.json"))
	assert.Contains(t, errOut, "read under kernel family MegaMoe, inferred from desc ids 0x10001, 0x10002, 0x10003, 0x10004 and 2 more", "decode without a family: stderr, want it to say the family and what it was inferred from")
	assert.Equal(t, seed, eventNames("--kernel-name", "MegaMoe", "--kernel-family", "none"))
	assert.Equal(t, strings.Join(c.events, " "), eventNames("--kernel-name", "Other", "--kernel-family", "MegaMoe"))
	names := filepath.Join(dir, "n.yaml")
	require.NoError(t, os.WriteFile(names, []byte("stages:\n  0x10002: FirstGMM\n"), 0o644))
	var want []string
	for _, n := range c.events {
		if n == "GMM1" || strings.HasPrefix(n, "GMM1_") {
			n = "FirstGMM" + strings.TrimPrefix(n, "GMM1")
		}
		want = append(want, n)
	}
	slices.Sort(want)
	assert.Equal(t, strings.Join(want, " "), eventNames("--kernel-name", "MegaMoe", "--names", names), "the names file names 0x10002 first: eventNames(\"--kernel-name\", \"MegaMoe\", \"--names\", names)")

	// Detailed names carry the family's owner label unless one is given.
	out := filepath.Join(dir, "d.json")
	_, errOut, code = runMain(t, "decode", capPath, "-o", out, "--kernel-name", "MegaMoe", "--detailed-names")
	require.Equalf(t, ExitOK, code, "%s: code", errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"Expert0_Dispatch_task1"`, "string(data)")

	stdout, errOut, code := runMain(t, "analyze", capPath, "--format", "json", "--kernel-family", "none")
	require.Equalf(t, ExitOK, code, "%s: code", errOut)
	var a familyAnalysis
	require.NoError(t, json.Unmarshal([]byte(stdout), &a))
	assert.NotEqual(t, uint64(0), a.Ranks[0].Totals.OtherCycles, "under no family, MegaMoe's stages are other: a.Ranks[0].Totals.OtherCycles = 0, want non-zero")

	for _, cmd := range [][]string{{"decode", capPath, "-o", filepath.Join(dir, "x.json")}, {"analyze", capPath}, {"validate", capPath},
		{"dump", capPath}, {"report", capPath, "-o", filepath.Join(dir, "r.html")}, {"diff", capPath, capPath}} {
		_, errOut, code := runMain(t, append(cmd, "--kernel-family", "MoE")...)
		assert.Equalf(t, ExitUsage, code, "%v: code", cmd)
		assert.Containsf(t, errOut, `--kernel-family "MoE": no such family; the families are MegaMoe, MegaMoeGrad, MegaMoeGraph, MegaMoeGradGraph, MegaMhc,`, "%v: errOut", cmd)
	}
	_, err = os.Stat(filepath.Join(dir, "x.json"))
	assert.True(t, os.IsNotExist(err), "a refused decode writes nothing: os.IsNotExist(err) = false, want true")
}

// TestKernelFamilyValidateDump: validate's unknown-task-type warning and
// dump's descriptor names follow the family: task type 107 is known to
// MegaMoe (ShmemGetMem), 141 is not; dump names 0x10002 GMM1.
func TestKernelFamilyValidateDump(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sched := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(sched, []byte(`num_workers: 2
tasks:
  - {task_type: GroupedMatMul, profile_desc_id: 0x10002}
  - {task_type: 141}
cube_task_indices: [0]
vector_task_indices: [1]
`), 0o644))
	capPath := filepath.Join(dir, "c.bin")
	_, errOut, code := runMain(t, "synth", sched, "-o", capPath)
	require.Equalf(t, ExitOK, code, "%s: code", errOut)

	out, _, code := runMain(t, "validate", capPath)
	assert.Equal(t, ExitOK, code, "code")
	assert.NotContainsf(t, out, "unknown-task-type", "141 is ShmemGetMem in the seed's table: out = %q, want no %q", out, "unknown-task-type")
	out, _, code = runMain(t, "validate", capPath, "--kernel-name", "MegaMoe")
	assert.Equal(t, ExitOK, code, "code")
	assert.Contains(t, out, "warning unknown-task-type", "out")
	assert.Contains(t, out, "desc_id=0x2008d (task type 141), expected a task type of the MegaMoe kernel family", "out")

	out, _, code = runMain(t, "dump", capPath, "--kernel-name", "MegaMoe", "--slot", "AIC/0")
	assert.Equal(t, ExitOK, code, "code")
	assert.Contains(t, out, "0x10002 GMM1", "out")
	out, _, _ = runMain(t, "dump", capPath, "--slot", "AIC/0")
	assert.Contains(t, out, "0x10002 DescId_65538", "out")
}

// TestSchemaOwnTableAmbiguity: the shipped AIV-pipeline example's task
// types (107..112) mean otherwise under the Gate families; the warning
// names the flag for either answer, and --kernel-family none, the one that
// says the data is of the schema's own table, silences it.
func TestSchemaOwnTableAmbiguity(t *testing.T) {
	t.Parallel()
	aiv := "../../../examples/aiv_pipeline.npy"
	out := filepath.Join(t.TempDir(), "t.json")
	_, errOut, code := runMain(t, "decode", aiv, "--soc", "Ascend950", "-o", out)
	require.Equal(t, ExitOK, code, "code")
	require.Contains(t, errOut, "warning: ", "code")
	assert.Contains(t, errOut, "--kernel-family none if it is of the schema's own", "code")
	_, errOut, code = runMain(t, "decode", aiv, "--soc", "Ascend950", "--kernel-family", "none", "-o", out)
	require.Equalf(t, ExitOK, code, "kernel-family none: code, stderr %q: want no warning", errOut)
	assert.NotContainsf(t, errOut, "warning", "kernel-family none: code, stderr %q: want no warning", errOut)
}
