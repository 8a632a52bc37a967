package jsontrace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpstreamWindowObject: the window object as upstream writes it
// (profiler/profiler.py@8f3c6ce): windowIndex, a top-level anchorCycle and
// detailedTaskNames, no cycleFrequencyMHz, kernelName or rank at the top.
// Its fields are read: the window index, the detailed names of every
// invocation, and the frequency from the events (2000 cycles in 40 µs).
func TestUpstreamWindowObject(t *testing.T) {
	ev := `{"name":"Expert0_GMM1_task1","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":1000,"ts":0,"dur":40,"args":{"rank":2,"device_id":5,"core_type":"AIC","block_id":0,"task_id":1,"desc_id":65538,"stage_task_index":0,"task_number":1,"start_cycle":7000,"end_cycle":9000,"core_entry_cycle":7000,"owner_id":0,"invocation_id":4}}`
	meta := `"megaKernelCycleTrace":{"schemaVersion":1,"windowIndex":3,"anchorCycle":7000,"invocationCount":1,"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":true,"invocations":[{"invocationId":4,"step":0,"direction":"forward","kernelName":"MegaMoe","rank":2,"deviceId":5,"recordCount":1,"droppedRecordCount":0}],"warnings":[]}`
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644))
	tr, err := jsontrace.Read(path, "")
	require.NoError(t, err)
	defer tr.Close()
	s := tr.Sources[0]
	require.NotNilf(t, s.WindowIndex, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	require.Equalf(t, int64(3), *s.WindowIndex, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	require.Truef(t, s.DetailedNames, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	require.Equalf(t, "MegaMoe", s.KernelName, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	require.Equalf(t, uint32(2), s.Rank, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	assert.Equalf(t, uint32(5), s.DeviceID, "source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	assert.Equal(t, 2000.0/40, s.FrequencyMHz, "frequency")
	assert.True(t, s.FromEvents, "frequency from the events")
}

// TestAscend910B2: the socName upstream's single-invocation export writes
// on the 910B is recognised (50 MHz, as every 910B).
func TestAscend910B2(t *testing.T) {
	mhz, err := abi.SystemCounterMHz("Ascend910B2")
	require.NoError(t, err, "SystemCounterMHz(\"Ascend910B2\")")
	assert.Equal(t, float64(50), mhz, "SystemCounterMHz(\"Ascend910B2\")")
}

// windowOf writes a window trace of upstream's shape (no frequency, no
// socName unless meta adds one) of one event per invocation, each
// invocation id with its cycles and dur.
func windowOf(t *testing.T, extraMeta string, evs ...[3]int) string {
	var events, invs []string
	for _, e := range evs {
		id, cycles, dur := e[0], e[1], e[2]
		events = append(events, fmt.Sprintf(`{"name":"DescId_65538","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":1000,"ts":0,"dur":%d,"args":{"rank":0,"device_id":0,"core_type":"AIC","block_id":0,"task_id":1,"desc_id":65538,"stage_task_index":0,"task_number":1,"start_cycle":7000,"end_cycle":%d,"core_entry_cycle":7000,"owner_id":0,"invocation_id":%d}}`, dur, 7000+cycles, id))
		invs = append(invs, fmt.Sprintf(`{"invocationId":%d,"step":0,"direction":"forward","rank":0,"deviceId":0,"recordCount":1,"droppedRecordCount":0}`, id))
	}
	meta := fmt.Sprintf(`"megaKernelCycleTrace":{"schemaVersion":1,%s"windowIndex":0,"anchorCycle":7000,"invocationCount":%d,"recordCount":%d,"droppedRecordCount":0,"detailedTaskNames":false,"invocations":[%s],"warnings":[]}`,
		extraMeta, len(evs), len(evs), strings.Join(invs, ","))
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"traceEvents":[`+strings.Join(events, ",\n")+`],`+meta+`}`), 0o644))
	return path
}

// TestWindowReadAtOneFrequency: a window's invocations are read at the one
// frequency all its events imply: an invocation whose events have no
// cycles takes its sibling's 1000 MHz (it fell back to 50 MHz: 80 µs
// reported for 4 µs), and invocations whose events disagree (1000 against
// 50 MHz) are the error disagreeing events are, on every invocation (both
// were accepted, each at its own).
func TestWindowReadAtOneFrequency(t *testing.T) {
	tr, err := jsontrace.Read(windowOf(t, "", [3]int{1, 4000, 4}, [3]int{2, 0, 4}), "")
	require.NoError(t, err)
	for _, s := range tr.Sources {
		assert.Equal(t, float64(1000), s.FrequencyMHz, "%s: MHz", s.Name)
		assert.True(t, s.FromEvents, "%s: from the window's events", s.Name)
		assert.Nil(t, s.FreqErr, "%s", s.Name)
	}
	tr.Close()
	tr, err = jsontrace.Read(windowOf(t, "", [3]int{1, 4000, 4}, [3]int{2, 200, 4}), "")
	require.NoError(t, err)
	defer tr.Close()
	for _, s := range tr.Sources {
		if assert.NotNil(t, s.FreqErr, "%s: want the events' disagreement", s.Name) {
			assert.Contains(t, s.FreqErr.Error(), "its events disagree on it: the event at line 1", "%s", s.Name)
		}
		assert.Equal(t, float64(0), s.FrequencyMHz, "%s: MHz", s.Name)
	}
}

// TestTraceSoCGivesFrequency: a trace that states its socName and no
// frequency is read at that SoC's system counter (ascend950: 1000 MHz),
// before its events (it was read at the default 50 MHz: 2458.84 µs for
// 122.94 µs); an unknown socName leaves it to the events.
func TestTraceSoCGivesFrequency(t *testing.T) {
	tr, err := jsontrace.Read(windowOf(t, `"socName":"ascend950",`, [3]int{1, 4000, 80}), "")
	require.NoError(t, err)
	s := tr.Sources[0]
	assert.Equal(t, float64(1000), s.FrequencyMHz, "MHz, from ascend950")
	assert.False(t, s.FromEvents, "from the events, not from ascend950")
	assert.Equal(t, "ascend950", s.SoCName)
	tr.Close()
	tr, err = jsontrace.Read(windowOf(t, `"socName":"tpu9",`, [3]int{1, 4000, 80}), "")
	require.NoError(t, err)
	defer tr.Close()
	s = tr.Sources[0]
	assert.Equal(t, float64(50), s.FrequencyMHz, "an unknown SoC: MHz")
	assert.True(t, s.FromEvents, "an unknown SoC: from the events")
}
