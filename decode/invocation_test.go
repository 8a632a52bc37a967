package decode

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/capturetest"
	"github.com/stretchr/testify/require"
)

// invocationInputs are two invocations of rank 0 at 50 MHz (20 ns a
// cycle): a forward one entered at cycle 1000 whose last record ends at
// 2000 (a 20 us span), and a backward one entered at 9000.
func invocationInputs(t *testing.T) []Input {
	t.Helper()
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	fwd := capturetest.New(24, 16, 16)
	fwd.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1500, mm, 1)
	fwd.Enter(abi.CoreTypeAIV, 1, 1000).Span(abi.CoreTypeAIV, 1, 1100, 2000, mm, 2)
	bwd := capturetest.New(24, 16, 16)
	bwd.Enter(abi.CoreTypeAIC, 0, 9000).Span(abi.CoreTypeAIC, 0, 9000, 9250, mm, 3)
	bwd.Enter(abi.CoreTypeAIC, 2, 9000).Span(abi.CoreTypeAIC, 2, 9100, 9300, mm, 4)
	step := int64(3)
	var inputs []Input
	for i, c := range []struct {
		name string
		b    *capturetest.Builder
		dir  string
	}{{"fwd.bin", fwd, "forward"}, {"bwd.bin", bwd, "backward"}} {
		d, err := mustDecode(c.name, c.b.Bytes(), capture.LayoutOptions{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		cfg := defaultConfig()
		cfg.Invocation = &Invocation{ID: int64(i), Step: &step, Direction: c.dir}
		inputs = append(inputs, Input{d, cfg})
	}
	return inputs
}

func TestInvocationsLaidOut(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteTrace(&out, invocationInputs(t), WriteOptions{}))
	f, err := parseTrace(out.Bytes())
	require.NoError(t, err, "%s", out.Bytes())
	require.NoError(t, checkPerfetto(out.Bytes()))

	type ev struct{ name, tid, ts, dur string }
	var meta []ev
	var xs []traceEvent
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
	// Forward from its anchor (cycle 1000); backward from its own anchor
	// (9000), shifted to 20 us span + 10 us gap = 30 us.
	require.Equal(t, []ev{
		{"0forward", "1000", "0", "10"},
		{"0forward", "2001", "2", "18"},
		{"1backward", "1000", "30", "5"},
		{"1backward", "1002", "32", "4"},
	}, got)

	m := f.MegaKernelCycleTrace
	require.Equal(t, json.Number("2"), m["invocationCount"])
	require.Equal(t, json.Number("4"), m["recordCount"])
	require.Len(t, m["ranks"], 2)
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
	ts := func(o WriteOptions, inputs []Input) []string {
		var out bytes.Buffer
		require.NoError(t, WriteTrace(&out, inputs, o))
		f, err := parseTrace(out.Bytes())
		require.NoError(t, err)
		var ts []string
		for _, e := range xEvents(f) {
			ts = append(ts, e.Ts.String())
		}
		return ts
	}
	zero := 0.0
	require.Equal(t, []string{"0", "2", "20", "22"}, ts(WriteOptions{InvocationGapUs: &zero}, invocationInputs(t)))
	// Given in the other order: ids still decide the layout.
	in := invocationInputs(t)
	require.Equal(t, []string{"30", "32", "0", "2"}, ts(WriteOptions{}, []Input{in[1], in[0]}))
	// System-counter time: cycle c is c × 0.02 us.
	require.Equal(t, []string{"20", "22", "180", "182"}, ts(WriteOptions{AbsoluteTime: true}, invocationInputs(t)))
	neg := -1.0
	require.ErrorContains(t, WriteTrace(&bytes.Buffer{}, invocationInputs(t), WriteOptions{InvocationGapUs: &neg}), "must be >= 0")
}

func TestInvocationsRefused(t *testing.T) {
	in := invocationInputs(t)
	in[1].Config.Invocation.ID = 0
	require.EqualError(t, WriteTrace(&bytes.Buffer{}, in, WriteOptions{}), "fwd.bin and bwd.bin are both invocation 0 of rank 0")
	in = invocationInputs(t)
	in[1].Config.Invocation = nil
	require.EqualError(t, WriteTrace(&bytes.Buffer{}, in, WriteOptions{}), "fwd.bin and bwd.bin both have rank 0 (each capture needs its own pid)")
	in = invocationInputs(t)
	in[1].Config.Rank = 1
	in[0].Config.Invocation = nil
	require.EqualError(t, WriteTrace(&bytes.Buffer{}, in, WriteOptions{}), "1 of 2 captures are invocations: give every capture its invocation, or none")
	require.Error(t, CheckDirection("sideways"))
	require.NoError(t, CheckDirection("backward"))
}
