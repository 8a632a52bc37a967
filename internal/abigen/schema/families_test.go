package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamTaskTypes are upstream's task-type tables, copied by hand from
// the files each family cites: profiler/profiling.py@0e81ad83
// TASK_TYPE_NAMES (MoE), the same at 979e2a9 (MHC), and
// scheduler/config.py@8f3c6ce TaskType (Gate; its enum member names with
// TASK_ dropped and each word capitalized, since that commit's profiler
// names none of them).
var upstreamTaskTypes = func() map[string]map[uint32]string {
	common := "0 Terminate, 10 BeginTaskGraph, 101 AddCustom, 102 SwiGLU, 103 MatMul, 104 GroupedMatMul, 105 ShmemPutMemSignal, 106 SwiGLUGrad"
	moe := common + ", 107 ShmemGetMem"
	mhc := common + ", 107 MhcPost, 108 MhcNormCast, 109 MhcProjection, 110 MhcMapping, 111 RmsNorm, 112 MhcInputMix, " +
		"113 RmsNormGrad, 114 MhcGradPrevA, 115 MhcGradMapping, 116 MhcGradPhiRms, 117 MhcGradPrevXAndPost, 118 MhcPostGrad, " +
		"119 MhcGradPrevAAndMapping"
	gateEnum := []string{"GATE_SOFTPLUS", "GATE_SQRT", "GATE_ADD_BIAS", "GATE_TOPK", "GATE_GATHER", "GATE_REDUCE_SUM",
		"GATE_ADD_EPSILON", "GATE_DIV", "GATE_MUL_SCALE", "GATE_CAST_INDEX", "GATE_GRAD_MULS_SCALE",
		"GATE_GRAD_BROADCAST_DENOMINATOR", "GATE_GRAD_NEG", "GATE_GRAD_DIV_SELECTED", "GATE_GRAD_DIV_SELECTED_RATIO",
		"GATE_GRAD_MUL_CROSS", "GATE_GRAD_DIV_DIRECT", "GATE_GRAD_REDUCE_SUM", "GATE_GRAD_BROADCAST_ROW_SUM",
		"GATE_GRAD_ADD_SELECTED", "GATE_GRAD_ZEROS"}
	gate := common
	for i, e := range gateEnum {
		name := ""
		for _, w := range strings.Split(e, "_") {
			name += w[:1] + strings.ToLower(w[1:])
		}
		gate += fmt.Sprintf(", %d %s", 107+i, name)
	}
	parse := func(s string) map[uint32]string {
		m := map[uint32]string{}
		for _, kv := range strings.Split(s, ", ") {
			var v uint32
			var n string
			fmt.Sscanf(kv, "%d %s", &v, &n)
			m[v] = n
		}
		return m
	}
	// runtime/generated/gate_abi.py@ec0fa8dd (the fork's generated gate
	// ABI): 107 MEGA_GATE_ROUTE, then the Gate task types one higher, 128..134
	// added.
	genEnum := []string{"MEGA_GATE_ROUTE", "GATE_SOFTPLUS", "GATE_SQRT", "GATE_ADD_BIAS", "GATE_TOPK", "GATE_GATHER",
		"GATE_REDUCE_SUM", "GATE_ADD_EPSILON", "GATE_DIV", "GATE_MUL_SCALE", "GATE_CAST_INDEX", "GATE_GRAD_MULS_SCALE",
		"GATE_GRAD_NEG", "GATE_GRAD_DIV_SELECTED", "GATE_GRAD_DIV_SELECTED_RATIO", "GATE_GRAD_MUL_CROSS",
		"GATE_GRAD_DIV_DIRECT", "GATE_GRAD_REDUCE_SUM", "GATE_GRAD_BROADCAST_ROW_SUM", "GATE_GRAD_ADD_SELECTED",
		"GATE_GRAD_ZEROS", "GATE_GRAD_LINEAR_INDEX", "GATE_GRAD_SCATTER_SELECTED", "GATE_GRAD_MULS_DOUBLE_SCORE",
		"GATE_GRAD_DIV_SQRT", "GATE_GRAD_SOFTPLUS", "GATE_GRAD_ADD_DIRECT", "GATE_GRAD_BROADCAST_DENOMINATOR"}
	gen := common
	for i, e := range genEnum {
		name := ""
		for _, w := range strings.Split(e, "_") {
			name += w[:1] + strings.ToLower(w[1:])
		}
		gen += fmt.Sprintf(", %d %s", 107+i, name)
	}
	return map[string]map[uint32]string{
		"MegaMoe": parse(moe), "MegaMoeGrad": parse(moe), "MegaMoeGraph": parse(moe), "MegaMoeGradGraph": parse(moe),
		"MegaGateRouteGen": parse(gen), "MegaGateRouteGradGen": parse(gen), "MegaGateRouteGradK1Gen": parse(gen),
		"MegaMhc": parse(mhc), "MegaMhcGrad": parse(mhc),
		"MegaGateRoute": parse(gate), "MegaGateRouteGrad": parse(gate), "MegaGateRouteGradK1": parse(gate),
	}
}()

// modules/mega_moe/forward/graph.py@f4ae1a7a and backward/graph.py@2640a41d:
// 0x30000 + the operator's topological index (ties in the order added),
// named by its diagnostic_name; no task type is given.
const (
	moeGraph     = "0x30000 Dispatch -, 0x30001 GMM1 -, 0x30002 SwiGLU -, 0x30003 GMM2 -, 0x30004 Combine -"
	moeGradGraph = "0x30000 DispatchGrad -, 0x30001 ActGrad -, 0x30002 W2Grad -, 0x30003 SwiGLUGrad -, " +
		"0x30004 GateGrad -, 0x30005 CombineGrad -, 0x30006 W1Grad -"
)

// upstreamStages are the stage ids, names and task types of
// modules/mega_moe/profiling.py@206213f and modules/mega_gate/profiling.py
// with plan.py@8f3c6ce (graph stage i = 0x30000 + i, task i of type
// MEGA_GATE_*_TASK_TYPES[i]), and each family's kernel names and owner label.
var upstreamStages = map[string]struct {
	kernels, owner string
	stages         string // "id name tasktype" triples
}{
	// The graph-driven kernel keeps the kernel names MegaMoe and
	// MegaMoeGrad, so those families name its graph stages too (below).
	"MegaMoe": {"MegaMoe", "Expert", "0x10001 Dispatch ShmemPutMemSignal, 0x10002 GMM1 GroupedMatMul, 0x10003 SwiGLU SwiGLU, " +
		"0x10004 GMM2 GroupedMatMul, 0x10005 Combine ShmemPutMemSignal, " + moeGraph},
	"MegaMoeGrad": {"MegaMoeGrad", "Expert", "0x11001 DispatchGrad ShmemPutMemSignal, 0x11002 ActGrad GroupedMatMul, " +
		"0x11003 W2Grad GroupedMatMul, 0x11004 SwiGLUGrad SwiGLUGrad, 0x11005 GateGrad GroupedMatMul, " +
		"0x11006 W1Grad GroupedMatMul, 0x11007 CombineGrad ShmemPutMemSignal, " + moeGradGraph},
	"MegaMoeGraph":     {"", "Expert", moeGraph},
	"MegaMoeGradGraph": {"", "Expert", moeGradGraph},
	"MegaMhc":          {"HyperMegaMhc", "TokenPartition", ""},
	// runtime/mhc.py@29d814a6: TokenPartition (NativeKernel before).
	"MegaMhcGrad": {"HyperMegaMhcGrad", "TokenPartition", ""},
	"MegaGateRoute": {"HyperMegaGateRoute", "TokenRowShard", "0x30000 Softplus GateSoftplus, 0x30001 Sqrt GateSqrt, " +
		"0x30002 AddBias GateAddBias, 0x30003 TopK GateTopk, 0x30004 Gather GateGather, 0x30005 ReduceSum GateReduceSum, " +
		"0x30006 AddEpsilon GateAddEpsilon, 0x30007 Div GateDiv, 0x30008 MulScale GateMulScale, 0x30009 CastIndex GateCastIndex"},
	"MegaGateRouteGrad": {"HyperMegaGateRouteGrad", "TokenRowShard", "0x30000 MulsScaleGrad GateGradMulsScale, " +
		"0x30001 BroadcastDenominator GateGradBroadcastDenominator, 0x30002 Neg GateGradNeg, 0x30003 DivSelected GateGradDivSelected, " +
		"0x30004 DivSelectedRatio GateGradDivSelectedRatio, 0x30005 MulCross GateGradMulCross, 0x30006 DivDirect GateGradDivDirect, " +
		"0x30007 ReduceSum GateGradReduceSum, 0x30008 BroadcastRowSum GateGradBroadcastRowSum, " +
		"0x30009 AddSelectedGrad GateGradAddSelected, 0x3000a ZerosLike GateGradZeros"},
	"MegaGateRouteGradK1": {"", "TokenRowShard", "0x30000 MulsScaleGrad GateGradMulsScale, 0x30001 ZerosLike GateGradZeros"},
}

func init() {
	// The fork's generated gate ABI keeps runtime/baselines/families.json's
	// stage names (d131a78); their task types keep their names, at new values.
	for _, n := range []string{"MegaGateRoute", "MegaGateRouteGrad", "MegaGateRouteGradK1"} {
		e := upstreamStages[n]
		e.kernels = ""
		upstreamStages[n+"Gen"] = e
	}
}

// TestFamiliesFollowUpstream holds the schema's families to upstream's
// tables as copied above: every task type, stage id, stage name, stage
// task type, kernel name and owner label, and every stage a compute stage.
func TestFamiliesFollowUpstream(t *testing.T) {
	s := load(t)
	require.Equalf(t, len(upstreamStages), len(s.Families), "len(s.Families): %v", s.Families)
	for _, f := range s.Families {
		want, ok := upstreamStages[f.Name]
		require.Truef(t, ok, "family %s is not upstream's: ok = false, want true", f.Name)
		got := map[uint32]string{}
		for _, tt := range f.TaskTypes {
			got[tt.Value] = tt.Name
		}
		assert.Equalf(t, upstreamTaskTypes[f.Name], got, "%s task types", f.Name)
		assert.Equalf(t, want.kernels, strings.Join(f.KernelNames, " "), "%s kernel names: strings.Join(f.KernelNames, \" \")", f.Name)
		assert.Equal(t, want.owner, f.OwnerLabel, "%s owner label", f.Name)
		var stages []string
		for _, st := range f.Stages {
			tt := "-"
			if st.TaskType != nil {
				tt = st.TaskType.Name
			}
			stages = append(stages, fmt.Sprintf("%#x %s %s", st.DescID, st.Name, tt))
			assert.Equal(t, ClassCompute, st.Class, "%s.%s: upstream's stages are a task's compute", f.Name, st.Name)
		}
		assert.Equalf(t, want.stages, strings.Join(stages, ", "), "%s stages: strings.Join(stages, \", \")", f.Name)
		assert.NotEmpty(t, f.Upstream, "%s: f.Upstream", f.Name)
	}
}

// TestFamilyRules checks the loader's family rules on the real schema:
// kernel names select at most one family, stage ids lie in the namespace
// the loader found and clash with no id the namespaces name.
func TestFamilyRules(t *testing.T) {
	s := load(t)
	kernels := map[string]string{}
	for _, f := range s.Families {
		for _, k := range f.KernelNames {
			key := KernelKey(k)
			assert.Emptyf(t, kernels[key], "kernel %s selects and %s: kernels[key], want empty", k, f.Name)
			kernels[key] = f.Name
		}
		for _, st := range f.Stages {
			ns := st.Namespace
			require.NotNil(t, ns, "ns is nil, want non-nil")
			assert.Nil(t, ns.Enum, "%s.%s: ns.Enum", f.Name, st.Name)
			assert.True(t, uint64(st.DescID) >= uint64(ns.Base) && uint64(st.DescID) < ns.End(), "uint64(st.DescID) >= uint64(ns.Base) && uint64(st.DescID) < ns.End() = false, want true")
			for _, dn := range ns.Names {
				assert.NotEqual(t, ns.Base+dn.Index, st.DescID, "%s.%s renames %s", f.Name, st.Name, dn.Name)
			}
		}
	}
	assert.Equal(t, "hypermegamoe", KernelKey(" Hyper_Mega_MoE "), "KernelKey(\" Hyper_Mega_MoE \")")
}
