package analyze_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// helperT is what the helpers fail through: a *testing.T or a *rapid.T.
type helperT interface {
	require.TestingT
	Helper()
}

// analyzeSim analyzes a simulated capture, under its schedule when
// withPlan, as `cycleabi analyze --plan` does.
func analyzeSim(t helperT, s *plan.Schedule, c *synth.Capture, withPlan bool) *analyze.Rank {
	t.Helper()
	cp, err := capture.FromBytes("hung.bin", c.Buffer)
	require.NoError(t, err)
	d, err := decode.Decode(cp, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	require.NoError(t, err, "Decode")
	var deps *flows.Dependencies
	if withPlan {
		deps, err = flows.NewDependencies(d, s)
		require.NoError(t, err, "NewDependencies")
	}
	r, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps})
	require.NoError(t, err, "Analyze")
	return r
}

// wantRoot is the root a fault must leave: its kind and, for every kind
// but a starved event's, one task at it (a cycle may hold more).
type wantRoot struct {
	kind  string
	task  uint32
	core  string
	event plan.EventID
	// waiters, for a starved event: the tasks blocked on it, by core.
	waiters map[string]uint32
}

// checkDiagnosis holds r's diagnosis to the one root want, in the
// analysis and in every output format.
func checkDiagnosis(t helperT, r *analyze.Rank, want wantRoot) {
	t.Helper()
	dg := r.Diagnosis
	require.NotNil(t, dg, "the diagnosis, want the root %+v", want)
	require.False(t, dg.NeedsPlan, "diagnosis %+v, want the root %+v", dg, want)
	require.Len(t, dg.Roots, 1, "roots, want the root %+v:\n%s", want, rootLines(dg))
	root := dg.Roots[0]
	require.Equal(t, want.kind, root.Kind, "the root's kind: %s", root.Message)
	ev := func(e *uint32) plan.EventID {
		if e == nil {
			return plan.NoEvent
		}
		return plan.EventID(*e)
	}
	if want.waiters != nil {
		got := map[string]uint32{}
		for _, rt := range root.Tasks {
			got[rt.Core] = rt.Task
			require.Equal(t, want.event, ev(rt.Event), "the starved root's event: %s", root.Message)
		}
		if len(want.waiters) <= analyze.MaxListed {
			require.Equal(t, want.waiters, got, "the tasks the starved root names: %s", root.Message)
		}
	} else {
		require.True(t, slices.ContainsFunc(root.Tasks, func(rt analyze.RootTask) bool {
			return rt.Task == want.task && rt.Core == want.core && ev(rt.Event) == want.event
		}), "root %+v, want task %d on %s, event %d", root.Tasks, want.task, want.core, want.event)
		if want.kind != analyze.RootWaitCycle {
			require.Len(t, root.Tasks, 1, "root %+v, want task %d on %s, event %d", root.Tasks, want.task, want.core, want.event)
		}
	}
	checkFormats(t, r)
}

func rootLines(dg *analyze.Diagnosis) string {
	var b strings.Builder
	for _, r := range dg.Roots {
		b.WriteString(r.Kind + ": " + r.Message + "\n")
	}
	return b.String()
}

// checkFormats: text and Markdown state the summary and every root and
// no other, JSON carries the diagnosis as it is.
func checkFormats(t helperT, r *analyze.Rank) {
	t.Helper()
	rep := analyze.NewReport([]*analyze.Rank{r})
	dg := r.Diagnosis
	var text, md, js bytes.Buffer
	require.NoError(t, rep.WriteText(&text, 0))
	require.NoError(t, rep.WriteMarkdown(&md, 0))
	require.NoError(t, rep.WriteJSON(&js))
	for _, out := range []struct {
		name, text, root string
	}{{"text", text.String(), "  root "}, {"markdown", md.String(), "> Root "}} {
		require.Contains(t, out.text, dg.Summary, "the %s output lacks the summary", out.name)
		require.Equal(t, len(dg.Roots), strings.Count(out.text, out.root), "the roots the %s output names", out.name)
		for _, root := range dg.Roots {
			require.Contains(t, out.text, root.Message, "the %s output lacks the root", out.name)
		}
	}
	var back struct {
		Ranks []struct {
			Diagnosis *analyze.Diagnosis `json:"diagnosis"`
		} `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	got, _ := json.Marshal(back.Ranks[0].Diagnosis)
	want, _ := json.Marshal(dg)
	require.Equal(t, string(want), string(got), "the JSON's diagnosis")
	back2, err := analyze.ReadReport("r.json", js.Bytes())
	require.NoError(t, err, "ReadReport")
	got, _ = json.Marshal(back2.Ranks[0].Diagnosis)
	require.Equal(t, string(want), string(got), "ReadReport's diagnosis")
}

// manifestCore returns the slot of the manifest that stopped or blocked at
// task id.
func manifestCore(c *synth.Capture, id uint32) string {
	for _, m := range c.Slots {
		if (m.Stopped || m.Blocked) && m.NextTask == id {
			return m.Slot.String()
		}
	}
	return ""
}

// stoppedCount counts the cores the simulation left stopped or blocked.
func stoppedCount(c *synth.Capture) int {
	n := 0
	for _, m := range c.Slots {
		if m.Stopped || m.Blocked {
			n++
		}
	}
	return n
}

// waitersOf are the cores blocked on e, with their tasks.
func waitersOf(c *synth.Capture, e plan.EventID) map[string]uint32 {
	out := map[string]uint32{}
	for _, m := range c.Slots {
		if m.Blocked && m.BlockedOn == e {
			out[m.Slot.String()] = m.NextTask
		}
	}
	return out
}

// cycleAt makes task x of a worker's queue wait on the event that a later
// task of the same queue triggers: a cycle of waits. It returns the event,
// or false when the queue has no such pair after x.
func cycleAt(s *plan.Schedule, q []uint32, i int) (plan.EventID, bool) {
	for _, y := range q[i+1:] {
		if e := s.Tasks[y].TriggerEvent; e.Valid() {
			s.Tasks[q[i]].DependentEvent = e
			return e, true
		}
	}
	return 0, false
}

func moeSchedule(t *testing.T) *plan.Schedule {
	t.Helper()
	s, err := plan.ParseFile("../examples/moe_layer.yaml")
	require.NoError(t, err)
	return s
}

func run(t helperT, s *plan.Schedule, o synth.Options) *synth.Capture {
	t.Helper()
	c, err := synth.Run(s, o)
	require.NoError(t, err, "synth")
	return c
}

// TestDiagnosisMoE injects each fault into the shipped MoE example's
// schedule: the diagnosis names the injected root and no other.
func TestDiagnosisMoE(t *testing.T) {
	s := moeSchedule(t)
	t.Run("healthy", func(t *testing.T) {
		for _, withPlan := range []bool{true, false} {
			assert.Nilf(t, analyzeSim(t, s, run(t, s, synth.Options{Seed: 1}), withPlan).Diagnosis, "plan %v: a healthy capture has the diagnosis", withPlan)
		}
		assert.Nil(t, moeReport(t, true).Ranks[0].Diagnosis, "the example capture (records dropped) has the diagnosis")
	})
	t.Run("stop", func(t *testing.T) {
		c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{StopInTask: []uint32{100}}})
		checkDiagnosis(t, analyzeSim(t, s, c, true), wantRoot{kind: analyze.RootStoppedInside, task: 100, core: "AIC/6", event: plan.NoEvent})
		dg := analyzeSim(t, s, c, false).Diagnosis
		require.NotNilf(t, dg, "without the schedule: %+v, want AIC/6 first and --plan asked for", dg)
		require.Truef(t, dg.NeedsPlan, "without the schedule: %+v, want AIC/6 first and --plan asked for", dg)
		require.NotEmptyf(t, dg.Cores, "without the schedule: %+v, want AIC/6 first and --plan asked for", dg)
		require.Equalf(t, "AIC/6", dg.Cores[0].Core, "without the schedule: %+v, want AIC/6 first and --plan asked for", dg)
		assert.Containsf(t, dg.Summary, "--plan", "without the schedule: %+v, want AIC/6 first and --plan asked for", dg)
	})
	t.Run("skip", func(t *testing.T) {
		c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{SkipTrigger: []uint32{3}}})
		checkDiagnosis(t, analyzeSim(t, s, c, true), wantRoot{kind: analyze.RootTriggerNotSent, task: 3, core: "AIV/6", event: 0})
		dg := analyzeSim(t, s, c, false).Diagnosis
		require.NotNilf(t, dg, "without the schedule: %+v, want AIV/6 first", dg)
		require.Truef(t, dg.NeedsPlan, "without the schedule: %+v, want AIV/6 first", dg)
		assert.Equalf(t, "AIV/6", dg.Cores[0].Core, "without the schedule: %+v, want AIV/6 first", dg)
	})
	t.Run("starve", func(t *testing.T) {
		c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{StarveEvents: []plan.EventID{5}}})
		checkDiagnosis(t, analyzeSim(t, s, c, true), wantRoot{kind: analyze.RootTooFewTriggers, event: 5, waiters: waitersOf(c, 5)})
	})
	t.Run("never-entered", func(t *testing.T) {
		c := run(t, s, synth.Options{Seed: 1, IdleCores: 1, Faults: synth.Faults{Hang: true}})
		checkDiagnosis(t, analyzeSim(t, s, c, true), wantRoot{kind: analyze.RootNeverEntered, task: 6, core: "AIC/0", event: plan.NoEvent})
	})
	t.Run("cycle", func(t *testing.T) {
		s := moeSchedule(t)
		r, err := plan.Plan(s)
		require.NoError(t, err)
		q := plan.Assign(s, r).Queue(plan.CubeCores, 3)
		e, ok := cycleAt(s, q, 2)
		require.True(t, ok, "no later trigger on AIC/3")
		c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{Hang: true}})
		checkDiagnosis(t, analyzeSim(t, s, c, true), wantRoot{kind: analyze.RootWaitCycle, task: q[2], core: "AIC/3", event: e})
	})
}

// healthySchedule draws a schedule whose kernel finishes: each task in one
// queue once (a device's schedule), run by synth without a wait that
// never ends; nil when the draw does not give one.
func healthySchedule(t *rapid.T) (*plan.Schedule, *synth.Capture) {
	s := plantest.Schedule(t, plantest.Limits{})
	if s.Mode == plan.EventDriven {
		// Random events seldom make a kernel that finishes: build one.
		s = orderedSchedule(t)
	}
	seen := map[uint32]bool{}
	dedupe := func(q []uint32) []uint32 {
		return slices.DeleteFunc(q, func(id uint32) bool {
			dup := seen[id]
			seen[id] = true
			return dup
		})
	}
	s.CubeTaskIndices, s.VectorTaskIndices = dedupe(s.CubeTaskIndices), dedupe(s.VectorTaskIndices)
	c, err := synth.Run(s, synth.Options{Seed: 1})
	if err != nil || c.Records() == 0 {
		return nil, nil
	}
	return s, c
}

// orderedSchedule draws an event-driven schedule that cannot deadlock:
// each queue runs its tasks in id order, and a task waits only on an
// event whose every trigger has a smaller id.
func orderedSchedule(t *rapid.T) *plan.Schedule {
	n := rapid.IntRange(1, 24).Draw(t, "tasks")
	events := rapid.IntRange(1, 6).Draw(t, "events")
	types := []abi.TaskType{abi.TaskTypeMatMul, abi.TaskTypeSwiGLU, abi.TaskTypeRmsNorm, abi.TaskTypeShmemPutMemSignal, abi.TaskTypeTerminate}
	s := &plan.Schedule{File: "ordered.yaml", Mode: plan.EventDriven, NumWorkers: 2 * rapid.Int64Range(1, 4).Draw(t, "half_workers")}
	lastTrigger := map[plan.EventID]int{}
	for i := range n {
		task := plan.NewTask(rapid.SampledFrom(types).Draw(t, "task_type"))
		var open []plan.EventID
		for e, last := range lastTrigger {
			if last < i {
				open = append(open, e)
			}
		}
		slices.Sort(open)
		if len(open) > 0 && rapid.Bool().Draw(t, "waits") {
			task.DependentEvent = rapid.SampledFrom(open).Draw(t, "dependent_event")
		}
		if e := plan.EventID(rapid.IntRange(-1, events-1).Draw(t, "trigger_event")); e < plan.EventID(events) {
			if _, waited := waitedOn(s, e); !waited {
				task.TriggerEvent = e
				lastTrigger[e] = i
			}
		}
		s.Tasks = append(s.Tasks, task)
		if rapid.Bool().Draw(t, "cube") {
			s.CubeTaskIndices = append(s.CubeTaskIndices, uint32(i))
		} else {
			s.VectorTaskIndices = append(s.VectorTaskIndices, uint32(i))
		}
	}
	return s
}

// waitedOn reports whether a task of s waits on e.
func waitedOn(s *plan.Schedule, e plan.EventID) (int, bool) {
	for i := range s.Tasks {
		if s.Tasks[i].DependentEvent == e {
			return i, true
		}
	}
	return 0, false
}

func TestDiagnosisProperty(t *testing.T) { rapid.Check(t, propDiagnosis) }

// propDiagnosis: on a random schedule whose kernel finishes, the healthy
// capture gets no diagnosis, and a fault injected at a random task gets a
// diagnosis naming that root and no other.
func propDiagnosis(t *rapid.T) {
	s, healthy := healthySchedule(t)
	if s == nil {
		return
	}
	require.Nil(t, analyzeSim(t, s, healthy, true).Diagnosis, "a healthy capture has the diagnosis")
	var queued []uint32
	queued = append(append(queued, s.CubeTaskIndices...), s.VectorTaskIndices...)
	if len(queued) == 0 {
		return
	}
	kinds := []string{analyze.RootStoppedInside}
	if s.Mode == plan.EventDriven {
		kinds = append(kinds, analyze.RootTriggerNotSent, analyze.RootTooFewTriggers, analyze.RootWaitCycle)
	}
	kind := rapid.SampledFrom(kinds).Draw(t, "fault")
	switch kind {
	case analyze.RootTriggerNotSent:
		queued = slices.DeleteFunc(queued, func(id uint32) bool {
			t := &s.Tasks[id]
			return !t.TriggerEvent.Valid() || t.TaskType == abi.TaskTypeShmemPutMemSignal
		})
	case analyze.RootTooFewTriggers:
		queued = slices.DeleteFunc(queued, func(id uint32) bool { return !s.Tasks[id].DependentEvent.Valid() })
	}
	if len(queued) == 0 {
		return
	}
	x := rapid.SampledFrom(queued).Draw(t, "task")
	var f synth.Faults
	want := wantRoot{kind: kind, task: x, event: plan.NoEvent}
	switch kind {
	case analyze.RootStoppedInside:
		f.StopInTask = []uint32{x}
	case analyze.RootTriggerNotSent:
		f.SkipTrigger = []uint32{x}
		want.event = s.Tasks[x].TriggerEvent
	case analyze.RootTooFewTriggers:
		want.event = s.Tasks[x].DependentEvent
		f.StarveEvents = []plan.EventID{want.event}
	case analyze.RootWaitCycle:
		r, _ := plan.Plan(s)
		a := plan.Assign(s, r)
		ct := rapid.SampledFrom([]abi.CoreType{plan.CubeCores, plan.VectorCores}).Draw(t, "core_type")
		q := a.Queue(ct, rapid.Uint32Range(0, r.Region(ct).Workers).Draw(t, "worker"))
		if len(q) < 2 {
			return
		}
		i := rapid.IntRange(0, len(q)-2).Draw(t, "at")
		e, ok := cycleAt(s, q, i)
		if !ok {
			return
		}
		want.task, want.event = q[i], e
		f.Hang = true
	}
	c, err := synth.Run(s, synth.Options{Seed: 1, Faults: f})
	if err != nil || c.Records() == 0 {
		// A fault this task cannot have (a put's trigger, an event nobody
		// waits on), or a kernel that stopped before any record (decode
		// refuses a capture without records).
		return
	}
	rk := analyzeSim(t, s, c, true)
	if stoppedCount(c) == 0 {
		// A trigger nobody waits on: the kernel still finishes.
		require.Nil(t, rk.Diagnosis, "a kernel that finished has the diagnosis")
		return
	}
	switch kind {
	case analyze.RootTooFewTriggers:
		want.waiters = waitersOf(c, want.event)
	case analyze.RootTriggerNotSent:
		want.core = coreOf(t, s, x)
	default:
		want.core = manifestCore(c, want.task)
	}
	checkDiagnosis(t, rk, want)
}

// coreOf is the core that runs task id under the schedule's assignment.
func coreOf(t *rapid.T, s *plan.Schedule, id uint32) string {
	r, err := plan.Plan(s)
	require.NoError(t, err)
	a := plan.Assign(s, r)
	for _, ct := range []abi.CoreType{plan.CubeCores, plan.VectorCores} {
		for w := range r.Region(ct).Workers {
			if slices.Contains(a.Queue(ct, w), id) {
				block := w
				if ct == plan.VectorCores {
					block *= uint32(s.Stride())
				}
				return fmt.Sprintf("%s/%d", ct, block)
			}
		}
	}
	return ""
}

// TestDiagnosisMemory: the analysis of a stopped capture allocates no more
// than that of the healthy capture of the same schedule (no table per
// pair of tasks or cores).
func TestDiagnosisMemory(t *testing.T) {
	s := moeSchedule(t)
	healthy := run(t, s, synth.Options{Seed: 1})
	hung := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{StopInTask: []uint32{600}}})
	alloc := func(c *synth.Capture) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		analyzeSim(t, s, c, true)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	h, g := alloc(healthy), alloc(hung)
	assert.LessOrEqual(t, g, h, "the stopped capture's analysis allocated")
}

// TestDocHangExample keeps the worked example of docs/analyze.md's "When a
// kernel hangs" the real output: each line it quotes is a line of the
// analysis of `synth --stop-in-task 100`, with the schedule and without,
// or of the three ranks of its cluster example.
func TestDocHangExample(t *testing.T) {
	page, err := os.ReadFile("../docs/analyze.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(page), "## When a kernel hangs")
	require.True(t, ok, "docs/analyze.md has no \"## When a kernel hangs\"")
	sec, _, _ = strings.Cut(sec, "\n## ")
	s := moeSchedule(t)
	c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{StopInTask: []uint32{100}}})
	var out bytes.Buffer
	for _, withPlan := range []bool{true, false} {
		rep := analyze.NewReport([]*analyze.Rank{analyzeSim(t, s, c, withPlan)})
		require.NoError(t, rep.WriteText(&out, 4))
	}
	var ranks []*analyze.Rank
	for i, f := range []synth.Faults{{}, {StopInTask: []uint32{600}}, {StopInTask: []uint32{100}}} {
		k := analyzeSim(t, s, run(t, s, synth.Options{Seed: 1, Faults: f}), true)
		k.Rank, k.Capture = uint32(i), fmt.Sprintf("rank%d.bin", i)
		ranks = append(ranks, k)
	}
	require.NoError(t, analyze.NewReport(ranks).WriteText(&out, 0))
	quoted := 0
	for _, block := range strings.Split(sec, "```text\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			quoted++
			assert.Containsf(t, out.String(), line+"\n", "docs/analyze.md quotes a line the analysis does not print:\n%s", line)
		}
	}
	assert.NotEqual(t, 0, quoted, "the section quotes no output")
}

// TestStoppedRanks: of a cluster's ranks, the one whose cores stopped
// first is named first, the ranks that stopped after it follow, in every
// output, and the healthy rank is not named.
func TestStoppedRanks(t *testing.T) {
	s := moeSchedule(t)
	var ranks []*analyze.Rank
	for i, f := range []synth.Faults{{}, {StopInTask: []uint32{600}}, {StopInTask: []uint32{100}}} {
		k := analyzeSim(t, s, run(t, s, synth.Options{Seed: 1, Faults: f}), true)
		k.Rank, k.Capture = uint32(i), fmt.Sprintf("rank%d.bin", i)
		ranks = append(ranks, k)
	}
	rep := analyze.NewReport(ranks)
	st := rep.CrossRank.Stopped
	require.Len(t, st, 2, "stopped")
	require.Equal(t, uint32(2), st[0].Rank, "stopped")
	require.Equal(t, uint32(1), st[1].Rank, "stopped")
	require.Less(t, st[0].StopCycle, st[1].StopCycle, "stopped")
	want := "2 of 3 ranks stopped before their work was done; rank 2 stopped first: " + ranks[2].Diagnosis.Summary + "; after it: rank 1 (+"
	var text, md, js bytes.Buffer
	require.NoError(t, rep.WriteText(&text, 0))
	require.NoError(t, rep.WriteMarkdown(&md, 0))
	require.NoError(t, rep.WriteJSON(&js))
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		assert.Containsf(t, out, want, "the %s output lacks", name)
	}
	back, err := analyze.ReadReport("r.json", js.Bytes())
	require.NoError(t, err)
	assert.Equalf(t, fmt.Sprint(st), fmt.Sprint(back.CrossRank.Stopped), "read back, want %+v", st)
}

// TestDiagnosisRetained: what a stopped capture's analysis keeps alive
// (a cluster holds 1,024 of them) is within half again a healthy one's:
// the diagnosis keeps its cores and roots, not the graph it was found
// with (a core's task pointer into its graph node once kept every node:
// 41 KB an analysis against a healthy one's 21 KB; 23.5 KB since).
func TestDiagnosisRetained(t *testing.T) {
	s := moeSchedule(t)
	retained := func(o synth.Options) int64 {
		c := run(t, s, o)
		const n = 32
		keep := make([]*analyze.Rank, 0, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range n {
			keep = append(keep, analyzeSim(t, s, c, true))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(keep)
		return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	}
	healthy := retained(synth.Options{Seed: 1})
	stopped := retained(synth.Options{Seed: 1, Faults: synth.Faults{StopInTask: []uint32{100}}})
	t.Logf("retained per analysis: healthy %d, stopped %d bytes", healthy, stopped)
	assert.LessOrEqualf(t, stopped, healthy*3/2, "a stopped analysis keeps bytes alive, a healthy one %d: over half again", healthy)
}

// TestDiagnosisUnattributedDrops: a trace states only how many records
// were dropped in all; then any core may have lost its last records, and
// none is said to have stopped inside a task. The same capture with its
// drops placed (none here) names the stop.
func TestDiagnosisUnattributedDrops(t *testing.T) {
	s := moeSchedule(t)
	c := run(t, s, synth.Options{Seed: 1, Faults: synth.Faults{StopInTask: []uint32{100}}})
	for _, withPlan := range []bool{true, false} {
		for _, unplaced := range []uint64{0, 1} {
			cp, err := capture.FromBytes("hung.bin", c.Buffer)
			require.NoError(t, err)
			d, err := decode.Decode(cp, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
			require.NoError(t, err)
			d.Summary.Dropped += unplaced
			var deps *flows.Dependencies
			if withPlan {
				deps, err = flows.NewDependencies(d, s)
				require.NoError(t, err)
			}
			r, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps})
			require.NoError(t, err)
			stopped := r.Diagnosis != nil && (slices.ContainsFunc(r.Diagnosis.Roots, func(x analyze.Root) bool { return x.Kind == analyze.RootStoppedInside }) ||
				slices.ContainsFunc(r.Diagnosis.Cores, func(x analyze.StoppedCore) bool { return x.State == analyze.StateStoppedInside }))
			assert.Equalf(t, unplaced == 0, stopped, "plan %v, %d dropped records on no core: a core said to have stopped inside a task", withPlan, unplaced)
		}
	}
}
