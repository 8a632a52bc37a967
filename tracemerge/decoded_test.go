package tracemerge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
)

// TestDecodedWindow merges what decode writes for a forward and a
// backward invocation: each internal event lands at its outer kernel's ts
// plus (start_cycle - the invocation's first start_cycle) × 20 ns, a
// figure computed here from the event's own cycle args.
func TestDecodedWindow(t *testing.T) {
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	var inputs []render.Input
	step := int64(11)
	for i, base := range []uint64{1_000_000, 7_777_777} {
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, base).Span(abi.CoreTypeAIC, 0, base+3, base+503, mm, 1).Span(abi.CoreTypeAIC, 0, base+600, base+617, mm, 2)
		b.Enter(abi.CoreTypeAIV, 5, base+1).Span(abi.CoreTypeAIV, 5, base+40, base+941, mm, 3)
		c, err := capture.FromBytes(fmt.Sprintf("inv%d.bin", i), b.Bytes())
		require.NoError(t, err)
		d, err := decode.Decode(c, capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		inputs = append(inputs, render.Input{Decoded: d, Config: render.Config{
			Rank: 1, DeviceID: 6, SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "HyperMegaMoe",
			Invocation: &render.Invocation{ID: int64(i), Step: &step, Direction: []string{"forward", "backward"}[i]},
		}})
	}
	var mkText bytes.Buffer
	require.NoError(t, chromejson.Write(&mkText, inputs, render.WriteOptions{}))
	mk := writeFile(t, "mk.json", mkText.String())
	fw := writeFile(t, "fw.json", `{"traceEvents":[
{"ph":"X","cat":"kernel","name":"aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe","pid":6,"tid":3,"ts":"1788773332531494.453","dur":"30.5"},
{"ph":"X","cat":"kernel","name":"aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe","pid":6,"tid":3,"ts":"1788773332538000.001","dur":"30.5"}]}`)
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1})
	require.NoError(t, err)
	outer := []string{"1788773332531494.453", "1788773332538000.001"}
	first := []int64{1_000_003, 7_777_780}
	got := m.internal()
	require.Len(t, got, 6, "len(got)")
	for _, e := range got {
		args := e["args"].(map[string]any)
		inv, _ := args["invocation_id"].(json.Number).Int64()
		start, _ := args["start_cycle"].(json.Number).Int64()
		want := new(big.Rat).Add(rat(t, outer[inv]), big.NewRat((start-first[inv])*20, 1000))
		require.Equalf(t, want.Cmp(rat(t, e["ts"])), 0, "%v: ts %v, want %s: want.Cmp(rat(t, e[\"ts\"]))", e["name"], e["ts"], want.FloatString(3))
		require.Equal(t, json.Number("6"), args["cycle_trace_device_id"], "args[\"cycle_trace_device_id\"]")
		require.Equal(t, json.Number("1"), args["cycle_trace_rank"], "args[\"cycle_trace_rank\"]")
		require.Equal(t, ([]string{"forward", "backward"}[inv]), args["direction"], "args[\"direction\"]")
		require.Equal(t, json.Number("6"), e["pid"], "e[\"pid\"]")
	}
	names, _ := m.threads("6")
	require.Equal(t, map[string]string{"4": "HyperMegaMoe/AIC/0", "5": "HyperMegaMoe/AIV/5"}, names, "names")
	al := m.res["alignments"].([]any)
	require.Equal(t, "backward", al[1].(map[string]any)["direction"], "al[1].(map[string]any)[\"direction\"]")
	require.Equal(t, json.Number("11"), al[1].(map[string]any)["step"], "al[1].(map[string]any)[\"step\"]")
	// (base+941) - (base+3) = 938 cycles × 20 ns
	require.Equal(t, json.Number("18.76"), al[0].(map[string]any)["internalSpanUs"], "al[0].(map[string]any)[\"internalSpanUs\"]")
}
