package chromejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
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

// propFlowEvents: the flow events of random captures of random schedules,
// at frequencies whose cycles are and are not whole nanoseconds, in every
// mode, follow the Trace Event Format's rules, and the trace's counts
// agree with flows.Each.
func propFlowEvents(t *rapid.T) {
	d, deps, cfg, ok := decodetest.RandomFlowCapture(t)
	if !ok {
		return
	}
	var out bytes.Buffer
	stats := make([]flows.Stats, 1)
	if err := Write(&out, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{FlowStats: stats}); err != nil {
		t.Fatal(err)
	}
	if err := checkPerfetto(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	arrows := checkFlowEvents(t, out.Bytes())
	want, err := flows.Each(d, deps, cfg.FlowMode, cfg.MaxFlows, func(flows.Flow) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FlowMode == flows.None {
		want.Arrows = 0
	}
	got := stats[0]
	if uint64(arrows) != got.Arrows || got.Arrows+got.Unbound != want.Arrows || got.Waits != want.Waits || got.WaitsWithoutProducer != want.WaitsWithoutProducer {
		t.Fatalf("%d arrows in the trace, stats %+v, flows.Each %+v", arrows, got, want)
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
