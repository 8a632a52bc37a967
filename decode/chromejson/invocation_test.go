package chromejson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// invocationInputs are two invocations of rank 0 at 50 MHz (20 ns a
// cycle): a forward one entered at cycle 1000 whose last record ends at
// 2000 (a 20 us span), and a backward one entered at 9000.
func invocationInputs(t *testing.T) []render.Input {
	t.Helper()
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	fwd := capturetest.New(24, 16, 16)
	fwd.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1500, mm, 1)
	fwd.Enter(abi.CoreTypeAIV, 1, 1000).Span(abi.CoreTypeAIV, 1, 1100, 2000, mm, 2)
	bwd := capturetest.New(24, 16, 16)
	bwd.Enter(abi.CoreTypeAIC, 0, 9000).Span(abi.CoreTypeAIC, 0, 9000, 9250, mm, 3)
	bwd.Enter(abi.CoreTypeAIC, 2, 9000).Span(abi.CoreTypeAIC, 2, 9100, 9300, mm, 4)
	step := int64(3)
	var inputs []render.Input
	for i, c := range []struct {
		name string
		b    *capturetest.Builder
		dir  string
	}{{"fwd.bin", fwd, "forward"}, {"bwd.bin", bwd, "backward"}} {
		d, err := decodetest.Decode(c.name, c.b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		cfg := decodetest.DefaultConfig()
		cfg.Invocation = &render.Invocation{ID: int64(i), Step: &step, Direction: c.dir}
		inputs = append(inputs, render.Input{Decoded: d, Config: cfg})
	}
	return inputs
}

func TestInvocationsLaidOut(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Write(&out, invocationInputs(t), render.WriteOptions{}))
	f, err := decodetest.ParseTrace(out.Bytes())
	require.NoErrorf(t, err, "%s)", out.Bytes())
	require.NoError(t, checkPerfetto(out.Bytes()))

	type ev struct{ name, tid, ts, dur string }
	var meta []ev
	var xs []decodetest.Event
	for _, e := range f.TraceEvents {
		if e.Ph == "M" {
			meta = append(meta, ev{e.Name, e.Tid.String(), "", ""})
		} else {
			xs = append(xs, e)
		}
	}
	// One process, one thread per core of the rank, written once.
	require.Equal(t, []ev{{"process_name", "0", "", ""},
		{"thread_name", "1000", "", ""}, {"thread_sort_index", "1000", "", ""},
		{"thread_name", "1002", "", ""}, {"thread_sort_index", "1002", "", ""},
		{"thread_name", "2001", "", ""}, {"thread_sort_index", "2001", "", ""}}, meta)
	var got []ev
	for _, e := range xs {
		got = append(got, ev{e.Args["invocation_id"].(json.Number).String() + e.Args["direction"].(string), e.Tid.String(), e.Ts.String(), e.Dur.String()})
		require.Equal(t, json.Number("3"), e.Args["step"])
	}
	// Both from the rank's earliest anchor (cycle 1000): backward, whose
	// own anchor is 9000, sits (9000 - 1000) / 50 MHz = 160 us later.
	require.Equal(t, []ev{
		{"0forward", "1000", "0", "10"},
		{"0forward", "2001", "2", "18"},
		{"1backward", "1000", "160", "5"},
		{"1backward", "1002", "162", "4"},
	}, got)

	m := f.MegaKernelCycleTrace
	require.Equal(t, json.Number("2"), m["invocationCount"])
	require.Equal(t, json.Number("4"), m["recordCount"])
	require.Equal(t, []any{}, m["warnings"])
	require.Equal(t, 2, len(m["ranks"].([]any)), "len")
	require.Equal(t, []any{
		map[string]any{"invocationId": json.Number("0"), "step": json.Number("3"), "direction": "forward", "kernelName": "MegaKernel",
			"rank": json.Number("0"), "deviceId": json.Number("0"), "anchorCycle": json.Number("1000"),
			"recordCount": json.Number("2"), "droppedRecordCount": json.Number("0"), "capture": "fwd.bin"},
		map[string]any{"invocationId": json.Number("1"), "step": json.Number("3"), "direction": "backward", "kernelName": "MegaKernel",
			"rank": json.Number("0"), "deviceId": json.Number("0"), "anchorCycle": json.Number("9000"),
			"recordCount": json.Number("2"), "droppedRecordCount": json.Number("0"), "capture": "bwd.bin"},
	}, m["invocations"])
	require.Equal(t, f.MegaKernelCycleTrace, f.Metadata)
}

func TestInvocationsGapAndAbsoluteTime(t *testing.T) {
	ts := func(o render.WriteOptions, inputs []render.Input) []string {
		var out bytes.Buffer
		require.NoError(t, Write(&out, inputs, o))
		f, err := decodetest.ParseTrace(out.Bytes())
		require.NoError(t, err)
		var ts []string
		for _, e := range decodetest.XEvents(f) {
			ts = append(ts, e.Ts.String())
		}
		return ts
	}
	zero, ten := 0.0, 10.0
	require.Equal(t, []string{"0", "2", "20", "22"}, ts(render.WriteOptions{InvocationGapUs: &zero}, invocationInputs(t)))
	// Given in the other order: ids still decide the layout end to end
	// (20 us span + 10 us gap = 30 us); real times do not depend on it.
	in := invocationInputs(t)
	require.Equal(t, []string{"30", "32", "0", "2"}, ts(render.WriteOptions{InvocationGapUs: &ten}, []render.Input{in[1], in[0]}))
	require.Equal(t, []string{"160", "162", "0", "2"}, ts(render.WriteOptions{}, []render.Input{in[1], in[0]}))
	// System-counter time: cycle c is c × 0.02 us.
	require.Equal(t, []string{"20", "22", "180", "182"}, ts(render.WriteOptions{AbsoluteTime: true}, invocationInputs(t)))
	// It wins over a gap.
	require.Equal(t, []string{"20", "22", "180", "182"}, ts(render.WriteOptions{AbsoluteTime: true, InvocationGapUs: &ten}, invocationInputs(t)))
	neg := -1.0
	err := Write(&bytes.Buffer{}, invocationInputs(t), render.WriteOptions{InvocationGapUs: &neg})
	require.ErrorContainsf(t, err, "must be >= 0", "error %v, want one containing %q", err, "must be >= 0")
}

// Invocations that overlap in time (here one anchor, as when one capture
// is given twice; upstream shifts such invocations by 0 too) stay where
// they ran and are warned about, in the window's warnings, the capture's
// object and Overlaps (the Perfetto writer's: decode/perfetto); laid end
// to end they are not.
func TestInvocationsOverlap(t *testing.T) {
	in := invocationInputs(t)
	// The same capture twice, decoded twice as the CLI would (Write
	// counts each input's warnings in its own decode.Decoded).
	again := capturetest.New(24, 16, 16)
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	again.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1500, mm, 1)
	again.Enter(abi.CoreTypeAIV, 1, 1000).Span(abi.CoreTypeAIV, 1, 1100, 2000, mm, 2)
	d, err := decodetest.Decode("fwd.bin", again.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
	require.NoError(t, err)
	in[1].Decoded = d
	in[1].Config.Invocation.Direction = "backward"
	want := "invocation 1 (fwd.bin) of rank 0 overlaps invocation 0 (fwd.bin) in time: cycles 1000-2000 against 1000-2000; " +
		"their slices share the core threads (both anchored at cycle 1000: the same capture twice?); --invocation-gap-us lays them end to end"
	var overlaps []string
	var out bytes.Buffer
	require.NoError(t, Write(&out, in, render.WriteOptions{Overlaps: &overlaps}))
	require.Equal(t, []string{want}, overlaps)
	f, err := decodetest.ParseTrace(out.Bytes())
	require.NoError(t, err)
	var ts []string
	for _, e := range decodetest.XEvents(f) {
		ts = append(ts, e.Ts.String())
	}
	require.Equal(t, []string{"0", "2", "0", "2"}, ts)
	require.Equal(t, []any{want}, f.MegaKernelCycleTrace["warnings"])
	ranks := f.MegaKernelCycleTrace["ranks"].([]any)
	require.Equal(t, []any{}, ranks[0].(map[string]any)["warnings"])
	require.Equal(t, []any{want}, ranks[1].(map[string]any)["warnings"])

	// Records that only touch (one ends where the next starts) do not
	// overlap; end to end nothing does.
	zero := 0.0
	for _, o := range []render.WriteOptions{{InvocationGapUs: &zero}, {}} {
		if o.InvocationGapUs == nil {
			in = invocationInputs(t)
			b := capturetest.New(24, 16, 16)
			b.Enter(abi.CoreTypeAIC, 0, 2000).Span(abi.CoreTypeAIC, 0, 2000, 2100, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 3)
			d, err := decodetest.Decode("next.bin", b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
			require.NoError(t, err)
			in[1].Decoded = d
		}
		overlaps = []string{"stale"}
		o.Overlaps = &overlaps
		require.NoError(t, Write(&bytes.Buffer{}, in, o))
		require.Empty(t, overlaps)
	}
}

func TestInvocationsRefused(t *testing.T) {
	in := invocationInputs(t)
	in[1].Config.Invocation.ID = 0
	err := Write(&bytes.Buffer{}, in, render.WriteOptions{})
	require.EqualErrorf(t, err, "fwd.bin and bwd.bin are both invocation 0 of rank 0", "error %v, want %q", err, "fwd.bin and bwd.bin are both invocation 0 of rank 0")
	in = invocationInputs(t)
	in[1].Config.Invocation = nil
	err = Write(&bytes.Buffer{}, in, render.WriteOptions{})
	require.EqualError(t, err, "fwd.bin and bwd.bin both have rank 0 (each capture needs its own pid)")
	in = invocationInputs(t)
	in[1].Config.Rank = 1
	in[0].Config.Invocation = nil
	err = Write(&bytes.Buffer{}, in, render.WriteOptions{})
	require.EqualError(t, err, "1 of 2 captures are invocations: give every capture its invocation, or none")
	require.Error(t, render.CheckDirection("sideways"), "no error")
	require.NoError(t, render.CheckDirection("backward"))
}

// TestPropInvocationsShifted: each invocation's events are the events it
// has decoded alone, in the same order, with the same durations and args
// (plus the invocation's), each ts moved by one constant. By default that
// constant is upstream's: (the anchorCycle of its trace alone - the
// smallest of the window's) / MHz; and an invocation is warned about
// exactly when its records (from its trace alone) start before those of
// an invocation that starts no earlier end. With a gap, invocation k
// starts where k-1 ends plus the gap, computed here from the events of
// k-1 decoded alone.
func TestPropInvocationsShifted(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 3).Draw(rt, "invocations")
		endToEnd := rapid.Bool().Draw(rt, "endToEnd")
		gap := float64(rapid.IntRange(0, 50).Draw(rt, "gapUs"))
		var inputs []render.Input
		var alone [][]decodetest.Event
		var anchors []*big.Rat
		type span struct {
			start, end *big.Rat
		}
		spans := make([]*span, n) // nil: no records
		// Apart, invocation k runs k × 2^40 cycles later: their records
		// overlap only where a draw reaches past 2^40 cycles.
		apart := rapid.Bool().Draw(rt, "apart")
		for k := range n {
			g := capturedraw.Draw(rt)
			if apart {
				delayCycles(g.B, uint64(k)<<40)
			}
			d, err := decodetest.Decode(fmt.Sprintf("inv%d.bin", k), g.B.Bytes(), g.Opts)
			require.NoError(rt, err, "valid capture refused")
			cfg := decodetest.DefaultConfig()
			cfg.Names = g.Names
			out, err := traceOf(render.Input{Decoded: d, Config: cfg})
			require.NoError(rt, err)
			f, err := decodetest.ParseTrace(out)
			require.NoError(rt, err)
			alone = append(alone, decodetest.XEvents(f))
			anchors = append(anchors, ratOf(rt, f.MegaKernelCycleTrace["anchorCycle"].(json.Number)))
			for _, e := range alone[k] {
				s, e := ratOf(rt, e.Args["start_cycle"].(json.Number)), ratOf(rt, e.Args["end_cycle"].(json.Number))
				if spans[k] == nil {
					spans[k] = &span{s, e}
				}
				if s.Cmp(spans[k].start) < 0 {
					spans[k].start = s
				}
				if e.Cmp(spans[k].end) > 0 {
					spans[k].end = e
				}
			}
			step := int64(k / 2)
			cfg.Invocation = &render.Invocation{ID: int64(k), Step: &step, Direction: render.Directions[k%2]}
			inputs = append(inputs, render.Input{Decoded: d, Config: cfg})
		}
		o := render.WriteOptions{Overlaps: new([]string)}
		if endToEnd {
			o.InvocationGapUs = &gap
		}
		var out bytes.Buffer
		err := Write(&out, inputs, o)
		if err != nil && strings.Contains(err.Error(), "2^64") {
			rt.Skip("cycles near 2^64 do not lay out")
		}
		require.NoError(rt, err)
		require.NoError(rt, checkPerfetto(out.Bytes()), "Perfetto check")
		f, err := decodetest.ParseTrace(out.Bytes())
		require.NoError(rt, err)
		mhz := new(big.Rat).SetInt64(int64(decodetest.DefaultConfig().FrequencyMHz))
		earliest := anchors[0]
		for _, a := range anchors {
			if a.Cmp(earliest) < 0 {
				earliest = a
			}
		}
		var warned []string
		if !endToEnd {
			for k := range n {
				if spans[k] == nil {
					continue
				}
				for j := range n {
					if j == k || spans[j] == nil {
						continue
					}
					c := spans[j].start.Cmp(spans[k].start)
					if (c < 0 || c == 0 && j < k) && spans[k].start.Cmp(spans[j].end) < 0 {
						warned = append(warned, fmt.Sprintf("invocation %d (inv%d.bin)", k, k))
						break
					}
				}
			}
		}
		require.Lenf(rt, *o.Overlaps, len(warned), "overlap warnings, want one for each of %q", warned)
		for i, w := range warned {
			require.Truef(rt, strings.HasPrefix((*o.Overlaps)[i], w+" of rank 0 overlaps"), "overlap warning %q, want one for %s", (*o.Overlaps)[i], w)
		}
		ws := f.MegaKernelCycleTrace["warnings"].([]any)
		require.GreaterOrEqualf(rt, len(ws), len(warned), "window warnings %q, overlaps %q", ws, *o.Overlaps)
		if len(warned) > 0 {
			require.Equalf(rt, any((*o.Overlaps)[len(warned)-1]), ws[len(ws)-1], "last window warning (warnings %q, overlaps %q)", ws, *o.Overlaps)
		}
		xs := decodetest.XEvents(f)
		start := new(big.Rat) // where invocation k's time 0 must be
		for k := range n {
			if !endToEnd {
				start = new(big.Rat).Sub(anchors[k], earliest)
				start.Quo(start, mhz)
			}
			got := xs[:len(alone[k])]
			xs = xs[len(alone[k]):]
			end := new(big.Rat)
			for i, want := range alone[k] {
				e := got[i]
				// dur is printed so that ts + dur never passes the end's
				// ts as doubles, so it may be a nanosecond or two shorter
				// at another ts; the cycles in the args are the truth.
				require.Equalf(rt, want.Name, e.Name, "invocation %d event %d is %+v, alone %+v", k, i, e, want)
				require.Equalf(rt, want.Tid, e.Tid, "invocation %d event %d is %+v, alone %+v", k, i, e, want)
				require.Truef(rt, durClose(rt, e.Dur, want.Dur), "invocation %d event %d is %+v, alone %+v", k, i, e, want)
				require.Falsef(rt, e.Args["invocation_id"] != json.Number(fmt.Sprint(k)) || e.Args["direction"] != render.Directions[k%2], "invocation %d event %d args %v", k, i, e.Args)
				for a, v := range want.Args {
					require.Equalf(rt, v, e.Args[a], "invocation %d event %d arg %s", k, i, a)
				}
				shift := new(big.Rat).Sub(ratOf(rt, e.Ts), ratOf(rt, want.Ts))
				require.Zerof(rt, shift.Cmp(start), "invocation %d event %d moved by %s, want %s", k, i, shift.FloatString(3), start.FloatString(3))
				cycles := new(big.Rat).Sub(ratOf(rt, want.Args["end_cycle"].(json.Number)), ratOf(rt, want.Args["start_cycle"].(json.Number)))
				exactDur := cycles.Quo(cycles, mhz)
				if e := new(big.Rat).Add(ratOf(rt, want.Ts), exactDur); e.Cmp(end) > 0 {
					end = e
				}
			}
			if endToEnd {
				start.Add(start, end).Add(start, new(big.Rat).SetFloat64(gap))
			}
		}
		require.Empty(rt, xs)
	})
}

// delayCycles moves every cycle b holds (nonzero entry cycles, live
// records' start and end) by delay.
func delayCycles(b *capturetest.Builder, delay uint64) {
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		h := b.Buf[s.Offset:]
		if e := binary.LittleEndian.Uint64(h[abi.CoreHeaderEntryCycleOffset:]); e != 0 {
			binary.LittleEndian.PutUint64(h[abi.CoreHeaderEntryCycleOffset:], e+delay)
		}
		live := min(binary.LittleEndian.Uint32(h[abi.CoreHeaderRecordCountOffset:]), s.Capacity)
		for j := range live {
			r := b.Buf[s.RecordOffset(j):]
			for _, off := range []int{abi.ProfileRecordStartCycleOffset, abi.ProfileRecordEndCycleOffset} {
				binary.LittleEndian.PutUint64(r[off:], binary.LittleEndian.Uint64(r[off:])+delay)
			}
		}
	}
}

// durClose says whether two printed durations differ by at most the 3 ns
// the back-to-back rule may take off one of them.
func durClose(t *rapid.T, a, b json.Number) bool {
	d := new(big.Rat).Sub(ratOf(t, a), ratOf(t, b))
	return d.Abs(d).Cmp(big.NewRat(3, 1000)) <= 0
}

func ratOf(t *rapid.T, n json.Number) *big.Rat {
	r, ok := new(big.Rat).SetString(string(n))
	require.Truef(t, ok, "not a decimal: %q", n)
	return r
}

// A window of three invocations: forward and backward of rank 0, and a
// launch of rank 3 with no step or direction under another kernel name;
// rank 3's is given between rank 0's two.
func TestGoldenInvocations(t *testing.T) {
	in := invocationInputs(t)
	b := capturetest.New(24, 16, 16)
	b.Enter(abi.CoreTypeAIV, 4, 500).Span(abi.CoreTypeAIV, 4, 510, 530, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 9)
	d, err := decodetest.Decode("r3.bin", b.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
	require.NoError(t, err)
	cfg := decodetest.DefaultConfig()
	cfg.Rank, cfg.DeviceID, cfg.KernelName = 3, 7, "Other"
	cfg.Invocation = &render.Invocation{ID: 0}
	got, err := traceOf(in[0], render.Input{Decoded: d, Config: cfg}, in[1])
	require.NoError(t, err)
	checkGolden(t, filepath.Join("testdata", "golden", "invocations.json"), got)
}
