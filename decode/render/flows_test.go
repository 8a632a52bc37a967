package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/megakernel/cycleabi/decode"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"pgregory.net/rapid"
)

// flowEvent is any trace event, with the fields of flow events.
type flowEvent struct {
	Name string      `json:"name"`
	Cat  string      `json:"cat"`
	Ph   string      `json:"ph"`
	ID   json.Number `json:"id"`
	Bp   string      `json:"bp"`
	Pid  json.Number `json:"pid"`
	Tid  json.Number `json:"tid"`
	Ts   json.Number `json:"ts"`
	Dur  json.Number `json:"dur"`
}

// nanos reads a trace timestamp (µs, at most three decimals) as integer ns.
func nanos(t *rapid.T, n json.Number) int64 {
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		t.Fatalf("timestamp %s has more than three decimals", n)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("timestamp %s: %v %v", n, err1, err2)
	}
	v := w*1000 + f
	if neg {
		v = -v
	}
	return v
}

// checkFlowEvents holds the flow events of a trace to the Trace Event
// Format's rules for v1 flows as Perfetto and Chrome bind them: each id
// has one "s" and then one "f" (with "bp":"e"), of category dependency
// and the same name; the "s" lies inside a producer slice (TriggerEvent,
// or compute) and the "f" inside a WaitDependency slice, each on its own
// pid/tid; and the "f" is not before the "s". It returns the arrows.
func checkFlowEvents(t *rapid.T, trace []byte) int {
	d := json.NewDecoder(bytes.NewReader(trace))
	d.UseNumber()
	var f struct {
		TraceEvents []flowEvent `json:"traceEvents"`
	}
	if err := d.Decode(&f); err != nil {
		t.Fatalf("trace does not parse: %v", err)
	}
	type slice struct {
		name   string
		lo, hi int64
	}
	slices := map[string][]slice{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			lo := nanos(t, e.Ts)
			slices[string(e.Pid)+"/"+string(e.Tid)] = append(slices[string(e.Pid)+"/"+string(e.Tid)], slice{e.Name, lo, lo + nanos(t, e.Dur)})
		}
	}
	inside := func(e flowEvent, ok func(name string) bool) bool {
		ts := nanos(t, e.Ts)
		for _, s := range slices[string(e.Pid)+"/"+string(e.Tid)] {
			if s.lo <= ts && ts <= s.hi && ok(s.name) {
				return true
			}
		}
		return false
	}
	producer := func(name string) bool { return !strings.HasSuffix(name, "WaitDependency") }
	wait := func(name string) bool { return strings.HasSuffix(name, "WaitDependency") }
	starts := map[string]flowEvent{}
	ended := map[string]bool{}
	for i, e := range f.TraceEvents {
		if e.Ph != "s" && e.Ph != "f" {
			continue
		}
		if e.Cat != "dependency" || !strings.HasPrefix(e.Name, "event ") || e.ID == "" {
			t.Fatalf("event %d: flow event %+v", i, e)
		}
		id := string(e.ID)
		if e.Ph == "s" {
			if _, dup := starts[id]; dup {
				t.Fatalf("event %d: a second \"s\" of id %s", i, id)
			}
			if !inside(e, producer) {
				t.Fatalf("event %d: \"s\" %+v is inside no producer slice of its thread", i, e)
			}
			starts[id] = e
			continue
		}
		s, ok := starts[id]
		switch {
		case !ok:
			t.Fatalf("event %d: \"f\" of id %s before its \"s\"", i, id)
		case ended[id]:
			t.Fatalf("event %d: a second \"f\" of id %s", i, id)
		case e.Bp != "e":
			t.Fatalf("event %d: \"f\" without \"bp\":\"e\"", i)
		case e.Name != s.Name:
			t.Fatalf("event %d: \"f\" named %q, its \"s\" %q", i, e.Name, s.Name)
		case nanos(t, e.Ts) < nanos(t, s.Ts):
			t.Fatalf("event %d: arrow %s goes back in time: %s -> %s", i, id, s.Ts, e.Ts)
		case !inside(e, wait):
			t.Fatalf("event %d: \"f\" %+v is inside no wait slice of its thread", i, e)
		}
		ended[id] = true
	}
	for id := range starts {
		if !ended[id] {
			t.Fatalf("id %s has an \"s\" and no \"f\"", id)
		}
	}
	return len(starts)
}

func TestFlowEvents(t *testing.T) { rapid.Check(t, propFlowEvents) }
func FuzzFlowEvents(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propFlowEvents)) }

// randomFlowCapture draws a random schedule, simulates and decodes its
// capture, and returns it with the schedule's arrows and a Config drawn
// over frequencies whose cycles are and are not whole nanoseconds, every
// flow mode and arrow caps; ok is false when the capture holds no record.
func randomFlowCapture(t *rapid.T) (d *decode.Decoded, deps *Dependencies, cfg Config, ok bool) {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, "seed")}
	c, err := synth.Run(s, opts)
	if err != nil {
		var pe *plan.Error
		if !errors.As(err, &pe) {
			t.Fatal(err)
		}
		opts.WaitTimeout = synth.DefaultWaitTimeout
		if c, err = synth.Run(s, opts); err != nil {
			t.Fatal(err)
		}
	}
	if c.Records() == 0 {
		return nil, nil, cfg, false
	}
	d, err = mustDecode("random.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	if err != nil {
		t.Fatal(err)
	}
	deps, err = NewDependencies(d, s)
	if err != nil {
		t.Fatal(err)
	}
	cfg = defaultConfig()
	cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 3, 1000, 7.3}).Draw(t, "mhz")
	cfg.FlowMode = rapid.SampledFrom([]FlowMode{FlowsReleasing, FlowsAll, FlowsNone}).Draw(t, "mode")
	cfg.MaxFlows = rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "max")
	cfg.Deps = deps
	return d, deps, cfg, true
}

// propFlowEvents: the flow events of random captures of random schedules,
// at frequencies whose cycles are and are not whole nanoseconds, in every
// mode, follow the Trace Event Format's rules, and the trace's counts
// agree with Flows.
func propFlowEvents(t *rapid.T) {
	d, deps, cfg, ok := randomFlowCapture(t)
	if !ok {
		return
	}
	var out bytes.Buffer
	stats := make([]FlowStats, 1)
	if err := WriteTrace(&out, []Input{{Decoded: d, Config: cfg}}, WriteOptions{FlowStats: stats}); err != nil {
		t.Fatal(err)
	}
	if err := checkPerfetto(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	arrows := checkFlowEvents(t, out.Bytes())
	want, err := Flows(d, deps, cfg.FlowMode, cfg.MaxFlows, func(Flow) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FlowMode == FlowsNone {
		want.Arrows = 0
	}
	got := stats[0]
	if uint64(arrows) != got.Arrows || got.Arrows+got.Unbound != want.Arrows || got.Waits != want.Waits || got.WaitsWithoutProducer != want.WaitsWithoutProducer {
		t.Fatalf("%d arrows in the trace, stats %+v, Flows %+v", arrows, got, want)
	}
	if cfg.FrequencyMHz == 50 && got.Unbound != 0 {
		t.Fatalf("%d arrows unbound at 20 ns a cycle", got.Unbound)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &meta); err != nil {
		t.Fatal(err)
	}
	var mk struct {
		Warnings []string `json:"warnings"`
		Arrows   uint64   `json:"dependencyArrows"`
		Orphans  uint64   `json:"waitsWithoutProducer"`
	}
	if err := json.Unmarshal(meta["megaKernelCycleTrace"], &mk); err != nil {
		t.Fatal(err)
	}
	if mk.Arrows != got.Arrows || mk.Orphans != got.WaitsWithoutProducer || (got.WaitsWithoutProducer > 0) != strings.Contains(fmt.Sprint(mk.Warnings), "no producer") {
		t.Fatalf("metadata %+v, stats %+v", mk, got)
	}
}

// TestScheduleMismatch: task ids beyond the table and waits of tasks
// without a dependent_event are an error naming the first records.
func TestScheduleMismatch(t *testing.T) {
	s := &plan.Schedule{File: "s.yaml", NumWorkers: 2, Tasks: []plan.Task{plan.NewTask(abi.TaskTypeMatMul), plan.NewTask(abi.TaskTypeMatMul)},
		CubeTaskIndices: []uint32{0, 1}}
	s.Tasks[1].DependentEvent, s.Tasks[0].TriggerEvent = 0, 0
	c, err := synth.Run(s, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := mustDecode("c.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDependencies(d, s); err != nil {
		t.Fatalf("matching schedule: %v", err)
	}
	short := *s
	short.Tasks = s.Tasks[:1]
	_, err = NewDependencies(d, &short)
	var m *ScheduleMismatch
	if !errors.As(err, &m) || m.Count != 3 || !strings.Contains(err.Error(), "task_id 1 is beyond the schedule's 1 tasks") || !strings.Contains(err.Error(), "AIC/0 record") {
		t.Fatalf("short schedule: %v", err)
	}
	noDep := *s
	noDep.Tasks = []plan.Task{s.Tasks[0], plan.NewTask(abi.TaskTypeMatMul)}
	_, err = NewDependencies(d, &noDep)
	if !errors.As(err, &m) || m.Count != 1 || !strings.Contains(err.Error(), "a wait record of task 1, which has no dependent_event") {
		t.Fatalf("schedule without the dependency: %v", err)
	}
}

// TestSortByEnd: the natural merge sort orders by end cycle and keeps the
// appended order among equal ends, as a stable sort does.
func TestSortByEnd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		ps := make([]decode.RecordRef, n)
		end := uint64(0)
		for i := range ps {
			if rapid.IntRange(0, 9).Draw(t, "restart") == 0 {
				end = rapid.Uint64Range(0, 50).Draw(t, "end")
			} else {
				end += rapid.Uint64Range(0, 3).Draw(t, "step")
			}
			ps[i] = decode.RecordRef{Index: uint32(i), EndCycle: end}
		}
		want := append([]decode.RecordRef(nil), ps...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].EndCycle < want[j].EndCycle })
		sortByEnd(ps)
		for i := range ps {
			if ps[i] != want[i] {
				t.Fatalf("at %d: %+v, want %+v", i, ps[i], want[i])
			}
		}
	})
}

// TestFlowIDs: the per-record lookup holds every arrow of Flows once at
// its producer and once at its wait.
func TestFlowIDs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Schedule(t, plantest.Limits{})
		c, err := synth.Run(s, synth.Options{Seed: rapid.Uint64().Draw(t, "seed"), WaitTimeout: synth.DefaultWaitTimeout})
		if err != nil {
			t.Fatal(err)
		}
		if c.Records() == 0 {
			return
		}
		d, err := mustDecode("random.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
		if err != nil {
			t.Fatal(err)
		}
		deps, err := NewDependencies(d, s)
		if err != nil {
			t.Fatal(err)
		}
		mode := rapid.SampledFrom([]FlowMode{FlowsReleasing, FlowsAll}).Draw(t, "mode")
		// A writer that cannot draw every third arrow, or draws all.
		var bind func(Flow) bool
		if rapid.Bool().Draw(t, "bind") {
			bind = func(f Flow) bool { return f.ID%3 != 0 }
		}
		want := map[uint64][2]decode.RecordRef{}
		dropped := uint64(0)
		if _, err := Flows(d, deps, mode, 0, func(f Flow) bool {
			if bind != nil && f.ID%3 == 0 {
				dropped++
				return true
			}
			want[7<<32+f.ID] = [2]decode.RecordRef{f.From, f.To}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		lookup, st, err := FlowIDs(d, deps, mode, 0, 7<<32, bind)
		if err != nil || st.Arrows != uint64(len(want)) || st.Unbound != dropped {
			t.Fatalf("FlowIDs: %v, %+v for %d arrows, %d unbound", err, st, len(want), dropped)
		}
		seenOut, seenIn := map[uint64]bool{}, map[uint64]bool{}
		if err := d.Records(func(r decode.Record) bool {
			out, in := lookup(&r)
			for _, id := range out {
				if w, ok := want[id]; !ok || w[0] != r.Ref() || seenOut[id] {
					t.Fatalf("record %+v starts arrow %d, want %+v", r.Ref(), id, w)
				}
				seenOut[id] = true
			}
			for _, id := range in {
				if w, ok := want[id]; !ok || w[1] != r.Ref() || seenIn[id] {
					t.Fatalf("record %+v ends arrow %d, want %+v", r.Ref(), id, w)
				}
				seenIn[id] = true
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if len(seenOut) != len(want) || len(seenIn) != len(want) {
			t.Fatalf("%d starts and %d ends of %d arrows", len(seenOut), len(seenIn), len(want))
		}
	})
}

// TestRenderedNanos: the nanoseconds flows bind at are what the trace
// prints, at frequencies whose cycle is and is not whole nanoseconds.
func TestRenderedNanos(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newClock(rapid.SampledFrom([]float64{50, 1000, 3, 7.3, 0.001, 1e-7}).Draw(t, "mhz"))
		a := rapid.Uint64Range(0, 1<<40).Draw(t, "a")
		b := rapid.Uint64Range(0, 1<<40).Draw(t, "b")
		ns, ok := c.renderedNanos(a, b)
		printed := c.appendSignedMicros(nil, a, b)
		if !ok {
			return
		}
		whole, frac, _ := strings.Cut(strings.TrimPrefix(string(printed), "-"), ".")
		frac += strings.Repeat("0", 3-len(frac))
		want, err := strconv.ParseInt(whole+frac, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(printed), "-") {
			want = -want
		}
		if ns != want {
			t.Fatalf("renderedNanos(%d, %d) = %d, the trace prints %s", a, b, ns, printed)
		}
	})
}
