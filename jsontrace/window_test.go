package jsontrace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
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
	if err := os.WriteFile(path, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := jsontrace.Read(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	s := tr.Sources[0]
	if s.WindowIndex == nil || *s.WindowIndex != 3 || !s.DetailedNames || s.KernelName != "MegaMoe" || s.Rank != 2 || s.DeviceID != 5 {
		t.Errorf("source %+v: want window 3, detailed names, MegaMoe, rank 2, device 5", s)
	}
	if s.FrequencyMHz != 2000.0/40 || !s.FromEvents {
		t.Errorf("frequency %v (from events %v), want 50 from the events", s.FrequencyMHz, s.FromEvents)
	}
}

// TestAscend910B2: the socName upstream's single-invocation export writes
// on the 910B is recognised (50 MHz, as every 910B).
func TestAscend910B2(t *testing.T) {
	if mhz, err := abi.SystemCounterMHz("Ascend910B2"); err != nil || mhz != 50 {
		t.Errorf("SystemCounterMHz(\"Ascend910B2\") = %v, %v; want 50", mhz, err)
	}
}
