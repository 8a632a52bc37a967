package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replicaCapture is a kernel-gradients capture as upstream's
// ProcessReplicaGradients writes it (ops/runtime/worker_kernel.h@7b1c95f9):
// the even vector cores write only ReplicaW2Return records, 0x10008, task
// 0, stage_task_index the peer rank, owner_id rank·(home experts + slots)
// + owner; an odd vector core runs the queue (a compute and its trigger).
func replicaCapture() []byte {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	const base = 1_000_000
	for _, block := range []uint32{0, 1, 2} {
		b.Enter(abi.CoreTypeAIV, block, base)
	}
	for block := uint32(0); block <= 2; block += 2 {
		for peer := uint32(0); peer < 3; peer++ {
			start := base + 100 + 300*uint64(peer)
			b.Write(abi.CoreTypeAIV, block, abi.ProfileRecord{StartCycle: start, EndCycle: start + 250,
				DescID: 0x10008, TaskID: 0, StageTaskIndex: peer, OwnerID: 1*(4+2) + peer})
		}
	}
	b.Write(abi.CoreTypeAIV, 1, abi.ProfileRecord{StartCycle: base + 100, EndCycle: base + 400,
		DescID: abi.TaskTypeBase + uint32(abi.TaskTypeSwiGLU), OwnerID: abi.InvalidOwnerID})
	b.Write(abi.CoreTypeAIV, 1, abi.ProfileRecord{StartCycle: base + 400, EndCycle: base + 420,
		DescID: abi.RuntimeStageTriggerEvent, OwnerID: abi.InvalidOwnerID})
	return b.Bytes()
}

// TestReplicaW2Return: 0x10008 decodes as ReplicaW2Return under every
// family and under none, and analyze counts it as compute: the even vector
// cores that write only these records are busy, nothing is "other".
func TestReplicaW2Return(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := filepath.Join(dir, "c.bin")
	require.NoError(t, os.WriteFile(capPath, replicaCapture(), 0o644))
	layout := []string{"--cube-slots", "24", "--aic-capacity", "16", "--aiv-capacity", "16"}
	families := []string{"none"}
	for _, f := range abi.Families() {
		families = append(families, f.String())
	}
	for _, fam := range families {
		out := filepath.Join(dir, fam+".json")
		args := append([]string{"decode", capPath, "-o", out, "--kernel-family", fam}, layout...)
		_, errOut, code := runMain(t, args...)
		require.Equalf(t, ExitOK, code, "%s: %s: code", fam, errOut)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		n := 0
		for _, e := range parseCLITrace(t, data).TraceEvents {
			if e.Ph != "X" || e.Args["desc_id"] == nil {
				continue
			}
			if id, _ := e.Args["desc_id"].(float64); id == 0x10008 {
				n++
				assert.Equalf(t, "ReplicaW2Return", e.Name, "%s: desc_id 0x10008 is named", fam)
			}
		}
		assert.Equalf(t, 6, n, "%s", fam)

		stdout, errOut, code := runMain(t, append([]string{"analyze", capPath, "--format", "json", "--kernel-family", fam}, layout...)...)
		require.Equalf(t, ExitOK, code, "%s: %s: code", fam, errOut)
		var a struct {
			Ranks []struct {
				Cores []struct {
					Core          string `json:"core"`
					ComputeCycles uint64 `json:"compute_cycles"`
					OtherCycles   uint64 `json:"other_cycles"`
				} `json:"cores"`
				Stages []struct {
					Name  string `json:"name"`
					Count uint64 `json:"count"`
				} `json:"stages"`
			} `json:"ranks"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &a))
		require.Lenf(t, a.Ranks, 1, "%s", fam)
		for _, c := range a.Ranks[0].Cores {
			assert.Equalf(t, uint64(0), c.OtherCycles, "%s: core %s: other_cycles", fam, c.Core)
			assert.Falsef(t, (c.Core == "AIV/0" || c.Core == "AIV/2") && c.ComputeCycles != 3*250, "%s: core %s: compute_cycles = %d, want %d (its ReplicaW2Return records)", fam, c.Core, c.ComputeCycles, 3*250)
		}
		found := false
		for _, s := range a.Ranks[0].Stages {
			if s.Name == "ReplicaW2Return" {
				found = s.Count == 6
			}
		}
		assert.Truef(t, found, "%s: analyze's stages %+v: want ReplicaW2Return with 6 records", fam, a.Ranks[0].Stages)
	}
}

// TestMegaMoeGraphStagesByKernelName: upstream's graph-driven MegaMoe
// keeps the kernel name MegaMoe (and MegaMoeGrad) and writes 0x30000 + the
// operator's topological index (modules/mega_moe/forward/graph.py@f4ae1a7a,
// backward/graph.py@2640a41d). Under the kernel name, and under the
// family's name, the stages are named with no warning; the older
// MegaMoeGraph and MegaMoeGradGraph name them alike.
func TestMegaMoeGraphStagesByKernelName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		schedule string
		flags    [][]string
		stages   []string
	}{{
		schedule: `num_workers: 4
tasks:
  - {task_type: 107, profile_desc_id: 0x30000, trigger_event: 1}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30001, dependent_event: 1, trigger_event: 2}
  - {task_type: SwiGLU, profile_desc_id: 0x30002, dependent_event: 2, trigger_event: 3}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30003, dependent_event: 3, trigger_event: 4}
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x30004, dependent_event: 4}
cube_task_indices: [1, 3]
vector_task_indices: [0, 2, 4]
`,
		flags:  [][]string{{"--kernel-name", "MegaMoe"}, {"--kernel-family", "MegaMoe"}, {"--kernel-family", "MegaMoeGraph"}},
		stages: []string{"Combine", "Dispatch", "GMM1", "GMM2", "SwiGLU"},
	}, {
		schedule: `num_workers: 4
tasks:
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x30000, trigger_event: 1}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30001, dependent_event: 1, trigger_event: 2}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30002, dependent_event: 1, trigger_event: 3}
  - {task_type: SwiGLUGrad, profile_desc_id: 0x30003, dependent_event: 2, trigger_event: 4}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30004, dependent_event: 4, trigger_event: 5}
  - {task_type: ShmemPutMemSignal, profile_desc_id: 0x30005, dependent_event: 5}
  - {task_type: GroupedMatMul, profile_desc_id: 0x30006, dependent_event: 4, trigger_event: 6}
cube_task_indices: [1, 2, 4, 6]
vector_task_indices: [0, 3, 5]
`,
		flags:  [][]string{{"--kernel-name", "MegaMoeGrad"}, {"--kernel-family", "MegaMoeGrad"}, {"--kernel-family", "MegaMoeGradGraph"}},
		stages: []string{"ActGrad", "CombineGrad", "DispatchGrad", "GateGrad", "SwiGLUGrad", "W1Grad", "W2Grad"},
	}}
	for i, c := range cases {
		dir := t.TempDir()
		sched := filepath.Join(dir, "s.yaml")
		require.NoError(t, os.WriteFile(sched, []byte(c.schedule), 0o644))
		capPath := filepath.Join(dir, "c.bin")
		_, errOut, code := runMain(t, "synth", sched, "--seed", "5", "-o", capPath)
		require.Equalf(t, ExitOK, code, "case %d: %s: code", i, errOut)
		for _, flags := range c.flags {
			out := filepath.Join(dir, "t.json")
			_, errOut, code := runMain(t, append([]string{"decode", capPath, "-o", out}, flags...)...)
			require.Equalf(t, ExitOK, code, "case %d %v: %s: code", i, flags, errOut)
			assert.NotContainsf(t, errOut, "warning", "case %d %v: decode warns: %s", i, flags, errOut)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			names := map[string]bool{}
			for _, e := range parseCLITrace(t, data).TraceEvents {
				if id, _ := e.Args["desc_id"].(float64); e.Ph == "X" && id >= 0x30000 && id < 0x40000 {
					names[e.Name] = true
				}
			}
			var got []string
			for n := range names {
				got = append(got, n)
			}
			slices.Sort(got)
			assert.Equalf(t, c.stages, got, "case %d %v: graph stages are named", i, flags)
		}
	}
}
