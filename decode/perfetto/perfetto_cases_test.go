package perfetto

// The Perfetto writer on the examples and on edge cases: interned tables,
// bounds, refusals, the size goal (perfetto_test.go has the model checks).

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	pb "github.com/megakernel/cycleabi/decode/perfetto/internal/perfettopb"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"
)

// The shipped examples: the Perfetto trace holds the JSON's slices, alone
// and as two ranks of one trace.
func TestPerfettoExamples(t *testing.T) {
	names, err := kernelnames.Load("../../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	open := func(path string) *decode.Decoded {
		c, err := capture.Open(path)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		d, err := decode.Decode(c, capture.Request{})
		require.NoError(t, err)
		return d
	}
	moe, aiv := decodetest.DefaultConfig(), decodetest.DefaultConfig()
	moe.Names = names
	aiv.Rank, aiv.DeviceID = 1, 5
	inputs := []render.Input{{Decoded: open("../../examples/moe_layer.bin"), Config: moe}, {Decoded: open("../../examples/aiv_pipeline.npy"), Config: aiv}}
	for _, in := range [][]render.Input{inputs[:1], inputs[1:], inputs} {
		m, err := checkPerfettoTrace(in...)
		require.NoErrorf(t, err, "%d input(s), first %s", len(in), in[0].Decoded.Capture.Name)
		records := 0
		for _, i := range in {
			records += int(i.Decoded.Summary.Records)
		}
		require.Len(t, m.slices, records)
	}
}

// With the interning tables full after two entries, later event names and
// task_stage values are written in full: the trace still holds the JSON's
// slices, names and args, on the example with its names file, detailed
// names or not.
func TestPerfettoInternedTablesFull(t *testing.T) {
	names, err := kernelnames.Load("../../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	c, err := capture.Open("../../examples/moe_layer.bin")
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	defer func(n int) { maxInternedNames = n }(maxInternedNames)
	for _, limit := range []int{2, 1 << 16} {
		maxInternedNames = limit
		for _, detailed := range []bool{false, true} {
			cfg := decodetest.DefaultConfig()
			cfg.Names, cfg.DetailedNames = names, detailed
			pf, err := perfettoOf(render.Input{Decoded: d, Config: cfg})
			require.NoError(t, err)
			_, err = checkPerfettoTrace(render.Input{Decoded: d, Config: cfg})
			require.NoErrorf(t, err, "limit %d, detailed %v", limit, detailed)
			// Full tables write names and stages in full: a bigger trace.
			t.Logf("limit %d, detailed %v: %d bytes", limit, detailed, len(pf))
		}
	}
}

// propPerfetto: for any valid capture, at any of the test frequencies,
// the Perfetto trace passes every check and holds the JSON's slices; or,
// when a timestamp is past 2^63-1 ns, it is refused.
func propPerfetto(t *rapid.T) {
	g := capturedraw.Draw(t)
	cfg := decodetest.DefaultConfig()
	cfg.Names = g.Names
	cfg.DetailedNames = rapid.Bool().Draw(t, "detailed")
	cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 1000, 3, 0.0000003}).Draw(t, "mhz")
	cfg.Rank = rapid.Uint32Range(0, 7).Draw(t, "rank")
	cfg.DeviceID = rapid.Uint32Range(0, 7).Draw(t, "device")
	d, err := decodetest.Decode("gen.bin", g.B.Bytes(), g.Opts)
	require.NoError(t, err, "valid capture refused")
	in := render.Input{Decoded: d, Config: cfg}
	if _, err := checkPerfettoTrace(in); err != nil {
		require.Containsf(t, err.Error(), "2^63-1 ns", "%v", err)
		// Refused: some JSON timestamp must be that far from the anchor.
		js, _ := traceOf(in)
		f, _ := decodetest.ParseTrace(js)
		far := false
		for _, x := range decodetest.XEvents(f) {
			end := new(big.Int).Add(new(big.Int).Abs(jsonNs(x.Ts)), jsonNs(x.Dur))
			far = far || end.Cmp(new(big.Int).Lsh(big.NewInt(1), 62)) > 0
		}
		require.Truef(t, far, "refused, though every timestamp is within 2^62 ns: %v", err)
	}
}

func TestPerfettoProperty(t *testing.T) { rapid.Check(t, propPerfetto) }

func FuzzPerfetto(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propPerfetto)) }

// propPerfettoFlows: arrows drawn between random records, fan-in and
// fan-out, each producer starting before its wait ends, come out as one
// flow_ids entry on the producer's BEGIN and one terminating_flow_ids
// entry on the wait's END, in that order.
func propPerfettoFlows(t *rapid.T) {
	g := capturedraw.Draw(t)
	d, err := decodetest.Decode("gen.bin", g.B.Bytes(), g.Opts)
	require.NoError(t, err)
	recs, err := decodetest.ScanRecords(d)
	require.NoError(t, err)
	type key struct {
		slot  abi.Slot
		index int
	}
	type arrow struct{ src, dst decodetest.LiveRecord }
	arrows := map[uint64]arrow{}
	outs, ins := map[key][]uint64{}, map[key][]uint64{}
	n := rapid.IntRange(0, 2*len(recs)).Draw(t, "arrows")
	for range n {
		src := recs[rapid.IntRange(0, len(recs)-1).Draw(t, "src")]
		// Fan-out and fan-in: often reuse an endpoint.
		dst := recs[rapid.IntRange(0, len(recs)-1).Draw(t, "dst")]
		if src.StartCycle >= dst.EndCycle {
			continue
		}
		id := rapid.Uint64().Draw(t, "id")
		if _, dup := arrows[id]; dup {
			continue
		}
		arrows[id] = arrow{src, dst}
		outs[key{src.Slot, src.Index}] = append(outs[key{src.Slot, src.Index}], id)
		ins[key{dst.Slot, dst.Index}] = append(ins[key{dst.Slot, dst.Index}], id)
	}
	cfg := decodetest.DefaultConfig()
	// 1 ns a cycle: the far-apart cycles capturedraw.Draw sometimes writes
	// still fit in int64 nanoseconds, and distinct cycles stay distinct.
	cfg.FrequencyMHz = 1000
	flows := []flowLookup{func(r *decode.Record) (out, in []uint64) {
		k := key{d.Slot(r), r.Index}
		return outs[k], ins[k]
	}}
	m, err := checkPerfettoTraceWith(render.WriteOptions{}, flows, render.Input{Decoded: d, Config: cfg})
	if err != nil {
		if strings.Contains(err.Error(), "2^63-1 ns") {
			t.Skip("timestamps past 2^63-1 ns")
		}
		require.FailNow(t, fmt.Sprintf("%v", err))
	}
	require.Lenf(t, m.flowStarts, len(arrows), "flow starts for %d arrows", len(arrows))
	require.Lenf(t, m.flowEnds, len(arrows), "flow ends for %d arrows", len(arrows))
	same := func(s *pfModelSlice, r decodetest.LiveRecord) bool {
		return s.core().desc.GetName() == r.Slot.String() && s.args["start_cycle"] == strconv.FormatUint(r.StartCycle, 10) &&
			s.args["end_cycle"] == strconv.FormatUint(r.EndCycle, 10) && s.args["task_id"] == strconv.FormatUint(uint64(r.TaskID), 10) &&
			s.args["stage_task_index"] == strconv.FormatUint(uint64(r.StageTaskIndex), 10)
	}
	for id, a := range arrows {
		s, e := m.flowStarts[id], m.flowEnds[id]
		require.NotNilf(t, s, "flow %d: no start", id)
		require.NotNilf(t, e, "flow %d: no end", id)
		require.Truef(t, same(s, a.src), "flow %d starts at %q, want %s record %d", id, s.name, a.src.Slot, a.src.Index)
		require.Truef(t, same(e, a.dst), "flow %d ends at %q, want %s record %d", id, e.name, a.dst.Slot, a.dst.Index)
	}
}

func TestPerfettoFlows(t *testing.T) { rapid.Check(t, propPerfettoFlows) }

// A hand-made fan-in and fan-out across three cores, checked end to end.
func TestPerfettoFanInFanOut(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	const aic, aiv = abi.CoreTypeAIC, abi.CoreTypeAIV
	b.Enter(aic, 0, 100).Enter(aiv, 0, 100).Enter(aiv, 1, 100)
	b.Span(aic, 0, 100, 200, trigger, 1) // producer P1
	b.Span(aiv, 0, 150, 300, wait, 2)    // wait W1: from P1 and P2 (fan-in)
	b.Span(aiv, 1, 120, 180, trigger, 3) // producer P2: to W1 and W2 (fan-out)
	b.Span(aiv, 1, 180, 250, wait, 4)    // wait W2
	b.Span(aic, 0, 200, 300, taskType(abi.TaskTypeMatMul), 5)
	d, err := decodetest.Decode("fan.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	flows := []flowLookup{func(r *decode.Record) (out, in []uint64) {
		switch r.TaskID {
		case 1:
			return []uint64{10}, nil
		case 3:
			return []uint64{11, math.MaxUint64}, nil
		case 2:
			return nil, []uint64{10, 11}
		case 4:
			return nil, []uint64{math.MaxUint64}
		}
		return nil, nil
	}}
	m, err := checkPerfettoTraceWith(render.WriteOptions{}, flows, render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	require.NoError(t, err)
	want := map[uint64][2]string{10: {"1", "2"}, 11: {"3", "2"}, math.MaxUint64: {"3", "4"}}
	for id, w := range want {
		s, e := m.flowStarts[id], m.flowEnds[id]
		require.NotNilf(t, s, "flow %d: no start", id)
		require.NotNilf(t, e, "flow %d: no end", id)
		require.Equalf(t, w[0], s.args["task_id"], "flow %d: start task", id)
		require.Equalf(t, w[1], e.args["task_id"], "flow %d: end task", id)
	}
}

// Records of one core that overlap without nesting go on overlap tracks;
// nested ones stay on the core's track.
func TestPerfettoOverlaps(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	const aic = abi.CoreTypeAIC
	b.Enter(aic, 0, 0).Enter(abi.CoreTypeAIV, 0, 0)
	b.Span(aic, 0, 100, 200, taskType(abi.TaskTypeMatMul), 1) // core track
	b.Span(aic, 0, 100, 150, wait, 2)                         // nests in it, same start
	b.Span(aic, 0, 150, 250, trigger, 3)                      // overlaps the first: overlap 1
	b.Span(aic, 0, 160, 300, wait, 4)                         // overlaps both: overlap 2
	b.Span(aic, 0, 200, 200, trigger, 5)                      // zero length where the first ends: core track
	b.Span(aic, 0, 250, 260, wait, 6)                         // after overlap 1's slice ends: core track
	d, err := decodetest.Decode("overlap.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	m, err := checkPerfettoTrace(render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	require.NoError(t, err)
	var tracks []string
	for _, s := range m.slices {
		tracks = append(tracks, s.track.desc.GetName())
	}
	want := []string{"AIC/0", "AIC/0", "AIC/0 overlap 1", "AIC/0 overlap 2", "AIC/0", "AIC/0"}
	require.Equal(t, want, tracks, "tracks")
}

// A record before its core's entry shifts every timestamp so that none is
// negative; the offset is in the metadata (checked by compareWithJSON).
func TestPerfettoBeforeEntry(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).Enter(abi.CoreTypeAIV, 0, 1000)
	b.Span(abi.CoreTypeAIC, 0, 990, 1010, wait, 1)
	b.Span(abi.CoreTypeAIV, 0, 1000, 1005, trigger, 1)
	d, err := decodetest.Decode("early.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	m, err := checkPerfettoTrace(render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(m.slices), 2, "slices")
	require.Equal(t, uint64(0), m.slices[0].start, "first start (ns)")
	require.Equal(t, uint64(200), m.slices[1].start, "second start (ns): 10 cycles at 50 MHz after the shift")
}

// Ranks that Perfetto cannot hold as a pid, and timestamps past int64
// nanoseconds, are errors, not a broken trace.
func TestPerfettoRefuses(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1)
	b.Span(abi.CoreTypeAIC, 0, 1, math.MaxUint64, wait, 1)
	d, err := decodetest.Decode("far.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	_, err = perfettoOf(render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	require.ErrorContains(t, err, "far.bin: AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than 2^63-1 ns", "timestamp past int64")
	cfg := decodetest.DefaultConfig()
	cfg.Rank = math.MaxInt32 + 1
	_, err = perfettoOf(render.Input{Decoded: d, Config: cfg})
	require.ErrorContains(t, err, "rank 2147483648", "rank past int32")
}

// The timestamps are exact: round(cycles × 1000 / MHz) rounded once,
// against math/big.
func TestNsClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mhz := rapid.SampledFrom([]float64{50, 1000, 3, 1.1, 1800, 0.0000003, 24.576}).Draw(t, "mhz")
		cycles := rapid.Uint64().Draw(t, "cycles")
		if rapid.Bool().Draw(t, "small") {
			cycles >>= rapid.IntRange(0, 63).Draw(t, "shift")
		}
		c := newNsClock(mhz)
		got, ok := c.ns(cycles)
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(mhz, 'f', -1, 64))
		x := new(big.Rat).Quo(new(big.Rat).SetInt(new(big.Int).Mul(new(big.Int).SetUint64(cycles), big.NewInt(1000))), r)
		x.Add(x, big.NewRat(1, 2))
		want := new(big.Int).Quo(x.Num(), x.Denom())
		fits := want.IsUint64() && want.Uint64() <= math.MaxInt64
		require.Equalf(t, fits, ok, "%d cycles at %v MHz: %d, want %s", cycles, mhz, got, want)
		require.Falsef(t, ok && got != want.Uint64(), "%d cycles at %v MHz: %d, want %s", cycles, mhz, got, want)
	})
}

// The CLI's flags decide the format through Write; here the
// writer: a trace written twice is the same bytes.
func TestPerfettoDeterministic(t *testing.T) {
	buf, err := os.ReadFile("../../examples/moe_layer.bin")
	require.NoError(t, err)
	d, err := decodetest.Decode("moe.bin", buf, capture.Request{})
	require.NoError(t, err)
	a, _ := perfettoOf(render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	b, _ := perfettoOf(render.Input{Decoded: d, Config: decodetest.DefaultConfig()})
	require.Equal(t, []byte(b), []byte(a), "two writes differ")
	require.NotEmpty(t, a, "two writes differ")
}

// Long names (multi-byte lengths, packets past 127 bytes) and names that
// are not valid UTF-8 (U+FFFD per bad byte, as in the JSON) come out as
// the JSON has them.
func TestPerfettoLongAndInvalidNames(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 100).Enter(abi.CoreTypeAIV, 0, 100)
	b.Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 100, EndCycle: 200, DescID: wait, TaskID: 1, OwnerID: 7})
	b.Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 200, EndCycle: 300, DescID: abi.GraphStageBase + 1, TaskID: 2, OwnerID: noOwner})
	b.Span(abi.CoreTypeAIV, 0, 150, 250, trigger, 2)
	d, err := decodetest.Decode("names.bin", b.Bytes(), capture.Request{})
	require.NoError(t, err)
	for _, detailed := range []bool{false, true} {
		cfg := decodetest.DefaultConfig()
		cfg.DetailedNames = detailed
		cfg.KernelName = "Mo\xffE"
		cfg.OwnerLabel = "Ex\xc3pert"
		cfg.Names = &kernelnames.Names{
			Stages: map[uint32]string{abi.GraphStageBase + 1: strings.Repeat("Down", 60)},
			Tasks:  kernelnames.TaskNamesOf(map[uint32]string{1: "Gate\xfe\xff", 2: strings.Repeat("Combine", 40)}),
		}
		_, err := checkPerfettoTrace(render.Input{Decoded: d, Config: cfg})
		require.NoErrorf(t, err, "detailed %v", detailed)
	}
}

// Invocations: several captures of a rank share its tracks, each laid out
// as the JSON lays it out (gap, or absolute time), each slice with its
// invocation's args; the JSON's slices, record by record.
func TestPerfettoInvocations(t *testing.T) {
	open := func(path string) *decode.Decoded {
		c, err := capture.Open(path)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		d, err := decode.Decode(c, capture.Request{})
		require.NoError(t, err)
		return d
	}
	step := int64(3)
	in := func(path string, rank uint32, inv render.Invocation) render.Input {
		cfg := decodetest.DefaultConfig()
		cfg.Rank, cfg.DeviceID = rank, rank
		cfg.Invocation = &inv
		return render.Input{Decoded: open(path), Config: cfg}
	}
	inputs := []render.Input{
		in("../../examples/moe_layer.bin", 0, render.Invocation{ID: 2, Step: &step, Direction: "backward"}),
		in("../../examples/aiv_pipeline.npy", 1, render.Invocation{ID: -1}),
		in("../../examples/moe_layer.bin", 0, render.Invocation{ID: 1, Step: &step, Direction: "forward"}),
	}
	gap := 2.5
	for _, o := range []render.WriteOptions{{}, {InvocationGapUs: &gap}, {AbsoluteTime: true}} {
		m, err := checkPerfettoTraceWith(o, nil, inputs...)
		require.NoErrorf(t, err, "%+v", o)
		seqs, from := map[uint32]bool{}, map[int]bool{}
		for _, s := range m.slices {
			seqs[s.seq] = true
			from[s.input] = true
		}
		cores := 0
		for _, in := range inputs {
			cores += len(in.Decoded.Summary.Active)
		}
		require.Len(t, seqs, cores, "slices on")
		require.Len(t, from, 3, "slices on")
	}
}

// propPerfettoDeps: the dependency arrows of random captures of random
// schedules (as analyze draws them for the JSON) are flows of the
// Perfetto trace: each arrow whose producer's slice starts before its
// wait's slice ends, as the trace shows them, is one flow from the one to
// the other with the JSON's id; the others are counted as unbound; the
// stats say so.
func propPerfettoDeps(t *rapid.T) {
	d, deps, cfg, ok := decodetest.RandomFlowCapture(t)
	if !ok {
		return
	}
	stats := make([]flows.Stats, 1)
	m, err := checkPerfettoTraceWith(render.WriteOptions{FlowStats: stats}, nil, render.Input{Decoded: d, Config: cfg})
	require.NoError(t, err)
	// The slices of a record, by its core and cycles.
	type key struct {
		core       string
		start, end string
	}
	byRecord := map[key][]*pfModelSlice{}
	for _, sl := range m.slices {
		k := key{sl.core().desc.GetName(), sl.args["start_cycle"], sl.args["end_cycle"]}
		byRecord[k] = append(byRecord[k], sl)
	}
	slicesOf := func(r decode.RecordRef) []*pfModelSlice {
		return byRecord[key{d.Summary.Active[r.Active].Slot.String(), strconv.FormatUint(r.StartCycle, 10), strconv.FormatUint(r.EndCycle, 10)}]
	}
	drawn, unbound := 0, 0
	want, err := flows.Each(d, deps, cfg.FlowMode, cfg.MaxFlows, func(f flows.Flow) bool {
		from, to := slicesOf(f.From), slicesOf(f.To)
		require.NotEmptyf(t, from, "arrow %d: no slice for its records", f.ID)
		require.NotEmptyf(t, to, "arrow %d: no slice for its records", f.ID)
		id := f.ID // input 0: ids as in the JSON, 0<<32 + n
		if from[0].start >= to[0].end {
			unbound++
			require.Nilf(t, m.flowStarts[id], "arrow %d: producer starts at %d, not before its wait ends at %d, yet drawn", id, from[0].start, to[0].end)
			return true
		}
		drawn++
		require.Truef(t, slices.Contains(from, m.flowStarts[id]), "arrow %d: flow starts at %v, not a slice of its producer", id, m.flowStarts[id])
		require.Truef(t, slices.Contains(to, m.flowEnds[id]), "arrow %d: flow ends at %v, not a slice of its waiter", id, m.flowEnds[id])
		return true
	})
	require.NoError(t, err)
	got := stats[0]
	require.Lenf(t, m.flowStarts, drawn, "flows drawn (stats %+v, of %+v)", got, want)
	require.Equalf(t, uint64(drawn), got.Arrows, "stats arrows (stats %+v, of %+v)", got, want)
	require.Equalf(t, uint64(unbound), got.Unbound, "stats unbound (stats %+v, of %+v)", got, want)
	require.Equalf(t, want.Waits, got.Waits, "stats waits (stats %+v, of %+v)", got, want)
	require.Equalf(t, want.WaitsWithoutProducer, got.WaitsWithoutProducer, "stats waits without producer (stats %+v, of %+v)", got, want)
	require.Equalf(t, want.Capped, got.Capped, "stats capped (stats %+v, of %+v)", got, want)
}

func TestPerfettoDeps(t *testing.T) { rapid.Check(t, propPerfettoDeps) }

// The shipped MoE example with the schedule it ran: every arrow the JSON
// draws, in both modes, is a flow of the Perfetto trace between the same
// two records (fan-in and fan-out among them, with --flows all).
func TestPerfettoExampleArrows(t *testing.T) {
	s, err := plan.ParseFile("../../examples/moe_layer.yaml")
	require.NoError(t, err)
	c, err := capture.Open("../../examples/moe_layer.bin")
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	deps, err := flows.NewDependencies(d, s)
	require.NoError(t, err)
	for _, mode := range []flows.Mode{flows.Releasing, flows.All} {
		cfg := decodetest.DefaultConfig()
		cfg.Deps, cfg.FlowMode = deps, mode
		stats := make([]flows.Stats, 1)
		m, err := checkPerfettoTraceWith(render.WriteOptions{FlowStats: stats}, nil, render.Input{Decoded: d, Config: cfg})
		require.NoError(t, err)
		fanIn, fanOut := map[*pfModelSlice]int{}, map[*pfModelSlice]int{}
		n := uint64(0)
		_, err = flows.Each(d, deps, mode, 0, func(f flows.Flow) bool {
			from, to := m.flowStarts[f.ID], m.flowEnds[f.ID]
			require.NotNilf(t, from, "%v arrow %d: flow %v -> %v", mode, f.ID, from, to)
			require.NotNilf(t, to, "%v arrow %d: flow %v -> %v", mode, f.ID, from, to)
			require.Equalf(t, strconv.FormatUint(f.From.StartCycle, 10), from.args["start_cycle"], "%v arrow %d: flow %v -> %v", mode, f.ID, from, to)
			require.Equalf(t, strconv.FormatUint(f.To.EndCycle, 10), to.args["end_cycle"], "%v arrow %d: flow %v -> %v", mode, f.ID, from, to)
			fanOut[from]++
			fanIn[to]++
			n++
			return true
		})
		require.NoError(t, err)
		maxIn, maxOut := 0, 0
		for _, k := range fanIn {
			maxIn = max(maxIn, k)
		}
		for _, k := range fanOut {
			maxOut = max(maxOut, k)
		}
		t.Logf("%v: %d arrows, fan-in up to %d, fan-out up to %d", mode, n, maxIn, maxOut)
		require.NotZerof(t, n, "%v: arrows", mode)
		require.Equalf(t, n, stats[0].Arrows, "%v: stats %+v", mode, stats[0])
		require.Zerof(t, stats[0].Unbound, "%v: stats %+v", mode, stats[0])
		if mode == flows.All {
			require.GreaterOrEqualf(t, maxIn, 2, "%v: fan-in", mode)
			require.GreaterOrEqualf(t, maxOut, 2, "%v: fan-out", mode)
		}
	}
}

// The size goal, held on the benchmark capture docs/performance.md quotes
// (32 MB, 500,000 records, its names file): the Perfetto trace is at most
// a quarter of the JSON's size. The margin is thin (24.97%): a byte more
// per record misses it. Its encoding is the one docs/perfetto.md describes:
// slices on a core's own track name no track (the sequence's default),
// and their timestamps are small deltas on the core's sequence clock.
func TestPerfettoSizeGoal(t *testing.T) {
	short.Skip(t, "writes the 32 MB benchmark capture's traces")
	if raceEnabled {
		t.Skip("writes the 32 MB benchmark capture's traces: two minutes under -race (make ci runs it without)")
	}
	spec := decodetest.BenchSpecs["32MB"]
	d := decodetest.Decoded32MB(t)
	stages, tasks := spec.Names()
	cfg := decodetest.DefaultConfig()
	cfg.Names = &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}
	in := []render.Input{{Decoded: d, Config: cfg}}
	js := &decodetest.CountingWriter{W: io.Discard}
	require.NoError(t, chromejson.Write(js, in, render.WriteOptions{}))
	var pf bytes.Buffer
	require.NoError(t, Write(&pf, in, render.WriteOptions{}))
	ratio := float64(pf.Len()) / float64(js.N)
	t.Logf("%d bytes against %d of JSON: %.2f%%, %.1f bytes a record", pf.Len(), js.N, 100*ratio, float64(pf.Len())/float64(spec.Records))
	assert.LessOrEqualf(t, ratio, 0.25, "the Perfetto trace is %.2f%% of the JSON's size, over the goal of 25%%", 100*ratio)
	var tr pb.Trace
	require.NoError(t, proto.Unmarshal(pf.Bytes(), &tr))
	events, withTrack, deltaBytes := 0, 0, 0
	for _, p := range tr.GetPacket() {
		ev := p.GetTrackEvent()
		if ev == nil || ev.GetType() == pb.TrackEvent_TYPE_INSTANT {
			continue
		}
		events++
		if ev.TrackUuid != nil {
			withTrack++
		}
		deltaBytes += protowire.SizeVarint(p.GetTimestamp())
	}
	assert.Equalf(t, 2*spec.Records, events, "BEGINs and ENDs for %d records naming their track (want none: no overlaps here)", spec.Records)
	assert.Equalf(t, 0, withTrack, "BEGINs and ENDs for %d records naming their track (want none: no overlaps here)", spec.Records)
	assert.LessOrEqual(t, float64(deltaBytes)/float64(events), float64(3), "timestamps take")
}

// regionTrack reports whether name is a region track's: a core type of
// one of the schema's regions.
func regionTrack(name string) bool {
	for _, r := range abi.Regions() {
		if r.CoreType.String() == name {
			return true
		}
	}
	return false
}

// Two invocations of rank 0 that overlap in time (one capture given
// twice): the second's metadata instant carries the warning, and the
// trace's megaKernelCycleTrace JSON twice (TestInvocationsOverlap in
// decode/chromejson has the JSON's).
func TestInvocationsOverlapPerfetto(t *testing.T) {
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	step := int64(3)
	var in []render.Input
	for i, dir := range []string{"forward", "backward"} {
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1500, mm, 1)
		b.Enter(abi.CoreTypeAIV, 1, 1000).Span(abi.CoreTypeAIV, 1, 1100, 2000, mm, 2)
		d, err := decodetest.Decode("fwd.bin", b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		cfg := decodetest.DefaultConfig()
		cfg.Invocation = &render.Invocation{ID: int64(i), Step: &step, Direction: dir}
		in = append(in, render.Input{Decoded: d, Config: cfg})
	}
	want := "invocation 1 (fwd.bin) of rank 0 overlaps invocation 0 (fwd.bin) in time: cycles 1000-2000 against 1000-2000; " +
		"their slices share the core threads (both anchored at cycle 1000: the same capture twice?); --invocation-gap-us lays them end to end"
	var overlaps []string
	var out bytes.Buffer
	require.NoError(t, Write(&out, in, render.WriteOptions{Overlaps: &overlaps}))
	require.Equalf(t, []string{want}, overlaps, "overlaps, want %q", want)
	require.Equal(t, 3, bytes.Count(out.Bytes(), []byte(want)), "the warning is in the trace")
}
