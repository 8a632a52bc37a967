package chromejson

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"pgregory.net/rapid"
)

// propTrace: for any valid capture, the trace parses with encoding/json
// and passes the Perfetto check; it has one X event per live record, in
// order of ts; its metadata counts match the capture; the event names and
// args follow the naming rules record by record; and extra bytes after the
// layout change nothing.
func propTrace(t *rapid.T) {
	g := capturedraw.Draw(t)
	cfg := decodetest.DefaultConfig()
	cfg.Names = g.Names
	cfg.DetailedNames = rapid.Bool().Draw(t, "detailed")
	cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 1000, 3, 0.0000003}).Draw(t, "mhz")
	// Ten-digit ids make the longest slot texts the renderer stores.
	cfg.Rank = rapid.OneOf(rapid.Uint32Range(0, 7), rapid.Just(uint32(math.MaxUint32))).Draw(t, "rank")
	cfg.DeviceID = rapid.OneOf(rapid.Uint32Range(0, 7), rapid.Just(uint32(math.MaxUint32))).Draw(t, "device")

	d, err := decodetest.Decode("gen.bin", g.B.Bytes(), g.Opts)
	if err != nil {
		t.Fatalf("valid capture refused: %v", err)
	}
	out, err := traceOf(render.Input{Decoded: d, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPerfetto(out); err != nil {
		t.Fatalf("Perfetto check: %v", err)
	}
	f, err := decodetest.ParseTrace(out)
	if err != nil {
		t.Fatalf("trace does not parse: %v", err)
	}

	xs := decodetest.XEvents(f)
	if len(xs) != g.Records {
		t.Fatalf("%d X events for %d live records", len(xs), g.Records)
	}
	prev := new(big.Float)
	for i, e := range xs {
		ts, ok := new(big.Float).SetString(e.Ts.String())
		if !ok {
			t.Fatalf("event %d: ts %s", i, e.Ts)
		}
		if i > 0 && ts.Cmp(prev) < 0 {
			t.Fatalf("event %d: ts %s before the previous event's %s", i, e.Ts, prev.String())
		}
		prev = ts
	}

	// What the viewer shows is what the device wrote: on each thread, a
	// record that ends at or before the next one's start does so in
	// doubles too (ts + dur, as a viewer adds them).
	last := map[string]decodetest.Event{}
	for _, e := range xs {
		tid := e.Pid.String() + "/" + e.Tid.String()
		if prev, ok := last[tid]; ok {
			end := prev.Args["end_cycle"].(json.Number).String()
			start := e.Args["start_cycle"].(json.Number).String()
			endCycle, _ := strconv.ParseUint(end, 10, 64)
			startCycle, _ := strconv.ParseUint(start, 10, 64)
			ts, _ := strconv.ParseFloat(prev.Ts.String(), 64)
			dur, _ := strconv.ParseFloat(prev.Dur.String(), 64)
			next, _ := strconv.ParseFloat(e.Ts.String(), 64)
			if endCycle <= startCycle && ts+dur > next {
				t.Fatalf("thread %s: ts %s + dur %s passes the next record's ts %s (end_cycle %d, next start_cycle %d)",
					tid, prev.Ts, prev.Dur, e.Ts, endCycle, startCycle)
			}
		}
		last[tid] = e
	}

	m := f.MegaKernelCycleTrace
	if got := m["recordCount"].(json.Number).String(); got != itoa(g.Records) {
		t.Fatalf("recordCount %s, want %d", got, g.Records)
	}
	if got := m["droppedRecordCount"].(json.Number).String(); got != itoa(int(g.Dropped)) {
		t.Fatalf("droppedRecordCount %s, want %d", got, g.Dropped)
	}
	// The warnings: dropped records as the reference says it, then one
	// line per kind of what misleads a viewer, counted here from the
	// records in slot order.
	want := decode.Warnings{Dropped: g.Dropped}
	for _, a := range d.Summary.Active {
		recs := make([]abi.ProfileRecord, a.Count)
		if _, err := d.Capture.ReadRecords(a.Slot, 0, recs, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(recs, func(x, y abi.ProfileRecord) int { return cmp.Compare(x.StartCycle, y.StartCycle) }) {
			want.UnsortedSlots++
		}
		slices.SortStableFunc(recs, func(x, y abi.ProfileRecord) int { return cmp.Compare(x.StartCycle, y.StartCycle) })
		for i, r := range recs {
			for _, earlier := range recs[:i] {
				if r.StartCycle < earlier.EndCycle {
					want.Overlapping++
					break
				}
			}
			if r.StartCycle < a.EntryCycle {
				want.BeforeEntry++
			}
			if r.StartCycle < d.Summary.Anchor {
				want.NegativeTS++
			}
		}
	}
	var gotWarnings []string
	for _, w := range m["warnings"].([]any) {
		gotWarnings = append(gotWarnings, w.(string))
	}
	if wantLines := want.Lines(); !slices.Equal(gotWarnings, wantLines) {
		t.Fatalf("warnings %q, want %q", gotWarnings, wantLines)
	}
	if (g.Dropped > 0) != (len(gotWarnings) > 0 && strings.HasPrefix(gotWarnings[0], "Device dropped ")) {
		t.Fatalf("warnings %v with %d dropped", gotWarnings, g.Dropped)
	}
	threads := 0
	for _, e := range f.TraceEvents {
		if e.Name == "thread_name" {
			threads++
		}
	}
	if threads != len(d.Summary.Active) {
		t.Fatalf("%d thread_name events for %d cores with records", threads, len(d.Summary.Active))
	}
	if mj, _ := json.Marshal(f.Metadata); !bytes.Equal(mj, must(json.Marshal(m))) {
		t.Fatalf("metadata differs from megaKernelCycleTrace")
	}

	// Names and args, record by record, against the plain rules.
	i := 0
	err = d.Records(func(r decode.Record) bool {
		e := xs[i]
		i++
		if want := cfg.Names.EventName(&r.ProfileRecord, cfg.DetailedNames, cfg.OwnerLabel); e.Name != want {
			t.Fatalf("event name %q, want %q for %+v", e.Name, want, r)
		}
		if got, want := e.Args["start_cycle"].(json.Number).String(), u64toa(r.StartCycle); got != want {
			t.Fatalf("start_cycle %s, want %s", got, want)
		}
		ns, index := abi.LookupDesc(r.DescID)
		for _, arg := range []string{"task_type", "graph_stage"} {
			v, has := e.Args[arg]
			if (arg == ns.Arg()) != has || has && v.(json.Number).String() != u64toa(uint64(index)) {
				t.Fatalf("desc_id %#x: args.%s = %v (namespace %s)", r.DescID, arg, v, ns)
			}
		}
		if _, has := e.Args["owner_id"]; has != (r.OwnerID != abi.InvalidOwnerID) {
			t.Fatalf("owner_id %#x: args.owner_id present=%v", r.OwnerID, has)
		}
		stage, named := cfg.Names.TaskStage(r.TaskID)
		if got, has := e.Args["task_stage"]; has != named || named && got != stage {
			t.Fatalf("task %d: args.task_stage %v, want %q", r.TaskID, got, stage)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}

	// Extra bytes after the layout: the same trace.
	extra := append(slices.Clone(g.B.Bytes()), rapid.SliceOfN(rapid.Byte(), 1, 100).Draw(t, "extra")...)
	d2, err := decodetest.Decode("gen.bin", extra, g.Opts)
	if err != nil {
		t.Fatalf("trailing bytes refused: %v", err)
	}
	out2, err := traceOf(render.Input{Decoded: d2, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out2) {
		t.Fatalf("trailing bytes changed the trace: %s", golden.FirstDiff(out2, out))
	}
}

func TestTraceProperties(t *testing.T) { rapid.Check(t, propTrace) }

func FuzzTrace(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propTrace)) }

func itoa(n int) string          { return u64toa(uint64(n)) }
func u64toa(n uint64) string     { return new(big.Int).SetUint64(n).String() }
func must[T any](v T, _ error) T { return v }
