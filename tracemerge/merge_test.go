package tracemerge

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/megakernel/cycleabi/internal/jsonread"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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
	require.True(t, json.Valid(m.raw), "output is not JSON:\n%s", m.raw)
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
	require.True(t, ok, "not a decimal: %q", s)
	return r
}

// checkPlacement checks that every event of mk is in the output, in
// order, its ts = outerTs + (ts - first), its dur text unchanged, on pid
// outerPid, with the parent kernel and rank args.
func checkPlacement(t *testing.T, m *merged, src []mkEvent, outerTs, outerPid, parent string, quoted bool) {
	t.Helper()
	got := m.internal()
	require.GreaterOrEqual(t, len(got), len(src))
	first := rat(t, src[0].ts)
	for _, e := range src {
		if r := rat(t, e.ts); r.Cmp(first) < 0 {
			first = r
		}
	}
	names, _ := m.threads(outerPid)
	for i, e := range src {
		g := got[i]
		require.Equal(t, e.name, g["name"], "event %d", i)
		want := new(big.Rat).Add(rat(t, outerTs), new(big.Rat).Sub(rat(t, e.ts), first))
		require.Zero(t, want.Cmp(rat(t, g["ts"])), "event %d ts %v, want %s", i, g["ts"], want.FloatString(6))
		require.Equal(t, e.dur, fmt.Sprint(g["dur"]), "event %d dur", i)
		if quoted {
			_, isStr := g["ts"].(string)
			require.True(t, isStr, "ts written as a string like the outer kernel's")
		}
		require.Equal(t, outerPid, fmt.Sprint(g["pid"]))
		args := g["args"].(map[string]any)
		require.Equal(t, parent, args["parent_kernel"])
		require.Equal(t, json.Number(fmt.Sprint(e.pid)), args["cycle_trace_rank"])
		require.Contains(t, args, "cycle_trace_device_id")
		name := names[fmt.Sprint(g["tid"])]
		require.True(t, strings.HasSuffix(name, fmt.Sprintf("/%d", e.tid%1000)), "thread %q of event %d", name, i)
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
	require.Len(t, m.internal(), len(simpleMK))
	require.Equal(t, json.Number("0"), m.internal()[0]["args"].(map[string]any)["cycle_trace_device_id"])

	// Every other top-level key, as it was.
	var in map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(kinetoTrace), &in))
	for k, v := range in {
		if k != "traceEvents" {
			require.JSONEq(t, string(v), string(m.top[k]), k)
		}
	}
	// The framework's events first, byte for byte.
	require.Contains(t, string(m.raw), `{"ph": "X", "cat": "kernel", "name": "HyperMegaMoe_abc123", "pid": 0, "tid": 7, "ts": 1020.125, "dur": 12}`)
	var inEvents []json.RawMessage
	require.NoError(t, json.Unmarshal(in["traceEvents"], &inEvents))
	for i, e := range inEvents {
		got, _ := json.Marshal(m.events[i])
		require.JSONEq(t, string(e), string(got))
	}

	// New threads: tids above every framework tid (41235), sorted after
	// stream 7 (sort index 70), named kernel/core.
	names, sort := m.threads("0")
	require.Equal(t, map[string]string{"41236": "HyperMegaMoe/AIC/0", "41237": "HyperMegaMoe/AIV/3", "7": "stream 7"}, names)
	require.Equal(t, map[string]string{"41236": "71", "41237": "72", "7": "70"}, sort)

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
	}, m.res)
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
	require.Contains(t, names, "13") // above the numeric tid 12
	require.Equal(t, json.Number("0.75"), m.res["alignments"].([]any)[0].(map[string]any)["exceedsOuterKernelUs"])
	require.Equal(t, json.Number("0.75"), m.res["exceedsOuterKernelUs"])
	require.Len(t, m.res["warnings"], 1)
	require.Contains(t, m.res["warnings"].([]any)[0], "0.75 us past")
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
	require.Equal(t, "1788773332531499.203", m.internal()[2]["ts"])
	al := m.res["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, true, al["outerKernelIsDevice"])
	require.Equal(t, json.Number("1788773332531494.453"), al["outerKernelTs"])
	_, sort := m.threads("2080")
	require.Equal(t, "4", sort["78"])
}

const hostOnly = `{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aclnnHyperMegaMoe","pid":1,"tid":1,"ts":100,"dur":50},
{"ph":"X","cat":"user_annotation","name":"HyperMegaMoe layer","pid":1,"tid":1,"ts":90,"dur":80}]}`

func TestHostWrapperOnly(t *testing.T) {
	fw := writeFile(t, "host.json", hostOnly)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	var se *SelectionError
	require.ErrorAs(t, err, &se)
	require.Contains(t, err.Error(), `are host-only events ["HyperMegaMoe layer"]`)
	require.Contains(t, err.Error(), "--allow-host-wrapper")

	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, AllowHostWrapper: true})
	require.NoError(t, err)
	// In time order: the user_annotation at 90 comes first.
	checkPlacement(t, m, simpleMK, "90", "1", "HyperMegaMoe layer", false)
	al := m.res["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, false, al["outerKernelIsDevice"])
	require.Equal(t, false, m.res["usedFallbackKernelSelection"])
	require.Equal(t, true, m.res["allowHostWrapperAlignment"])
	w := m.res["warnings"].([]any)
	require.Len(t, w, 1)
	require.Contains(t, w[0], `placed under host-only outer event(s) ["HyperMegaMoe layer"]`)

	// An explicit pattern matching only host wrappers says so.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelPattern: "aclnn", KernelPatternSet: true})
	require.ErrorContains(t, err, `are host-only events ["aclnnHyperMegaMoe"]`)
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
	require.Equal(t, true, m.res["usedFallbackKernelSelection"])
	require.Contains(t, m.res["warnings"].([]any)[0], "contiguous run of device kernels by duration similarity")

	// --kernel-index skips device kernels in the fallback too: from k2
	// on, k3 (30) is the closer of k3 alone (k4 has dur 0).
	m, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelIndex: 2})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "40", "0", "k3", false)

	// An explicit pattern never falls back.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelPattern: "Mega", KernelPatternSet: true})
	require.ErrorContains(t, err, "--kernel-pattern Mega matches no outer-kernel candidate")
}

func TestBadOptions(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{KernelPattern: "", KernelPatternSet: true}, "--kernel-pattern is empty"},
		{Options{KernelPattern: "(", KernelPatternSet: true}, "--kernel-pattern: error parsing regexp"},
		{Options{KernelIndex: -1}, "--kernel-index must be >= 0"},
		{Options{KernelIndex: math.MaxInt}, "no trace has that many outer kernels"},
		{Options{KernelIndex: 1}, "too few outer kernels: 1 invocation(s) from --kernel-index 1 need 2 of the events matching (?i)(?:Hyper[_]?Mega[_]?Moe) with the best score (9), but " + fw + " has 1"},
	} {
		c.o.Framework, c.o.MegaKernel = fw, mk
		_, err := runMerge(t, c.o)
		require.ErrorContains(t, err, c.want)
	}
}

func TestTooFewKernels(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	ev := []mkEvent{
		{"A", 0, 1000, "1", "2", 0},
		{"A", 0, 1000, "10", "2", 1},
		{"A", 0, 1000, "20", "2", 2},
	}
	mk := writeMK(t, ev, oneRankMeta("HyperMegaMoe"))
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.EqualError(t, err, "too few outer kernels: 3 invocation(s) from --kernel-index 0 need 3 of the events matching (?i)(?:Hyper[_]?Mega[_]?Moe) with the best score (9), but "+fw+" has 1")
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
	require.Equal(t, json.Number("300.5"), got[2]["ts"])
	require.Equal(t, json.Number("302.625"), got[3]["ts"])
	require.Equal(t, "HyperMegaMoe_bwd", got[3]["args"].(map[string]any)["parent_kernel"])
	require.Equal(t, json.Number("4"), got[3]["args"].(map[string]any)["cycle_trace_device_id"])
	// One thread per core, shared by both invocations.
	names, sort := m.threads("0")
	require.Equal(t, map[string]string{"9": "HyperMegaMoe/AIC/0", "10": "HyperMegaMoe/AIV/1", "11": "HyperMegaMoe/AIC/1"}, names)
	require.Equal(t, map[string]string{"9": "8", "10": "9", "11": "10"}, sort)
	require.Equal(t, got[0]["tid"], got[2]["tid"])
	al := m.res["alignments"].([]any)
	require.Len(t, al, 2)
	for i, want := range []map[string]any{
		{"invocationId": json.Number("0"), "step": json.Number("3"), "direction": "forward", "outerKernelName": "HyperMegaMoe_fwd",
			"outerKernelTid": json.Number("7"), "outerKernelTs": json.Number("100"), "outerKernelDur": json.Number("20"), "internalSpanUs": json.Number("14.75"), "exceedsOuterKernelUs": json.Number("0"), "internalEventCount": json.Number("2")},
		{"invocationId": json.Number("1"), "step": json.Number("3"), "direction": "backward", "outerKernelName": "HyperMegaMoe_bwd",
			"outerKernelTid": json.Number("8"), "outerKernelTs": json.Number("300.5"), "outerKernelDur": json.Number("30"), "internalSpanUs": json.Number("22.125"), "exceedsOuterKernelUs": json.Number("0"), "internalEventCount": json.Number("2")},
	} {
		a := al[i].(map[string]any)
		for k, v := range want {
			require.Equal(t, v, a[k], "alignment %d %s", i, k)
		}
		require.Equal(t, json.Number("0"), a["outerKernelPid"])
		require.Equal(t, true, a["outerKernelIsDevice"])
	}
	require.Equal(t, json.Number("2"), m.res["mergedInvocationCount"])
	require.Equal(t, json.Number("4"), m.res["mergedEventCount"])
	require.Equal(t, json.Number("4"), m.res["deviceId"])

	// --kernel-index 1 leaves one kernel for two invocations.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelIndex: 1})
	require.ErrorContains(t, err, "2 invocation(s) from --kernel-index 1 need 3 of the events matching")
	require.ErrorContains(t, err, "has 2")
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
	require.ErrorContains(t, err, "holds ranks 0, 1: merge one at a time with --rank R")
	pid := "0"
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.NoError(t, err)
	checkPlacement(t, m, ev[1:], "1020.125", "0", "HyperMegaMoe_abc123", false)
	require.Equal(t, "0", m.res["outerPid"])
	// --outer-pid filters the candidates, as upstream's outer_pid: on
	// pid 41235 only the host launch matches.
	pid = "41235"
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.ErrorContains(t, err, `are host-only events ["aclnnHyperMegaMoe"]`)
	pid = "5"
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1, OuterPID: &pid})
	require.ErrorContains(t, err, "2 event(s) whose name matches are not candidates")
	require.ErrorContains(t, err, "2 with another pid than --outer-pid")
	require.Equal(t, json.Number("5"), m.internal()[0]["args"].(map[string]any)["cycle_trace_device_id"])
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 4})
	require.ErrorContains(t, err, "--rank 4: the MegaKernel trace has events of ranks 0, 1 only")
}

func TestRefusals(t *testing.T) {
	good := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	for name, c := range map[string]struct {
		fw, mk string
		want   string
	}{
		"schema version": {good, writeMK(t, simpleMK, `{"schemaVersion":2,"rank":0}`), "megaKernelCycleTrace.schemaVersion 2 is not one this build reads ([1])"},
		"no schema":      {good, writeMK(t, simpleMK, `{"rank":0}`), "megaKernelCycleTrace has no schemaVersion"},
		"ts past 2^53": {writeFile(t, "n.json", `{"traceEvents":[`+"\n"+`{"ph":"X","cat":"kernel","name":"HyperMegaMoe","pid":0,"tid":0,"ts":1e300,"dur":1}]}`), mk,
			`n.json:2: byte 17: outer kernel "HyperMegaMoe" at ts 1e300: the invocation's events would end at 1e+300 us, past 2^53 us`},
		"MK NaN":      {good, writeMK(t, []mkEvent{{"A", 0, 1000, "NaN", "1", -1}}, oneRankMeta("K")), "ts NaN is not finite"},
		"syntax":      {writeFile(t, "s.json", `{"traceEvents":[{"ph":"X",}]}`), mk, `s.json:1: byte 26: expected an object key, found '}'`},
		"not a trace": {writeFile(t, "s.json", `{"events":[]}`), mk, "no traceEvents array"},
		"trailing":    {writeFile(t, "s.json", kinetoTrace+` x`), mk, "data after the trace object"},
		"bad literal": {writeFile(t, "s.json", `[{"a":tru}]`), mk, `"tru" is not a JSON value`},
	} {
		_, err := runMerge(t, Options{Framework: c.fw, MegaKernel: c.mk})
		var ie *InputError
		require.ErrorAs(t, err, &ie, name)
		require.ErrorContains(t, err, c.want, name)
	}
}

// TestNotCandidates: a matching event whose ts or dur upstream's float()
// refuses, or that is not finite, negative or zero, is not a candidate
// (upstream skips it); when nothing is left, the error counts them.
func TestNotCandidates(t *testing.T) {
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	fw := writeFile(t, "n.json", `[
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_1","pid":0,"tid":0,"ts":null,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_2","pid":0,"tid":0,"ts":true,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_3","pid":0,"tid":0,"ts":"12abc","dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_4","pid":0,"tid":0,"ts":NaN,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_5","pid":0,"tid":0,"ts":"1","dur":"-inf"},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_6","pid":0,"tid":0,"ts":1,"dur":1e999},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_7","pid":0,"tid":0,"ts":-1,"dur":1},
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_8","pid":0,"tid":0,"ts":1,"dur":0},
{"ph":"B","cat":"kernel","name":"HyperMegaMoe_9","pid":0,"tid":0,"ts":1}]`)
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	var se *SelectionError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, err, `no candidate in `+fw+` matches (?i)(?:Hyper[_]?Mega[_]?Moe) (9 event(s) whose name matches are not candidates, which are complete events with a numeric finite ts >= 0 and dur > 0: 3 with ts not a number (null, a boolean, text like "12abc"), 1 with ts not finite, 1 with ts below 0, 2 with dur not finite, 1 with dur not above 0, 1 with ph not X), and the fallback has 0 device kernel(s)`)

	// Strings as Python's float() reads them are candidates.
	fw = writeFile(t, "s.json", `[{"ph":"X","cat":"kernel","name":"HyperMegaMoe_1","pid":0,"tid":0,"ts":" 1_000.5 ","dur":"+2e1"}]`)
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	checkPlacement(t, m, simpleMK, "1000.5", "0", "HyperMegaMoe_1", true)
}

func TestBrokenGzip(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(kinetoTrace))
	zw.Close()
	fw := writeFile(t, "k.json.gz", gz.String()[:gz.Len()-12])
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))})
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	require.ErrorContains(t, err, "reading the gzip stream: unexpected EOF")
}

func TestMergedTwice(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	again := writeFile(t, "m.json", string(m.raw))
	m2, err := runMerge(t, Options{Framework: again, MegaKernel: mk})
	require.NoError(t, err)
	require.Len(t, m2.internal(), 6)
	require.JSONEq(t, string(m.top["megaKernelTraceMerge"]), string(mustJSON(m2.res["previousMerge"])))
	// The second merge's threads collide with none of the first's.
	names, _ := m2.threads("0")
	require.Len(t, names, 5)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestInvalidUTF8Replaced: bytes that are not UTF-8, in a framework
// event, in a long top-level value (cut by the copy's 64 KiB chunks) and in
// a MegaKernel event, come out as U+FFFD, as decode's JSON trace and
// encoding/json write them.
func TestInvalidUTF8Replaced(t *testing.T) {
	long := strings.Repeat("é", jsonread.FlushAt/2-1) + "\xff" + strings.Repeat("é", jsonread.FlushAt) // é is 2 bytes: some cut lands inside one
	fw := writeFile(t, "fw.json", `{"note":"`+long+`","traceEvents":[
{"ph":"X","cat":"kernel","name":"HyperMegaMoe_`+"\xc3"+`","pid":0,"tid":7,"ts":10,"dur":20,"args":{"a":"`+"\x80"+`b"}}]}`)
	ev := []mkEvent{{"A\xfe", 0, 1000, "1", "2", -1}}
	mk := writeMK(t, ev, oneRankMeta("HyperMegaMoe"))
	var buf bytes.Buffer
	_, err := Merge(&buf, Options{Framework: fw, MegaKernel: mk, Rank: -1})
	require.NoError(t, err)
	out := buf.String()
	require.True(t, utf8.ValidString(out), "output is valid UTF-8")
	require.Contains(t, out, `"note":"`+strings.Repeat("é", jsonread.FlushAt/2-1)+"\uFFFD"+strings.Repeat("é", jsonread.FlushAt)+`"`)
	require.Contains(t, out, `"name":"HyperMegaMoe_`+"\uFFFD"+`"`)
	require.Contains(t, out, `"args":{"a":"`+"\uFFFD"+`b"}`)
	require.Contains(t, out, `"name":"A`+"\uFFFD"+`"`)
	require.Contains(t, out, `"parent_kernel":"HyperMegaMoe_`+"\uFFFD"+`"`)
}

// TestNotJSONNamed: a file given where a JSON trace belongs is named for
// what it is.
func TestNotJSONNamed(t *testing.T) {
	fw := writeFile(t, "k.json", kinetoTrace)
	mk := writeMK(t, simpleMK, oneRankMeta("HyperMegaMoe"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("\x93NUMPY\x01\x00"))
	zw.Close()
	for name, c := range map[string]struct {
		data, want string
		asMK       bool
	}{
		"capture":   {"\x00\x10\x00\x00\x00\x00\x00\x00\x9f\x00\x00\x00", "this is binary data (a raw capture? cycleabi decode turns it into a trace), not a MegaKernel trace", true},
		"capture [": {"[\x10\x00\x00\x00\x00\x00\x00\x9f\x00\x00\x00", "this is binary data (a raw capture?", false},
		"npy":       {"\x93NUMPY\x01\x00v\x00{'descr'", "this is a NumPy .npy file", false},
		"npy.gz":    {gz.String(), "this is gzip holding a NumPy .npy file", false},
		"pftrace":   {"\x0a\x1c\x08\x01\x12\x18", "this is a Perfetto protobuf trace (.pftrace; merge reads JSON traces: decode with --format json)", true},
		"png":       {"\x89PNG\r\n\x1a\n\x00\x00", "this is a PNG image, not a framework trace (a Chrome JSON trace: torch profiler / Kineto, or CANN msprof's trace.json)", false},
		"zip":       {"PK\x03\x04\x14\x00", "this is a zip archive (torch.save?", false},
		"empty":     {"", "this is an empty file", false},
		"yaml":      {"tasks:\n  - id: 0\n", `this is text that is not JSON (it starts "tasks:")`, false},
		"html":      {"<!doctype html>", "this is HTML or XML", false},
		"bad gzip":  {"\x1f\x8b\x00", "gzip data that does not open", false},
	} {
		p := writeFile(t, "x", c.data)
		o := Options{Framework: p, MegaKernel: mk}
		if c.asMK {
			o = Options{Framework: fw, MegaKernel: p}
		}
		_, err := runMerge(t, o)
		var ie *InputError
		require.ErrorAs(t, err, &ie, name)
		require.ErrorContains(t, err, p+": "+c.want, name)
	}
}

// TestUTF8WriterSplits: however the bytes are cut into writes, the
// output is the input with each invalid byte as U+FFFD.
func TestUTF8WriterSplits(t *testing.T) {
	in := "a\xffé€\xe2\x82😀\xf0\x9f" // invalid, 2, 3, a cut 3, 4, a cut 4 at the end
	want := "a\uFFFDé€\uFFFD\uFFFD😀\uFFFD\uFFFD"
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var out bytes.Buffer
			u := &utf8Writer{w: &out}
			for _, part := range []string{in[:i], in[i:j], in[j:]} {
				_, err := u.Write([]byte(part))
				require.NoError(t, err)
			}
			require.NoError(t, u.flush())
			require.Equal(t, want, out.String(), "cuts at %d and %d", i, j)
		}
	}
}

// TestMetadataErrorPlaced: a megaKernelCycleTrace of the wrong shape is
// named with the line and byte where the object starts.
func TestMetadataErrorPlaced(t *testing.T) {
	fw := writeFile(t, "fw.json", `{"traceEvents":[]}`)
	text := "{\"traceEvents\":[],\n \"megaKernelCycleTrace\": {\"schemaVersion\": \"one\"}}"
	mk := writeFile(t, "mk.json", text)
	_, err := Merge(&bytes.Buffer{}, Options{Framework: fw, MegaKernel: mk, Rank: -1})
	want := mk + fmt.Sprintf(":2: byte %d: megaKernelCycleTrace", strings.Index(text, `{"schemaVersion"`)) + ": json: cannot unmarshal string into Go struct field mkMeta.schemaVersion of type int"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}
