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
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err, "valid capture refused")
	out, err := traceOf(render.Input{Decoded: d, Config: cfg})
	require.NoError(t, err)
	require.NoError(t, checkPerfetto(out), "Perfetto check")
	f, err := decodetest.ParseTrace(out)
	require.NoError(t, err, "trace does not parse")

	xs := decodetest.XEvents(f)
	require.Len(t, xs, g.Records)
	prev := new(big.Float)
	for i, e := range xs {
		ts, ok := new(big.Float).SetString(e.Ts.String())
		require.Truef(t, ok, "event %d: ts %s", i, e.Ts)
		if i > 0 {
			require.GreaterOrEqualf(t, ts.Cmp(prev), 0, "event %d: ts %s before the previous event's %s", i, e.Ts, prev.String())
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
			require.Falsef(t, endCycle <= startCycle && ts+dur > next, "thread %s: ts %s + dur %s passes the next record's ts %s (end_cycle %d, next start_cycle %d)", tid, prev.Ts, prev.Dur, e.Ts, endCycle, startCycle)
		}
		last[tid] = e
	}

	m := f.MegaKernelCycleTrace
	require.Equalf(t, itoa(g.Records), m["recordCount"].(json.Number).String(), "recordCount, want %d", g.Records)
	require.Equalf(t, itoa(int(g.Dropped)), m["droppedRecordCount"].(json.Number).String(), "droppedRecordCount, want %d", g.Dropped)
	// The warnings: dropped records as the reference says it, then one
	// line per kind of what misleads a viewer, counted here from the
	// records in slot order.
	want := decode.Warnings{Dropped: g.Dropped}
	for _, a := range d.Summary.Active {
		recs := make([]abi.ProfileRecord, a.Count)
		_, err := d.Capture.ReadRecords(a.Slot, 0, recs, nil)
		require.NoError(t, err)
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
	require.Truef(t, slices.Equal(gotWarnings, want.Lines()), "warnings %q", gotWarnings)
	require.Equalf(t, (len(gotWarnings) > 0 && strings.HasPrefix(gotWarnings[0], "Device dropped ")), (g.Dropped > 0), "warnings %v with %d dropped", gotWarnings, g.Dropped)
	threads := 0
	for _, e := range f.TraceEvents {
		if e.Name == "thread_name" {
			threads++
		}
	}
	require.Equal(t, len(d.Summary.Active), threads)
	mj, _ := json.Marshal(f.Metadata)
	require.Equal(t, []byte(must(json.Marshal(m))), []byte(mj), "metadata differs from megaKernelCycleTrace")

	// Names and args, record by record, against the plain rules.
	i := 0
	err = d.Records(func(r decode.Record) bool {
		e := xs[i]
		i++
		require.Equalf(t, cfg.Names.EventName(&r.ProfileRecord, cfg.DetailedNames, cfg.OwnerLabel), e.Name, "event name for %+v", r)
		require.Equal(t, u64toa(r.StartCycle), e.Args["start_cycle"].(json.Number).String(), "start_cycle")
		ns, index := abi.LookupDesc(r.DescID)
		for _, arg := range []string{"task_type", "graph_stage"} {
			v, has := e.Args[arg]
			require.Equalf(t, has, (arg == ns.Arg()), "desc_id %#x: args.%s = %v (namespace %s)", r.DescID, arg, v, ns)
			require.Falsef(t, has && v.(json.Number).String() != u64toa(uint64(index)), "desc_id %#x: args.%s = %v (namespace %s)", r.DescID, arg, v, ns)
		}
		_, has := e.Args["owner_id"]
		require.Equalf(t, (r.OwnerID != abi.InvalidOwnerID), has, "owner_id %#x: args.owner_id present", r.OwnerID)
		stage, named := cfg.Names.TaskStage(r.TaskID)
		got, hasStage := e.Args["task_stage"]
		require.Equalf(t, named, hasStage, "task %d: args.task_stage present", r.TaskID)
		if named {
			require.Equalf(t, any(stage), got, "task %d: args.task_stage", r.TaskID)
		}
		return true
	})
	require.NoError(t, err)

	// Extra bytes after the layout: the same trace.
	extra := append(slices.Clone(g.B.Bytes()), rapid.SliceOfN(rapid.Byte(), 1, 100).Draw(t, "extra")...)
	d2, err := decodetest.Decode("gen.bin", extra, g.Opts)
	require.NoError(t, err, "trailing bytes refused")
	out2, err := traceOf(render.Input{Decoded: d2, Config: cfg})
	require.NoError(t, err)
	require.Truef(t, bytes.Equal(out, out2), "trailing bytes changed the trace: %s", golden.Diff(out2, out))
}

func TestTraceProperties(t *testing.T) { rapid.Check(t, propTrace) }

func FuzzTrace(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propTrace)) }

func itoa(n int) string          { return u64toa(uint64(n)) }
func u64toa(n uint64) string     { return new(big.Int).SetUint64(n).String() }
func must[T any](v T, _ error) T { return v }
