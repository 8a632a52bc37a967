package kernelfamily

import (
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ids below are written out from upstream's tables
// (modules/mega_moe/profiling.py@206213f: 0x10001..0x10005 MegaMoe,
// 0x11001..0x11007 MegaMoeGrad; task types: profiler/profiling.py@0e81ad83
// and scheduler/config.py@8f3c6ce), not read from the schema.
const (
	wait    = 0x10000
	trigger = 0x10007
	tt      = 0x20000 // task-type namespace base
)

func TestInfer(t *testing.T) {
	cases := []struct {
		name string
		ev   Evidence
		// want is the family chosen; candidates the warning's list, in
		// order; from a part of the decision's From.
		want       abi.Family
		candidates []abi.Family
		noneFits   bool
		from       string
		warn       bool
	}{
		{name: "MegaMoe stages", ev: Evidence{DescIDs: []uint32{wait, 0x10001, 0x10002, 0x10003, 0x10004, 0x10005, trigger}},
			want: abi.FamilyMegaMoe, from: "desc ids 0x10001, 0x10002, 0x10003, 0x10004 and 1 more (only MegaMoe names them so)"},
		{name: "MegaMoeGrad stages", ev: Evidence{DescIDs: []uint32{0x11007, 0x11001, wait}},
			want: abi.FamilyMegaMoeGrad, from: "desc ids 0x11001, 0x11007 (only MegaMoeGrad"},
		{name: "one stage", ev: Evidence{DescIDs: []uint32{0x10003}}, want: abi.FamilyMegaMoe, from: "desc id 0x10003 "},
		{name: "kernel name wins", ev: Evidence{KernelName: "mega_moe_grad", DescIDs: []uint32{0x11002}},
			want: abi.FamilyMegaMoeGrad, from: `kernel name "mega_moe_grad"`},
		{name: "upstream's default kernel name chooses nothing", ev: Evidence{KernelName: "MegaKernel", DescIDs: []uint32{0x10002}},
			want: abi.FamilyMegaMoe, from: "0x10002"},
		{name: "forward and backward stages: no family fits", ev: Evidence{DescIDs: []uint32{0x10001, 0x11001}},
			candidates: []abi.Family{abi.FamilyMegaMoe, abi.FamilyMegaMoeGrad}, warn: true},
		{name: "generic ids need no family", ev: Evidence{DescIDs: []uint32{wait, trigger, tt + 103, tt + 104, 0x30002}}},
		// 107 is ShmemGetMem under MegaMoe, GateSoftplus under the 8f3c6ce
		// Gate table, MhcPost in the seed's (the schema's own).
		{name: "task type 107 alone", ev: Evidence{DescIDs: []uint32{tt + 107}}, noneFits: true, warn: true},
		// A trace's names decide: the event says TaskType_ShmemGetMem.
		{name: "named 107", ev: Evidence{DescIDs: []uint32{tt + 107}, StageNames: map[uint32]string{tt + 107: "TaskType_ShmemGetMem"}},
			want: abi.FamilyMegaMoe, from: "MegaMoe, MegaMoeGrad, MegaMoeGraph, MegaMoeGradGraph name them alike"},
		// Graph stage ids alone say nothing; a name the trace gives them does.
		{name: "graph ids", ev: Evidence{DescIDs: []uint32{0x30000, 0x30001}}},
		{name: "named graph ids", ev: Evidence{DescIDs: []uint32{0x30000, 0x30001}, StageNames: map[uint32]string{0x30000: "Softplus", 0x30001: "Sqrt"}},
			want: abi.FamilyMegaGateRoute, from: "MegaGateRoute, MegaGateRouteGen name them alike"},
		// Graph-driven MegaMoe: a trace names its graph stages as the
		// operators' diagnostic names (forward/graph.py@f4ae1a7a); MegaMoe
		// (the kernel's name upstream) and its alias MegaMoeGraph name
		// them alike, and MegaMoe, the first, is chosen.
		{name: "named MegaMoe graph stages", ev: Evidence{DescIDs: []uint32{wait, 0x30000, 0x30001, 0x30004},
			StageNames: map[uint32]string{0x30000: "Dispatch", 0x30001: "GMM1", 0x30004: "Combine"}},
			want: abi.FamilyMegaMoe, from: "desc ids 0x30000, 0x30001, 0x30004 (MegaMoe, MegaMoeGraph name them alike)"},
		{name: "named MegaMoeGrad graph stages", ev: Evidence{DescIDs: []uint32{0x30005, 0x30006}, StageNames: map[uint32]string{0x30005: "CombineGrad", 0x30006: "W1Grad"}},
			want: abi.FamilyMegaMoeGrad},
		// The fork's generated gate ABI numbers task types 128..134, which
		// no other table has: they alone choose it.
		{name: "fork gate task types", ev: Evidence{DescIDs: []uint32{tt + 128, tt + 134}}, want: abi.FamilyMegaGateRouteGen},
		{name: "a name that contradicts", ev: Evidence{DescIDs: []uint32{0x10001}, StageNames: map[uint32]string{0x10001: "Scatter"}},
			candidates: nil, warn: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Infer(c.ev)
			assert.Equalf(t, c.want, d.Family, "Family (decision %+v)", d)
			assert.Falsef(t, c.candidates != nil && !slices.Equal(d.Candidates, c.candidates), "Candidates = %v, want %v", d.Candidates, c.candidates)
			assert.Equal(t, c.noneFits, d.NoneFits, "NoneFits")
			assert.Contains(t, d.From, c.from, "From")
			w := d.Warning("x")
			assert.Equalf(t, c.warn, (w != ""), "Warning = %q, want one", w)
			assert.Falsef(t, c.warn && !strings.Contains(w, "--kernel-family"), "Warning = %q, want it to name --kernel-family", w)
			assert.Equal(t, d.Family != abi.FamilyNone && !strings.HasPrefix(d.From, "kernel name"), d.Note("x") != "", "Note = %q for %+v", d.Note("x"), d)
		})
	}
}

// TestInferConflicts: a kernel name chooses even against the ids, and the
// ids its family does not name are listed for the warning.
func TestInferConflicts(t *testing.T) {
	d := Infer(Evidence{KernelName: "MegaMoeGrad", DescIDs: []uint32{wait, 0x10001, 0x11001}})
	require.Equalf(t, abi.Family(abi.FamilyMegaMoeGrad), d.Family, "decision %+v, want MegaMoeGrad with conflict 0x10001", d)
	require.Truef(t, slices.Equal(d.Conflicts, []uint32{0x10001}), "decision %+v, want MegaMoeGrad with conflict 0x10001", d)
	w := d.Warning("t.json")
	require.Contains(t, w, "0x10001", "Warning")
	assert.Contains(t, w, "--kernel-family", "Warning")
}

// TestInferVariants: the graph-driven MegaMoe keeps the kernel name
// MegaMoe (forward/graph.py@f4ae1a7a), and MegaMoe names its graph stages
// itself: no id is left unnamed, no variant family (MegaMoeGraph) is
// pointed to, no warning; nor for a family with no variant (HyperMegaMhc).
func TestInferVariants(t *testing.T) {
	for _, kernel := range []string{"MegaMoe", "MegaMoeGrad"} {
		d := Infer(Evidence{KernelName: kernel, DescIDs: []uint32{wait, 0x30000, 0x30004}})
		f, _ := abi.FamilyForKernel(kernel)
		assert.Equal(t, f, d.Family, "%s: family", kernel)
		assert.Empty(t, d.Variants, "%s: variants", kernel)
		assert.Empty(t, d.Unnamed, "%s: unnamed ids", kernel)
		assert.Empty(t, d.Warning("c.bin"), "%s: warning", kernel)
	}
	named := Infer(Evidence{KernelName: "MegaMoe", DescIDs: []uint32{0x30000}, StageNames: map[uint32]string{0x30000: "Dispatch"}})
	mhc := Infer(Evidence{KernelName: "HyperMegaMhc", DescIDs: []uint32{0x30000}})
	assert.Empty(t, named.Warning("x"), "MegaMoe, its stage named: warning")
	assert.Empty(t, mhc.Warning("x"), "HyperMegaMhc: warning")
}

// TestInferOrderFree: the decision does not depend on the order or
// repetition of the ids.
func TestInferOrderFree(t *testing.T) {
	a := Infer(Evidence{DescIDs: []uint32{0x10005, 0x10001, 0x10001, wait}})
	b := Infer(Evidence{DescIDs: []uint32{wait, 0x10001, 0x10005}})
	assert.Equalf(t, b.Family, a.Family, "%+v != %+v", a, b)
	assert.Equalf(t, b.From, a.From, "%+v != %+v", a, b)
}

// TestGivenFamilyThatDoesNotFit: a family given by flag is held to the
// ids as one a kernel name chose: MegaMhc and the schema's own tables
// leave MegaMoe's stage ids unnamed, and the warning names them and
// MegaMoe; the right family draws nothing.
func TestGivenFamilyThatDoesNotFit(t *testing.T) {
	ev := Evidence{DescIDs: []uint32{0x10001, 0x10002, 0x10000}}
	for _, f := range []abi.Family{abi.FamilyMegaMhc, abi.FamilyNone} {
		d := Given(f, "flag --kernel-family", ev)
		assert.Truef(t, slices.Equal(d.Conflicts, []uint32{0x10001, 0x10002}), "%v: Conflicts %#x, Fits", f, d.Conflicts)
		assert.Equalf(t, abi.Family(abi.FamilyMegaMoe), d.Fits, "%v: Conflicts %#x, Fits", f, d.Conflicts)
		assert.Containsf(t, d.Warning("c.bin"), "name desc ids 0x10001, 0x10002: they are kernel family MegaMoe's: give --kernel-family MegaMoe", "%v: warning", f)
	}
	d := Given(abi.FamilyMegaMoe, "flag --kernel-family", ev)
	assert.Empty(t, d.Warning("c.bin"), "MegaMoe: warning")
}
