package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// windowObjectHead is the start of the megaKernelCycleTrace object decode
// wrote, its members in order and their values, up to "invocations".
func windowObjectHead(t *testing.T, trace []byte) []string {
	t.Helper()
	i := bytes.Index(trace, []byte(`"megaKernelCycleTrace":{`))
	require.GreaterOrEqualf(t, i, 0, "no megaKernelCycleTrace object in %s", trace)
	dec := json.NewDecoder(bytes.NewReader(trace[i+len(`"megaKernelCycleTrace":`):]))
	_, err := dec.Token()
	require.NoError(t, err)
	var out []string
	for dec.More() {
		key, err := dec.Token()
		require.NoError(t, err)
		if key == "invocations" {
			return out
		}
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
		out = append(out, key.(string)+"="+string(v))
	}
	return out
}

// TestWindowObjectAsUpstream: the window object decode writes has what
// upstream's profiler writes at its top (profiler/profiler.py@8f3c6ce):
// windowIndex, anchorCycle (the earliest invocation anchor, ts 0),
// invocationCount, recordCount, droppedRecordCount and detailedTaskNames,
// in that order. A window decoded from captures is window 0; one decoded
// from upstream's window trace keeps that trace's windowIndex and
// detailedTaskNames.
func TestWindowObjectAsUpstream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var caps []string
	for i, entry := range []uint64{9000, 1000} {
		b := capturetest.New(abi.MinCubeSlots, 16, 16).Enter(abi.CoreTypeAIC, 0, entry).
			Span(abi.CoreTypeAIC, 0, entry+10, entry+60, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 0)
		p := filepath.Join(dir, []string{"bwd.bin", "fwd.bin"}[i])
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
		caps = append(caps, p)
	}
	out := filepath.Join(dir, "w.json")
	_, errOut, code := runMain(t, "decode", caps[0], caps[1], "--step", "1", "--step", "1", "--direction", "backward", "--direction", "forward",
		"--cube-slots", "24", "--aic-capacity", "16", "--aiv-capacity", "16", "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	want := []string{"schemaVersion=1", "windowIndex=0", "anchorCycle=1000", "invocationCount=2", "recordCount=2", "droppedRecordCount=0", "detailedTaskNames=false"}
	assert.Truef(t, slices.Equal(windowObjectHead(t, data), want), "captures: window object opens, want %v", want)

	// Upstream's window 3 (detailed names), as jsontrace's
	// TestUpstreamWindowObject has it, decoded again.
	ev := `{"name":"Expert0_GMM1_task1","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":1000,"ts":0,"dur":40,"args":{"rank":2,"device_id":5,"core_type":"AIC","block_id":0,"task_id":1,"desc_id":65538,"stage_task_index":0,"task_number":1,"start_cycle":7000,"end_cycle":9000,"core_entry_cycle":7000,"owner_id":0,"invocation_id":4}}`
	meta := `"megaKernelCycleTrace":{"schemaVersion":1,"windowIndex":3,"anchorCycle":7000,"invocationCount":1,"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":true,"invocations":[{"invocationId":4,"step":0,"direction":"forward","kernelName":"MegaMoe","rank":2,"deviceId":5,"recordCount":1,"droppedRecordCount":0}],"warnings":[]}`
	up := filepath.Join(dir, "up.json")
	require.NoError(t, os.WriteFile(up, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644))
	_, errOut, code = runMain(t, "decode", up, "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", errOut)
	data, err = os.ReadFile(out)
	require.NoError(t, err)
	want = []string{"schemaVersion=1", "windowIndex=3", "anchorCycle=7000", "invocationCount=1", "recordCount=1", "droppedRecordCount=0", "detailedTaskNames=true"}
	assert.Truef(t, slices.Equal(windowObjectHead(t, data), want), "upstream's window 3: window object opens, want %v", want)
}
