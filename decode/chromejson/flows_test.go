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
	"github.com/stretchr/testify/require"
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
	require.LessOrEqualf(t, len(frac), 3, "timestamp %s has more than three decimals", n)
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	require.NoErrorf(t, err1, "timestamp %s", n)
	require.NoErrorf(t, err2, "timestamp %s", n)
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
	require.NoError(t, d.Decode(&f), "trace does not parse")
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
		require.Equalf(t, "dependency", e.Cat, "event %d: flow event %+v", i, e)
		require.Truef(t, strings.HasPrefix(e.Name, "event "), "event %d: flow event %+v", i, e)
		require.NotEmptyf(t, e.ID, "event %d: flow event %+v", i, e)
		id := string(e.ID)
		if e.Ph == "s" {
			_, dup := starts[id]
			require.Falsef(t, dup, "event %d: a second \"s\" of id %s", i, id)
			require.Truef(t, inside(e, producer), "event %d: \"s\" %+v is inside no producer slice of its thread", i, e)
			starts[id] = e
			continue
		}
		s, ok := starts[id]
		switch {
		case !ok:
			require.FailNow(t, fmt.Sprintf("event %d: \"f\" of id %s before its \"s\"", i, id))
		case ended[id]:
			require.FailNow(t, fmt.Sprintf("event %d: a second \"f\" of id %s", i, id))
		case e.Bp != "e":
			require.FailNow(t, fmt.Sprintf("event %d: \"f\" without \"bp\":\"e\"", i))
		case e.Name != s.Name:
			require.FailNow(t, fmt.Sprintf("event %d: \"f\" named %q, its \"s\" %q", i, e.Name, s.Name))
		case nanos(t, e.Ts) < nanos(t, s.Ts):
			require.FailNow(t, fmt.Sprintf("event %d: arrow %s goes back in time: %s -> %s", i, id, s.Ts, e.Ts))
		case !inside(e, wait):
			require.FailNow(t, fmt.Sprintf("event %d: \"f\" %+v is inside no wait slice of its thread", i, e))
		}
		ended[id] = true
	}
	for id := range starts {
		require.Truef(t, ended[id], "id %s has an \"s\" and no \"f\"", id)
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
	require.NoError(t, Write(&out, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{FlowStats: stats}))
	require.NoError(t, checkPerfetto(out.Bytes()))
	arrows := checkFlowEvents(t, out.Bytes())
	want, err := flows.Each(d, deps, cfg.FlowMode, cfg.MaxFlows, func(flows.Flow) bool { return true })
	require.NoError(t, err)
	if cfg.FlowMode == flows.None {
		want.Arrows = 0
	}
	got := stats[0]
	require.Equalf(t, got.Arrows, uint64(arrows), "%d arrows in the trace, stats %+v, flows.Each %+v", arrows, got, want)
	require.Equalf(t, want.Arrows, got.Arrows+got.Unbound, "%d arrows in the trace, stats %+v, flows.Each %+v", arrows, got, want)
	require.Equalf(t, want.Waits, got.Waits, "%d arrows in the trace, stats %+v, flows.Each %+v", arrows, got, want)
	require.Equalf(t, want.WaitsWithoutProducer, got.WaitsWithoutProducer, "%d arrows in the trace, stats %+v, flows.Each %+v", arrows, got, want)
	require.Falsef(t, cfg.FrequencyMHz == 50 && got.Unbound != 0, "%d arrows unbound at 20 ns a cycle", got.Unbound)
	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out.Bytes(), &meta))
	var mk struct {
		Warnings []string `json:"warnings"`
		Arrows   uint64   `json:"dependencyArrows"`
		Orphans  uint64   `json:"waitsWithoutProducer"`
	}
	require.NoError(t, json.Unmarshal(meta["megaKernelCycleTrace"], &mk))
	require.Equalf(t, got.Arrows, mk.Arrows, "metadata %+v, stats %+v", mk, got)
	require.Equalf(t, got.WaitsWithoutProducer, mk.Orphans, "metadata %+v, stats %+v", mk, got)
	require.Equalf(t, strings.Contains(fmt.Sprint(mk.Warnings), "no producer"), (got.WaitsWithoutProducer > 0), "metadata %+v, stats %+v", mk, got)
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
		require.NoError(t, err)
		if strings.HasPrefix(string(printed), "-") {
			want = -want
		}
		require.Equalf(t, want, ns, "renderedNanos(%d, %d), the trace prints %s", a, b, printed)
	})
}
