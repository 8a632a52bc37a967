package jsontrace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// invocation is one random capture of a case, and how it is decoded.
type invocation struct {
	sched  *plan.Schedule
	buf    []byte
	layout abi.Layout
	cfg    render.Config
	id     int64
	step   int64
	dir    string
}

// traceCase is one or two captures (two: a window) and the trace written
// of them.
type traceCase struct {
	invs   []*invocation
	window bool
	ref    bool   // the reference decoder writes the trace, else cycleabi decode
	gz     bool   // cycleabi decode's trace gzip-compressed
	path   string // the trace
}

// namePool names stages and tasks: plain, with underscores, with the
// digits and words detailed names add, not ASCII.
var namePool = []string{"Dispatch", "GMM1", "Combine_task1", "Expert3_x", "SwiGLU", "Étape", "A_B"}

// drawInvocation simulates a random schedule's capture, some records
// rewritten out of start order or overlapping, with random names.
func drawInvocation(t *rapid.T, rank uint32, label string) *invocation {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, label+"seed"), CapacityScale: rapid.SampledFrom([]float64{0, 0, 0.8}).Draw(t, label+"scale")}
	c, err := synth.Run(s, opts)
	if err != nil {
		var pe *plan.Error
		require.ErrorAsf(t, err, &pe, "synth: %v", err)
		opts.WaitTimeout = synth.DefaultWaitTimeout
		c, err = synth.Run(s, opts)
		require.NoError(t, err, "synth with bounded waits")
	}
	if c.Records() == 0 {
		t.Skip("no records") // a trace of nothing is refused (TestErrors)
	}
	perturb(t, c.Buffer, c.Layout, label)
	names := &kernelnames.Names{Stages: map[uint32]string{}}
	tasks := map[uint32]string{}
	for id := range s.Tasks {
		if rapid.IntRange(0, 2).Draw(t, label+"taskName") == 0 {
			tasks[uint32(id)] = rapid.SampledFrom(namePool).Draw(t, label+"task")
		}
		if g := s.Tasks[id].GraphStage; g != plan.NoGraphStage && rapid.Bool().Draw(t, label+"graphName") {
			names.Stages[abi.GraphStageBase+g] = rapid.SampledFrom(namePool).Draw(t, label+"graph")
		}
	}
	names.Tasks = kernelnames.TaskNamesOf(tasks)
	if rapid.Bool().Draw(t, label+"override") {
		names.Stages[abi.TaskTypeBase+uint32(abi.TaskTypeMatMul)] = "MyMatMul"
	}
	return &invocation{sched: s, buf: c.Buffer, layout: c.Layout, cfg: render.Config{
		Rank: rank, DeviceID: rapid.Uint32Range(0, 7).Draw(t, label+"device"), SoCName: "ascend910b",
		FrequencyMHz:  rapid.SampledFrom([]float64{50, 1000, 3}).Draw(t, label+"mhz"),
		DetailedNames: rapid.Bool().Draw(t, label+"detailed"), KernelName: "MegaKernel",
		OwnerLabel: rapid.SampledFrom([]string{"Owner", "Expert"}).Draw(t, label+"ownerLabel"), Names: names,
	}}
}

// perturb rewrites some records' cycles, so that slots are out of start
// order, records overlap and start before their core's entry.
func perturb(t *rapid.T, buf []byte, l abi.Layout, label string) {
	for i := range l.NumSlots() {
		s := l.Slot(i)
		h, _ := abi.DecodeCoreHeader(buf[s.Offset:])
		for j := range min(h.RecordCount, s.Capacity) {
			if rapid.IntRange(0, 9).Draw(t, label+"perturb") != 0 {
				continue
			}
			start := h.EntryCycle - min(h.EntryCycle, 50) + rapid.Uint64Range(0, 20000).Draw(t, label+"start")
			off := s.RecordOffset(j)
			binary.LittleEndian.PutUint64(buf[off+abi.ProfileRecordStartCycleOffset:], start)
			binary.LittleEndian.PutUint64(buf[off+abi.ProfileRecordEndCycleOffset:], start+rapid.Uint64Range(0, 3000).Draw(t, label+"len"))
		}
	}
}

func (inv *invocation) decoded(t testing.TB) *decode.Decoded {
	c, err := capture.FromBytes("capture.bin", inv.buf)
	require.NoError(t, err)
	d, err := decode.Decode(c, capture.Request{CubeSlots: inv.layout.CubeSlots, Capacities: &inv.layout.Capacities})
	require.NoError(t, err, "Decode")
	return d
}

// TestAnalyzeTraceEqualsCapture is the property: for random
// captures, analyze of the capture's JSON trace, written by the reference
// decoder (alone, or in upstream's window export) and by cycleabi decode
// (one capture, several ranks, a window; plain or gzip), equals analyze
// of the capture on everything the trace carries. Skipped without a
// Python with NumPy unless CYCLEABI_REQUIRE_PY is set.
func TestAnalyzeTraceEqualsCapture(t *testing.T) {
	py := pytest.Interpreter(t)
	dir := t.TempDir()
	var cases []*traceCase
	rapid.Check(t, func(rt *rapid.T) {
		c := &traceCase{ref: rapid.Bool().Draw(rt, "reference"), gz: rapid.Bool().Draw(rt, "gzip")}
		n := rapid.IntRange(1, 2).Draw(rt, "captures")
		c.window = n == 2 || rapid.Bool().Draw(rt, "window")
		rank := rapid.Uint32Range(0, 3).Draw(rt, "rank")
		for i := range n {
			inv := drawInvocation(rt, rank, fmt.Sprintf("inv%d.", i))
			inv.id = int64(i)
			inv.step = rapid.Int64Range(0, 5).Draw(rt, "step")
			inv.dir = rapid.SampledFrom([]string{"forward", "backward"}).Draw(rt, "direction")
			if !c.window && !c.ref && i == 1 {
				inv.cfg.Rank = rank + 1 // cycleabi decode of two ranks
			}
			c.invs = append(c.invs, inv)
		}
		if c.ref && c.window {
			// An upstream window: one kernel's launches share a rank,
			// device, frequency and naming.
			for _, inv := range c.invs[1:] {
				inv.cfg.DeviceID, inv.cfg.FrequencyMHz, inv.cfg.DetailedNames, inv.cfg.OwnerLabel =
					c.invs[0].cfg.DeviceID, c.invs[0].cfg.FrequencyMHz, c.invs[0].cfg.DetailedNames, c.invs[0].cfg.OwnerLabel
			}
		}
		cases = append(cases, c)
	})
	type refInvocation struct {
		Buffer       string         `json:"buffer"`
		AIC          uint32         `json:"aic"`
		AIV          uint32         `json:"aiv"`
		Config       map[string]any `json:"config"`
		InvocationID int64          `json:"invocation_id"`
		Step         int64          `json:"step"`
		Direction    string         `json:"direction"`
	}
	type refCase struct {
		Out         string          `json:"out"`
		Window      bool            `json:"window"`
		Invocations []refInvocation `json:"invocations"`
	}
	var refs []refCase
	for i, c := range cases {
		c.path = filepath.Join(dir, fmt.Sprintf("%d.json", i))
		if !c.ref {
			writeGoTrace(t, c)
			continue
		}
		rc := refCase{Out: c.path, Window: c.window}
		for j, inv := range c.invs {
			buf := filepath.Join(dir, fmt.Sprintf("%d.%d.bin", i, j))
			require.NoError(t, os.WriteFile(buf, inv.buf, 0o644))
			stages, tasks := map[string]string{}, map[string]string{}
			for id, n := range inv.cfg.Names.Stages {
				stages[strconv.FormatUint(uint64(id), 10)] = n
			}
			for id, n := range inv.cfg.Names.Tasks.All() {
				tasks[strconv.FormatUint(uint64(id), 10)] = n
			}
			rc.Invocations = append(rc.Invocations, refInvocation{Buffer: buf, AIC: inv.layout.Capacities.AIC, AIV: inv.layout.Capacities.AIV,
				InvocationID: inv.id, Step: inv.step, Direction: inv.dir,
				Config: map[string]any{"rank": inv.cfg.Rank, "device_id": inv.cfg.DeviceID, "cycle_frequency_mhz": inv.cfg.FrequencyMHz,
					"detailed_task_names": inv.cfg.DetailedNames, "kernel_name": inv.cfg.KernelName, "owner_label": inv.cfg.OwnerLabel,
					"stage_names": stages, "soc_name": inv.cfg.SoCName, "task_stage_names": tasks, "cube_slot_count": inv.layout.CubeSlots}})
		}
		refs = append(refs, rc)
	}
	manifest := filepath.Join(dir, "manifest.json")
	data, _ := json.Marshal(refs)
	require.NoError(t, os.WriteFile(manifest, data, 0o644))
	out, err := exec.Command(py, filepath.Join("testdata", "ref_trace.py"), manifest).CombinedOutput()
	require.NoErrorf(t, err, "the reference decoder\n%s", out)
	for i, c := range cases {
		checkCase(t, i, c)
	}
	t.Logf("%d cases, %d written by the reference decoder", len(cases), len(refs))
}

// writeGoTrace writes c's trace as cycleabi decode does.
func writeGoTrace(t *testing.T, c *traceCase) {
	var inputs []render.Input
	for _, inv := range c.invs {
		cfg := inv.cfg
		if c.window {
			cfg.Invocation = &render.Invocation{ID: inv.id, Step: &inv.step, Direction: inv.dir}
		}
		inputs = append(inputs, render.Input{Decoded: inv.decoded(t), Config: cfg})
	}
	var b bytes.Buffer
	require.NoError(t, chromejson.Write(&b, inputs, render.WriteOptions{}))
	data := b.Bytes()
	if c.gz {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(data)
		w.Close()
		data = z.Bytes()
		c.path += ".gz"
	}
	require.NoError(t, os.WriteFile(c.path, data, 0o644))
}

// checkCase reads c's trace back and compares each capture's analysis
// with the trace's, on what a trace carries.
func checkCase(t *testing.T, i int, c *traceCase) {
	tr, err := jsontrace.Read(c.path, "")
	require.NoErrorf(t, err, "case %d", i)
	defer tr.Close()
	require.Lenf(t, tr.Sources, len(c.invs), "case %d", i)
	// Sources come by rank, then invocation id: the order drawn.
	for j, inv := range c.invs {
		src := tr.Sources[j]
		require.Equal(t, inv.cfg.Rank, src.Rank, "case %d.%d: rank", i, j)
		require.Equal(t, inv.cfg.DeviceID, src.DeviceID, "case %d.%d: device", i, j)
		require.Equalf(t, (src.Invocation != nil), c.window, "case %d.%d: invocation %v, window", i, j, src.Invocation)
		if v := src.Invocation; v != nil {
			require.Equal(t, inv.id, v.ID, "case %d.%d: invocation %+v: id", i, j, v)
			require.NotNil(t, v.Step, "case %d.%d: invocation %+v: step", i, j, v)
			require.Equal(t, inv.step, *v.Step, "case %d.%d: invocation %+v: step", i, j, v)
			require.Equal(t, inv.dir, v.Direction, "case %d.%d: invocation %+v: direction", i, j, v)
		}
		// Upstream's window export states no frequency: it comes from
		// the events' cycles and durations, within 1e-9 of the one the
		// case was decoded at.
		mhz := src.FrequencyMHz
		stated := !(c.ref && c.window)
		require.Equal(t, !stated, src.FromEvents, "case %d.%d: frequency %v MHz read back from the events", i, j, mhz)
		if stated {
			require.Equal(t, inv.cfg.FrequencyMHz, mhz, "case %d.%d: the frequency read back", i, j)
		}
		require.InDelta(t, inv.cfg.FrequencyMHz, mhz, 1e-9*inv.cfg.FrequencyMHz, "case %d.%d: the frequency read back (from events %v)", i, j, src.FromEvents)
		if !stated {
			mhz = inv.cfg.FrequencyMHz
		}
		d := inv.decoded(t)
		want := analyzeOf(t, d, inv, inv.cfg.FrequencyMHz, carriedNames(t, d, inv.cfg.Names), false)
		td, err := src.Decode()
		require.NoErrorf(t, err, "case %d.%d: Decode", i, j)
		got := analyzeOf(t, td, inv, mhz, src.Names, true)
		// A stopped kernel's diagnosis follows chains through cores that
		// entered and wrote nothing, and knows which cores dropped records;
		// a trace holds neither when it states only its dropped total: it
		// is carried when every entered core wrote a record and the trace
		// places every dropped record on its core.
		var placed uint64
		for _, s := range td.Summary.Active {
			placed += uint64(s.Dropped)
		}
		if slices.ContainsFunc(want.Cores, func(c analyze.Core) bool { return c.Records == 0 }) || td.Summary.Dropped > placed {
			want.Diagnosis, got.Diagnosis = nil, nil
		}
		statedLayout := !(c.ref && c.window)
		if a, b := carried(want, statedLayout), carried(got, statedLayout); a != b {
			if d := os.Getenv("JSONTRACE_DEBUG"); d != "" {
				os.WriteFile(filepath.Join(d, "want.json"), []byte(a), 0o644)
				os.WriteFile(filepath.Join(d, "got.json"), []byte(b), 0o644)
				data, _ := os.ReadFile(c.path)
				os.WriteFile(filepath.Join(d, "trace.json"), data, 0o644)
			}
			require.FailNow(t, fmt.Sprintf("case %d.%d (%s, window %v, detailed %v): analyze of the trace differs from analyze of the capture at\n%s", i, j, map[bool]string{true: "reference", false: "cycleabi decode"}[c.ref], c.window, inv.cfg.DetailedNames, firstDiff(a, b)))
		}
		require.Truef(t, slices.ContainsFunc(src.Notes, func(n string) bool { return strings.Contains(n, "wrote none") }), "case %d.%d: no note on the cores a trace cannot hold: %q", i, j, src.Notes)
	}
}

// analyzeOf analyzes d as analyze does a capture, or (traceCores) a JSON
// trace, which holds only the cores with records.
func analyzeOf(t *testing.T, d *decode.Decoded, inv *invocation, mhz float64, names *kernelnames.Names, traceCores bool) *analyze.Rank {
	deps, err := flows.NewDependencies(d, inv.sched)
	require.NoError(t, err, "NewDependencies")
	r, err := analyze.Analyze(d, analyze.Options{Rank: inv.cfg.Rank, FrequencyMHz: mhz, Names: names, Deps: deps, TraceCores: traceCores})
	require.NoError(t, err)
	return r
}

// carriedNames is the part of names a trace carries: the names of the
// desc_ids and tasks of its records. (A graph stage no record has can
// still name a waiting task's stage through the schedule; no event of
// the trace names it.)
func carriedNames(t *testing.T, d *decode.Decoded, names *kernelnames.Names) *kernelnames.Names {
	out := &kernelnames.Names{Stages: map[uint32]string{}}
	tasks := map[uint32]string{}
	err := d.Records(func(r decode.Record) bool {
		if n, ok := names.Stages[r.DescID]; ok {
			out.Stages[r.DescID] = n
		}
		if n, ok := names.Tasks.Lookup(r.TaskID); ok {
			tasks[r.TaskID] = n
		}
		return true
	})
	require.NoError(t, err)
	out.Tasks = kernelnames.TaskNamesOf(tasks)
	return out
}

// carried renders what of an analysis a trace carries: every core with
// records (a trace holds no core that wrote none), the regions that have
// such cores with their counts of entered cores left out, and the layout
// when the trace states it.
func carried(r *analyze.Rank, layout bool) string {
	x := *r
	x.Capture, x.Notes, x.Invocation = "", nil, nil
	x.Cores = slices.DeleteFunc(slices.Clone(x.Cores), func(c analyze.Core) bool { return c.Records == 0 })
	x.Regions = map[string]*analyze.Totals{}
	for k, v := range r.Regions {
		if v.ActiveCores > 0 {
			w := *v
			w.Cores = 0
			x.Regions[k] = &w
		}
	}
	tot := *r.Totals
	tot.Cores = 0
	x.Totals = &tot
	if !layout {
		x.Layout = analyze.Layout{}
	}
	b, _ := json.MarshalIndent(&x, "", " ")
	return string(b)
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo := max(0, i-6)
			return fmt.Sprintf("line %d:\ncapture: %s\ntrace:   %s\ncontext (capture):\n%s", i, al[i], bl[i], strings.Join(al[lo:min(len(al), i+3)], "\n"))
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}
