package tracemerge

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/require"
)

// mkEvent is one internal event of a hand-written MegaKernel trace.
type mkEvent struct {
	name     string
	pid, tid int
	ts, dur  string // decimal text as written
	inv      int    // args.invocation_id; -1: no such arg
}

// writeMK writes a MegaKernel trace shaped like decode's output: metadata
// events, X events, then megaKernelCycleTrace (meta) and metadata.
func writeMK(t *testing.T, events []mkEvent, meta string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"traceEvents":[` + "\n")
	b.WriteString(`{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"K rank 0 device 0"}}`)
	seen := map[[2]int]bool{}
	for _, e := range events {
		if k := [2]int{e.pid, e.tid}; !seen[k] {
			seen[k] = true
			core := "AIC"
			if e.tid >= 2000 {
				core = "AIV"
			}
			fmt.Fprintf(&b, ",\n"+`{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":"%s/%d"}}`, e.pid, e.tid, core, e.tid%1000)
		}
	}
	for _, e := range events {
		inv := ""
		if e.inv >= 0 {
			inv = fmt.Sprintf(`,"invocation_id":%d`, e.inv)
		}
		fmt.Fprintf(&b, ",\n"+`{"name":"%s","cat":"MegaKernelInternal","ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"rank":%d,"device_id":%d%s}}`,
			e.name, e.pid, e.tid, e.ts, e.dur, e.pid, e.pid, inv)
	}
	b.WriteString("\n],\n\"megaKernelCycleTrace\":" + meta + ",\n\"metadata\":" + meta + "}\n")
	p := filepath.Join(t.TempDir(), "mk.json")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

func oneRankMeta(kernel string) string {
	return `{"schemaVersion":1,"rank":0,"deviceId":0,"kernelName":"` + kernel + `","recordCount":3}`
}

// simpleMK is three events on two cores of rank 0, span 10.5 us from
// ts 2.25.
var simpleMK = []mkEvent{
	{"A", 0, 1000, "2.25", "4", -1},
	{"B", 0, 2003, "3.5", "1.125", -1},
	{"C", 0, 1000, "7", "5.75", -1},
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

type merged struct {
	raw    []byte
	top    map[string]json.RawMessage
	events []map[string]any
	res    map[string]any
}

func runMerge(t *testing.T, o Options) (*merged, error) {
	t.Helper()
	if o.Rank == 0 && !strings.Contains(t.Name(), "Rank") {
		o.Rank = -1
	}
	var buf bytes.Buffer
	_, err := Merge(&buf, o)
	if err != nil {
		return nil, err
	}
	m := &merged{raw: buf.Bytes()}
	require.Truef(t, json.Valid(m.raw), "output is not JSON:\n%s: json.Valid(m.raw) = false, want true", m.raw)
	require.NoError(t, json.Unmarshal(m.raw, &m.top))
	d := json.NewDecoder(bytes.NewReader(m.top["traceEvents"]))
	d.UseNumber()
	require.NoError(t, d.Decode(&m.events))
	d = json.NewDecoder(bytes.NewReader(m.top["megaKernelTraceMerge"]))
	d.UseNumber()
	require.NoError(t, d.Decode(&m.res))
	return m, nil
}

// internal returns the merged MegaKernel events, in output order.
func (m *merged) internal() []map[string]any {
	var out []map[string]any
	for _, e := range m.events {
		if e["cat"] == "MegaKernelInternal" {
			out = append(out, e)
		}
	}
	return out
}

// threadNames maps tid -> thread_name of pid.
func (m *merged) threads(pid string) (names map[string]string, sort map[string]string) {
	names, sort = map[string]string{}, map[string]string{}
	for _, e := range m.events {
		if e["ph"] != "M" || fmt.Sprint(e["pid"]) != pid {
			continue
		}
		args, _ := e["args"].(map[string]any)
		tid := fmt.Sprint(e["tid"])
		switch e["name"] {
		case "thread_name":
			names[tid] = fmt.Sprint(args["name"])
		case "thread_sort_index":
			sort[tid] = fmt.Sprint(args["sort_index"])
		}
	}
	return names, sort
}

// rat parses decimal text exactly (the test's own arithmetic, with
// math/big.Rat rather than the package's decimal type).
func rat(t *testing.T, v any) *big.Rat {
	t.Helper()
	s := fmt.Sprint(v)
	r, ok := new(big.Rat).SetString(s)
	require.Truef(t, ok, "not a decimal: %q: ok = false, want true", s)
	return r
}

// checkPlacement checks that every event of mk is in the output, in
// order, its ts = outerTs + (ts - first), its dur text unchanged, on pid
// outerPid, with the parent kernel and rank args.
func checkPlacement(t *testing.T, m *merged, src []mkEvent, outerTs, outerPid, parent string, quoted bool) {
	t.Helper()
	got := m.internal()
	require.GreaterOrEqual(t, len(got), len(src), "len(got)")
	first := rat(t, src[0].ts)
	for _, e := range src {
		if r := rat(t, e.ts); r.Cmp(first) < 0 {
			first = r
		}
	}
	names, _ := m.threads(outerPid)
	for i, e := range src {
		g := got[i]
		require.Equalf(t, e.name, g["name"], "event %d: g[\"name\"]", i)
		want := new(big.Rat).Add(rat(t, outerTs), new(big.Rat).Sub(rat(t, e.ts), first))
		require.Equalf(t, want.Cmp(rat(t, g["ts"])), 0, "event %d ts %v, want %s: want.Cmp(rat(t, g[\"ts\"]))", i, g["ts"], want.FloatString(6))
		require.Equalf(t, e.dur, fmt.Sprint(g["dur"]), "event %d dur: fmt.Sprint(g[\"dur\"])", i)
		if quoted {
			_, isStr := g["ts"].(string)
			require.True(t, isStr, "ts written as a string like the outer kernel's: isStr = false, want true")
		}
		require.Equal(t, outerPid, fmt.Sprint(g["pid"]), "fmt.Sprint(g[\"pid\"])")
		args := g["args"].(map[string]any)
		require.Equal(t, parent, args["parent_kernel"], "args[\"parent_kernel\"]")
		require.Equal(t, json.Number(fmt.Sprint(e.pid)), args["cycle_trace_rank"], "args[\"cycle_trace_rank\"]")
		_, ok := args["cycle_trace_device_id"]
		require.Truef(t, ok, "args has no key %v", "cycle_trace_device_id")
		name := names[fmt.Sprint(g["tid"])]
		require.Truef(t, strings.HasSuffix(name, fmt.Sprintf("/%d", e.tid%1000)), "thread %q of event %d: strings.HasSuffix(name, fmt.Sprintf(\"/%%d\", e.tid%%1000)) = false, want true", name, i)
	}
}

const kinetoTrace = `{
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "Ascend910B2"}],
  "traceEvents": [
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
  {"ph": "M", "name": "thread_sort_index", "pid": 0, "tid": 7, "args": {"sort_index": 70}},
  {"ph": "X", "cat": "cpu_op", "name": "aclnnHyperMegaMoe", "pid": 41235, "tid": 41235, "ts": 1000.5, "dur": 30},
  {"ph": "X", "cat": "kernel", "name": "RmsNorm_1", "pid": 0, "tid": 7, "ts": 1010.25, "dur": 4.5},
  {"ph": "X", "cat": "kernel", "name": "HyperMegaMoe_abc123", "pid": 0, "tid": 7, "ts": 1020.125, "dur": 12},
  {"ph": "X", "cat": "kernel", "name": "Add_2", "pid": 0, "tid": 7, "ts": 1040, "dur": 1.5}
  ],
  "displayTimeUnit": "ms",
  "traceName": "step"
}`

func TestKinetoObject(t *testing.T) {
	fw := writeFile(t, "kineto.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "1020.125", "0", "HyperMegaMoe_abc123", false)
	require.Equal(t, len(simpleMK), len(m.internal()), "len(m.internal())")
	require.Equal(t, json.Number("0"), m.internal()[0]["args"].(map[string]any)["cycle_trace_device_id"])

	// Every other top-level key, as it was.
	var in map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(kinetoTrace), &in))
	for k, v := range in {
		if k != "traceEvents" {
			require.Emptyf(t, golden.JSONDiff(string(m.top[k]), string(v)), "%s", k)
		}
	}
	// The framework's events first, byte for byte.
	require.Contains(t, string(m.raw), `{"ph": "X", "cat": "kernel", "name": "HyperMegaMoe_abc123", "pid": 0, "tid": 7, "ts": 1020.125, "dur": 12}`, "string(m.raw)")
	var inEvents []json.RawMessage
	require.NoError(t, json.Unmarshal(in["traceEvents"], &inEvents))
	for i, e := range inEvents {
		got, _ := json.Marshal(m.events[i])
		d := golden.JSONDiff(string(got), string(e))
		require.Emptyf(t, d, "framework event %d", i)
	}

	// New threads: tids above every framework tid (41235), sorted after
	// stream 7 (sort index 70), named kernel/core.
	names, sort := m.threads("0")
	require.Equal(t, map[string]string{"41236": "HyperMegaMoe/AIC/0", "41237": "HyperMegaMoe/AIV/3", "7": "stream 7"}, names, "names")
	require.Equal(t, map[string]string{"41236": "71", "41237": "72", "7": "70"}, sort, "sort")

	require.Equal(t, map[string]any{
		"schemaVersion": json.Number("1"), "megaKernelTrace": mk, "rank": json.Number("0"), "deviceId": json.Number("0"),
		"kernelPattern": "(?i)(?:Hyper[_]?Mega[_]?Moe)", "kernelIndex": json.Number("0"), "outerPid": nil,
		"mergedInvocationCount": json.Number("1"), "mergedEventCount": json.Number("3"), "mergedFlowEventCount": json.Number("0"),
		"usedFallbackKernelSelection": false, "allowHostWrapperAlignment": false,
		"alignments": []any{map[string]any{
			"invocationId": json.Number("0"), "step": nil, "direction": nil,
			"kernelName": "HyperMegaMoe", "rank": json.Number("0"), "deviceId": json.Number("0"),
			"outerKernelName": "HyperMegaMoe_abc123",
			"outerKernelPid":  json.Number("0"), "outerKernelTid": json.Number("7"),
			"outerKernelTs": json.Number("1020.125"), "outerKernelDur": json.Number("12"),
			// device 6 + cat kernel 3; no score from the name or args
			"outerKernelScore":    json.Number("9"),
			"outerKernelIsDevice": true, "internalSpanUs": json.Number("10.5"), "exceedsOuterKernelUs": json.Number("0"),
			"internalEventCount": json.Number("3"),
		}},
		"exceedsOuterKernelUs": json.Number("0"),
		"warnings":             []any{},
	}, m.res, "m.res")
}

func TestBareArrayGzip(t *testing.T) {
	// Chrome's JSON Array Format, gzip-compressed, without its closing
	// bracket (which the format allows).
	text := `[{"ph":"X","cat":"kernel","name":"aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe","pid":3,"tid":"stream 2","ts":500,"dur":9.75},
{"ph":"X","cat":"kernel","name":"Other","pid":3,"tid":12,"ts":600,"dur":10.5},`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	fw := writeFile(t, "trace.json", gz.String()) // told by magic bytes, not name
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "500", "3", "aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe", false)
	names, _ := m.threads("3")
	// above the numeric tid 12
	_, ok := names["13"]
	require.Truef(t, ok, "names has no key %v", "13")
	require.Equal(t, json.Number("0.75"), m.res["alignments"].([]any)[0].(map[string]any)["exceedsOuterKernelUs"])
	require.Equal(t, json.Number("0.75"), m.res["exceedsOuterKernelUs"], "m.res[\"exceedsOuterKernelUs\"]")
	w, _ := m.res["warnings"].([]any)
	require.Lenf(t, w, 1, "warnings = %v, want one", m.res["warnings"])
	s, _ := w[0].(string)
	require.Containsf(t, s, "0.75 us past", "warning %q, want one containing", w[0])
}

func TestCANNStringTimes(t *testing.T) {
	fw := writeFile(t, "msprof.json", `[
{"name":"thread_sort_index","ph":"M","pid":2080,"tid":5,"args":{"sort_index":3}},
{"name":"HyperMegaMoe_0","pid":2080,"tid":5,"ts":"1788773332531494.453","dur":"2040.125","ph":"X","cat":null,"args":{"Task Type":"MIX_AIC","Stream Id":5}},
{"name":"aclnnHyperMegaMoe","pid":2000,"tid":77,"ts":"1788773332531400.1","dur":"80.5","ph":"X","args":{"Task Type":"AI_CPU"}}
]`)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "1788773332531494.453", "2080", "HyperMegaMoe_0", true)
	// Exactly: 1788773332531494.453 + (7 - 2.25).
	require.Equal(t, "1788773332531499.203", m.internal()[2]["ts"], "m.internal()[2][\"ts\"]")
	al := m.res["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, true, al["outerKernelIsDevice"], "al[\"outerKernelIsDevice\"]")
	require.Equal(t, json.Number("1788773332531494.453"), al["outerKernelTs"], "al[\"outerKernelTs\"]")
	_, sort := m.threads("2080")
	require.Equal(t, "4", sort["78"], "sort[\"78\"]")
}

const hostOnly = `{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aclnnHyperMegaMoe","pid":1,"tid":1,"ts":100,"dur":50},
{"ph":"X","cat":"user_annotation","name":"HyperMegaMoe layer","pid":1,"tid":1,"ts":90,"dur":80}]}`

func TestHostWrapperOnly(t *testing.T) {
	fw := writeFile(t, "host.json", hostOnly)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	var se *SelectionError
	require.ErrorAsf(t, err, &se, "error %v (%T), want one that is a %T", err, err, se)
	require.Contains(t, err.Error(), `are host-only events ["HyperMegaMoe layer"]`, "err.Error()")
	require.Contains(t, err.Error(), "--allow-host-wrapper", "err.Error()")

	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, AllowHostWrapper: true})
	require.NoError(t, err)
	// In time order: the user_annotation at 90 comes first.
	checkPlacement(t, m, simpleMK, "90", "1", "HyperMegaMoe layer", false)
	al := m.res["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, false, al["outerKernelIsDevice"], "al[\"outerKernelIsDevice\"]")
	require.Equal(t, false, m.res["usedFallbackKernelSelection"], "m.res[\"usedFallbackKernelSelection\"]")
	require.Equal(t, true, m.res["allowHostWrapperAlignment"], "m.res[\"allowHostWrapperAlignment\"]")
	w := m.res["warnings"].([]any)
	require.Len(t, w, 1, "len(w)")
	s, _ := w[0].(string)
	require.Containsf(t, s, `placed under host-only outer event(s) ["HyperMegaMoe layer"]`, "warning %q, want one containing", w[0])

	// An explicit pattern matching only host wrappers says so.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelPattern: "aclnn", KernelPatternSet: true})
	want := `are host-only events ["aclnnHyperMegaMoe"]`
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
}

func TestNoNameMatchFallsBack(t *testing.T) {
	fw := writeFile(t, "fw.json", `{"traceEvents":[
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":1,"ts":10,"dur":3},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":1,"ts":20,"dur":11},
{"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":1,"ts":40,"dur":30},
{"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":1,"ts":80,"dur":0}]}`)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	// Span 10.5: k2 (11) is closest.
	checkPlacement(t, m, simpleMK, "20", "0", "k2", false)
	require.Equal(t, true, m.res["usedFallbackKernelSelection"], "m.res[\"usedFallbackKernelSelection\"]")
	s, _ := m.res["warnings"].([]any)[0].(string)
	require.Containsf(t, s, "contiguous run of device kernels by duration similarity", "warning %q, want one containing", m.res["warnings"].([]any)[0])

	// --kernel-index skips device kernels in the fallback too: from k2
	// on, k3 (30) is the closer of k3 alone (k4 has dur 0).
	m, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelIndex: 2})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "40", "0", "k3", false)

	// An explicit pattern never falls back.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelPattern: "Mega", KernelPatternSet: true})
	want := "--kernel-pattern Mega matches no outer-kernel candidate"
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
}

func TestForwardBackward(t *testing.T) {
	fw := writeFile(t, "fb.json", `{"traceEvents":[
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_fwd","pid":0,"tid":7,"ts":100,"dur":20},
{"ph":"X","cat":"kernel","name":"MatMul","pid":0,"tid":7,"ts":130,"dur":20},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_bwd","pid":0,"tid":8,"ts":300.5,"dur":30}]}`)
	// Two invocations laid out one after the other (as decode does),
	// the second 50 us after the first.
	ev := []mkEvent{
		{"F1", 0, 1000, "0", "5", 0},
		{"F2", 0, 2001, "4.5", "10.25", 0},
		{"B1", 0, 1000, "50", "8", 1},
		{"B2", 0, 1001, "52.125", "20", 1},
	}
	meta := `{"schemaVersion":1,"recordCount":4,"invocationCount":2,"ranks":[{"schemaVersion":1,"rank":0,"deviceId":4,"kernelName":"HyperMegaMoe"}],
"invocations":[{"invocationId":0,"step":3,"direction":"forward","kernelName":"HyperMegaMoe","rank":0,"deviceId":4},
{"invocationId":1,"step":3,"direction":"backward","kernelName":"HyperMegaMoe","rank":0,"deviceId":4}]}`
	mk := writeMK(t, ev, meta)
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	got := m.internal()
	checkPlacement(t, m, ev[:2], "100", "0", "HyperMegaMoe_fwd", false)
	require.Equal(t, json.Number("300.5"), got[2]["ts"], "got[2][\"ts\"]")
	require.Equal(t, json.Number("302.625"), got[3]["ts"], "got[3][\"ts\"]")
	require.Equal(t, "HyperMegaMoe_bwd", got[3]["args"].(map[string]any)["parent_kernel"], "got[3][\"args\"].(map[string]any)[\"parent_kernel\"]")
	require.Equal(t, json.Number("4"), got[3]["args"].(map[string]any)["cycle_trace_device_id"], "got[3][\"args\"].(map[string]any)[\"cycle_trace_device_id\"]")
	// One thread per core, shared by both invocations.
	names, sort := m.threads("0")
	require.Equal(t, map[string]string{"9": "HyperMegaMoe/AIC/0", "10": "HyperMegaMoe/AIV/1", "11": "HyperMegaMoe/AIC/1"}, names, "names")
	require.Equal(t, map[string]string{"9": "8", "10": "9", "11": "10"}, sort, "sort")
	require.Equal(t, got[0]["tid"], got[2]["tid"], "got[2][\"tid\"]")
	al := m.res["alignments"].([]any)
	require.Len(t, al, 2, "len(al)")
	for i, want := range []map[string]any{
		{"invocationId": json.Number("0"), "step": json.Number("3"), "direction": "forward", "outerKernelName": "HyperMegaMoe_fwd",
			"outerKernelTid": json.Number("7"), "outerKernelTs": json.Number("100"), "outerKernelDur": json.Number("20"), "internalSpanUs": json.Number("14.75"), "exceedsOuterKernelUs": json.Number("0"), "internalEventCount": json.Number("2")},
		{"invocationId": json.Number("1"), "step": json.Number("3"), "direction": "backward", "outerKernelName": "HyperMegaMoe_bwd",
			"outerKernelTid": json.Number("8"), "outerKernelTs": json.Number("300.5"), "outerKernelDur": json.Number("30"), "internalSpanUs": json.Number("22.125"), "exceedsOuterKernelUs": json.Number("0"), "internalEventCount": json.Number("2")},
	} {
		a := al[i].(map[string]any)
		for k, v := range want {
			require.Equalf(t, v, a[k], "alignment %d %s: a[k]", i, k)
		}
		require.Equal(t, json.Number("0"), a["outerKernelPid"], "a[\"outerKernelPid\"]")
		require.Equal(t, true, a["outerKernelIsDevice"], "a[\"outerKernelIsDevice\"]")
	}
	require.Equal(t, json.Number("2"), m.res["mergedInvocationCount"], "m.res[\"mergedInvocationCount\"]")
	require.Equal(t, json.Number("4"), m.res["mergedEventCount"], "m.res[\"mergedEventCount\"]")
	require.Equal(t, json.Number("4"), m.res["deviceId"], "m.res[\"deviceId\"]")

	// --kernel-index 1 leaves one kernel for two invocations.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelIndex: 1})
	want := "2 invocation(s) from --kernel-index 1 need 3 of the events matching"
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
	require.ErrorContainsf(t, err, "has 2", "error %v, want one containing %q", err, "has 2")
}

func TestOuterPidAndRank(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	ev := []mkEvent{
		{"R0", 0, 1000, "1", "2", -1},
		{"R1", 1, 1000, "5", "3", -1},
	}
	meta := `{"schemaVersion":1,"ranks":[{"schemaVersion":1,"rank":0,"deviceId":0,"kernelName":"HyperMegaMoe"},{"schemaVersion":1,"rank":1,"deviceId":5,"kernelName":"HyperMegaMoe"}]}`
	mk := writeMK(t, ev, meta)
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: -1})
	want := "holds ranks 0, 1: merge one at a time with --rank R"
	require.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
	pid := "0"
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.NoError(t, err)
	checkPlacement(t, m, ev[1:], "1020.125", "0", "HyperMegaMoe_abc123", false)
	require.Equal(t, "0", m.res["outerPid"], "m.res[\"outerPid\"]")
	// --outer-pid filters the candidates, as upstream's outer_pid: on
	// pid 41235 only the host launch matches.
	pid = "41235"
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.ErrorContains(t, err, `are host-only events ["aclnnHyperMegaMoe"]`)
	pid = "5"
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.ErrorContains(t, err, "2 event(s) whose name matches are not candidates")
	require.ErrorContainsf(t, err, "2 with another pid than --outer-pid", "error %v, want one containing %q", err, "2 with another pid than --outer-pid")
	require.Equal(t, json.Number("5"), m.internal()[0]["args"].(map[string]any)["cycle_trace_device_id"])
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 4})
	require.ErrorContains(t, err, "--rank 4: the MegaKernel trace has events of ranks 0, 1 only")
}

func TestMergedTwice(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	again := writeFile(t, "m.json", string(m.raw))
	m2, err := runMerge(t, Options{Framework: again, MegaKernel: mk})
	require.NoError(t, err)
	require.Equal(t, 6, len(m2.internal()), "len(m2.internal())")
	require.Empty(t, golden.JSONDiff(string(mustJSON(m2.res["previousMerge"])), string(m.top["megaKernelTraceMerge"])), "previousMerge")
	// The second merge's threads collide with none of the first's.
	names, _ := m2.threads("0")
	require.Len(t, names, 5, "len(names)")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
