package tracemerge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file re-state, case by case, upstream's unit tests of
// its merger (hyper-parallel tests/ut/core/multicore/test_trace_merger.py
// at e6f71af7): the same inputs, written out here as JSON, and the same
// facts asserted of merge's output. Error wording is cycleabi's own; the
// error must happen where upstream raises.

// upOuter is upstream's _outer_event: a framework event, a device kernel
// (cat "kernel") or a host op (cat "cpu_op"), pid 7 and tid 3 unless given.
func upOuter(name, ts, dur string, device bool, pid int) map[string]any {
	cat := "cpu_op"
	if device {
		cat = "kernel"
	}
	return map[string]any{"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": 3, "ts": json.RawMessage(ts), "dur": json.RawMessage(dur), "args": map[string]any{}}
}

// upInternal is upstream's _internal_event: pid 0, tid 1000 + block, args
// core_type, block_id, task_id 1, desc_id 0x10002 and the invocation id
// when given (inv < 0: none).
func upInternal(name string, ts, dur float64, inv int, core string, block int) map[string]any {
	args := map[string]any{"core_type": core, "block_id": block, "task_id": 1, "desc_id": 0x10002}
	if inv >= 0 {
		args["invocation_id"] = inv
	}
	return map[string]any{"name": name, "cat": "MegaKernelInternal", "ph": "X", "pid": 0, "tid": 1000 + block, "ts": ts, "dur": dur, "args": args}
}

// upWindow is upstream's _window_trace: two invocations of rank 0 on
// device 6, forward HyperMegaMoe (two events) and backward
// HyperMegaMoeGrad (one).
func upWindow() map[string]any {
	return map[string]any{
		"traceEvents": []any{
			upInternal("GMM1", 10, 5, 0, "AIC", 0),
			upInternal("SwiGLU", 20, 10, 0, "AIV", 1),
			upInternal("GMM2Grad", 100, 4, 1, "AIC", 0),
		},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "windowIndex": 0, "invocations": []any{
			map[string]any{"invocationId": 0, "direction": "forward", "kernelName": "HyperMegaMoe", "rank": 0, "deviceId": 6},
			map[string]any{"invocationId": 1, "direction": "backward", "kernelName": "HyperMegaMoeGrad", "rank": 0, "deviceId": 6},
		}},
	}
}

func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return writeFile(t, name, string(b))
}

func number(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		require.NoError(t, err)
		return f
	case string: // a ts written as the outer kernel's was (CANN's strings)
		n := json.Number(x)
		return number(t, n)
	}
	require.FailNow(t, fmt.Sprintf("%v (%T) is not a number", v, v))
	return 0
}

// test_public_api_merges_multi_invocation_window_and_writes_output
func TestUpstreamWindowMerge(t *testing.T) {
	fwText := `{"displayTimeUnit":"ns","traceEvents":[{"name":"thread_sort_index","ph":"M","pid":7,"tid":3,"args":{"sort_index":10}}`
	for _, e := range []map[string]any{
		upOuter("HyperMegaMoe", "900.0", "200.0", false, 7),
		upOuter("HyperMegaMoe_abc123", "1000.0", "50.0", true, 7),
		upOuter("HyperMegaMoeGrad_def456", "2000.0", "20.0", true, 7),
	} {
		b, _ := json.Marshal(e)
		fwText += "," + string(b)
	}
	fw := writeFile(t, "fw.json", fwText+"]}")
	mk := writeJSON(t, "mk.json", upWindow())
	before := [2][]byte{readAll(t, fw), readAll(t, mk)}
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	require.Equal(t, [2][]byte{readAll(t, fw), readAll(t, mk)}, before, "an input changed")
	assert.Equal(t, `"ns"`, string(m.top["displayTimeUnit"]), "displayTimeUnit")
	assert.Equal(t, float64(2), number(t, m.res["mergedInvocationCount"]), "mergedInvocationCount")
	assert.Equal(t, float64(3), number(t, m.res["mergedEventCount"]), "mergedEventCount")
	assert.Equal(t, false, m.res["usedFallbackKernelSelection"], "usedFallbackKernelSelection")
	var outer []string
	for _, a := range m.res["alignments"].([]any) {
		outer = append(outer, a.(map[string]any)["outerKernelName"].(string))
	}
	assert.Equal(t, []string{"HyperMegaMoe_abc123", "HyperMegaMoeGrad_def456"}, outer, "outer kernels")
	var ts []float64
	var parents []string
	pids := map[string]bool{}
	for _, e := range m.internal() {
		ts = append(ts, number(t, e["ts"]))
		parents = append(parents, e["args"].(map[string]any)["parent_kernel"].(string))
		pids[string(e["pid"].(json.Number))] = true
	}
	assert.Equal(t, []float64{1000, 1010, 2000}, ts, "internal ts")
	assert.Equal(t, []string{"HyperMegaMoe_abc123", "HyperMegaMoe_abc123", "HyperMegaMoeGrad_def456"}, parents, "parent kernels")
	assert.Equal(t, map[string]bool{"7": true}, pids, "internal pids")
	assert.Equal(t, float64(6), number(t, m.internal()[0]["args"].(map[string]any)["cycle_trace_device_id"]), "cycle_trace_device_id")
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// test_event_list_and_single_invocation_trace_are_supported: the rank is
// the trace's (megaKernelCycleTrace.rank 1), not the events' pid (0).
func TestUpstreamEventList(t *testing.T) {
	fw := writeJSON(t, "fw.json", []any{upOuter("aclnnMegaMoe_MegaMoe_MegaMoe", `"1234.5"`, `"40.0"`, true, 99)})
	mk := writeJSON(t, "mk.json", map[string]any{
		"traceEvents":          []any{upInternal("GMM1", 3, 8, -1, "AIC", 0)},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "rank": 1, "deviceId": 7, "kernelName": "MegaMoe"},
	})
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	e := m.internal()[0]
	assert.Equal(t, 1234.5, number(t, e["ts"]), "ts")
	assert.Equal(t, float64(99), number(t, e["pid"]), "pid")
	assert.Equal(t, float64(1), number(t, e["args"].(map[string]any)["cycle_trace_rank"]), "cycle_trace_rank")
	assert.Equal(t, float64(1), number(t, m.res["mergedInvocationCount"]), "mergedInvocationCount")
	// --rank names the trace's rank, not the pid.
	_, err = runMerge(t, Options{Framework: fw, MegaKernel: mk, Rank: 1})
	assert.NoError(t, err, "rank 1")
}

// test_cann_mix_aic_task_is_recognized_as_a_device_kernel
func TestUpstreamCANNMixAIC(t *testing.T) {
	fw := writeFile(t, "fw.json", `[{"name":"aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe","cat":null,"ph":"X","pid":7,"tid":43,"ts":"1788773332531494.453","dur":9529.571,"args":{"Task Type":"MIX_AIC","Physic Stream Id":43,"Task Id":56}}]`)
	mk := writeJSON(t, "mk.json", map[string]any{
		"traceEvents":          []any{upInternal("Compute", 0, 20, -1, "AIC", 0)},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "kernelName": "MegaMoe"},
	})
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.NoError(t, err)
	a := m.res["alignments"].([]any)[0].(map[string]any)
	assert.Falsef(t, a["outerKernelIsDevice"] != true || number(t, a["outerKernelTid"]) != 43, "alignment %v, want a device kernel on tid 43", a)
}

// test_inferred_name_fallback_records_approximate_alignment
func TestUpstreamFallback(t *testing.T) {
	fw := writeJSON(t, "fw.json", map[string]any{"traceEvents": []any{
		upOuter("unrelated_first", "100.0", "25.0", true, 7),
		upOuter("mangled_device_symbol", "200.0", "25.0", true, 7),
	}})
	mk := writeJSON(t, "mk.json", map[string]any{
		"traceEvents":          []any{upInternal("Compute", 10, 20, -1, "AIC", 0)},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": 1, "kernelName": "NameMissingFromFramework"},
	})
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, KernelIndex: 1})
	require.NoError(t, err)
	a := m.res["alignments"].([]any)[0].(map[string]any)
	assert.Equal(t, true, m.res["usedFallbackKernelSelection"], "result %v: the fallback", m.res)
	assert.Equal(t, "mangled_device_symbol", a["outerKernelName"], "result %v: the fallback's kernel", m.res)
	assert.NotEmpty(t, m.res["warnings"], "result %v: the fallback's warning", m.res)
}

// upHostOnly is the framework trace of the host-wrapper and error cases:
// one event named HyperMegaMoe at ts 100, dur 50.
func upHostOnly(t *testing.T, device bool) string {
	return writeJSON(t, "fw.json", map[string]any{"traceEvents": []any{upOuter("HyperMegaMoe", "100.0", "50.0", device, 7)}})
}

func upSingle(t *testing.T, version int) string {
	return writeJSON(t, "mk.json", map[string]any{
		"traceEvents":          []any{upInternal("Compute", 10, 20, -1, "AIC", 0)},
		"megaKernelCycleTrace": map[string]any{"schemaVersion": version, "kernelName": "HyperMegaMoe"},
	})
}

// test_host_wrapper_alignment_requires_explicit_opt_in
func TestUpstreamHostWrapper(t *testing.T) {
	fw, mk := upHostOnly(t, false), upSingle(t, 1)
	_, err := runMerge(t, Options{Framework: fw, MegaKernel: mk})
	require.ErrorContains(t, err, "host-only")
	m, err := runMerge(t, Options{Framework: fw, MegaKernel: mk, AllowHostWrapper: true})
	require.NoError(t, err)
	a := m.res["alignments"].([]any)[0].(map[string]any)
	assert.Equal(t, false, a["outerKernelIsDevice"], "result %v: a host alignment", m.res)
	assert.NotEmpty(t, m.res["warnings"], "result %v: the host alignment's warning", m.res)
}

// test_invalid_schema_regex_index_and_count_fail_explicitly
func TestUpstreamInvalidInputs(t *testing.T) {
	fw, mk := upHostOnly(t, true), upSingle(t, 1)
	nan := writeFile(t, "nan.json", strings.Replace(string(readAll(t, mk)), `"ts":10`, `"ts":NaN`, 1))
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"schemaVersion 2", Options{Framework: fw, MegaKernel: upSingle(t, 2)}, "schemaVersion"},
		{"invalid regex", Options{Framework: fw, MegaKernel: mk, KernelPattern: "[", KernelPatternSet: true}, "--kernel-pattern"},
		{"empty pattern", Options{Framework: fw, MegaKernel: mk, KernelPattern: "", KernelPatternSet: true}, "empty"},
		{"negative index", Options{Framework: fw, MegaKernel: mk, KernelIndex: -1}, "kernel-index"},
		{"NaN ts", Options{Framework: fw, MegaKernel: nan}, "NaN"},
		{"too few outer kernels", Options{Framework: fw, MegaKernel: writeJSON(t, "w.json", upWindow())}, "2"},
	} {
		_, err := runMerge(t, c.o)
		var ie *InputError
		var se *SelectionError
		if assert.ErrorContains(t, err, c.want, c.name) && c.name == "too few outer kernels" {
			assert.True(t, errors.As(err, &se) || errors.As(err, &ie), "%s: error %T, want a selection error", c.name, err)
		}
	}
}
