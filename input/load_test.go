package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inputs the provenance test reads.
const (
	exampleCapture = "../examples/moe_layer.bin" // its headers state its layout; no rank in its name
	exampleNames   = "../examples/moe_layer.names.yaml"
	// decode's golden trace: it states 50 MHz (ascend910b), kernelName
	// MegaKernel, rank 0 and its names.
	statedTrace = "../decode/chromejson/testdata/golden/naming.json"
)

// windowTrace writes a window as upstream exports it (no
// cycleFrequencyMHz, no kernelName): one event of desc id 0x10002, which
// only MegaMoe names, under the schema's own name (so the trace names
// nothing and the family is inferred from the id), that took 2000 cycles
// in 40 µs (50 MHz), rank 2.
func windowTrace(t *testing.T) string {
	ev := `{"name":"DescId_65538","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":1000,"ts":0,"dur":40,"args":{"rank":2,"device_id":5,"core_type":"AIC","block_id":0,"task_id":1,"desc_id":65538,"stage_task_index":0,"task_number":1,"start_cycle":7000,"end_cycle":9000,"core_entry_cycle":7000,"owner_id":0,"invocation_id":4}}`
	meta := `"megaKernelCycleTrace":{"schemaVersion":1,"windowIndex":3,"anchorCycle":7000,"invocationCount":1,"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":false,"invocations":[{"invocationId":4,"step":0,"direction":"forward","rank":2,"deviceId":5,"recordCount":1,"droppedRecordCount":0}],"warnings":[]}`
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644))
	return path
}

// manifestWindow writes a window of two copies of the example capture: the
// first with its rank and kernel name in the manifest, the second with
// neither (its rank in its file name, cap_r3.bin).
func manifestWindow(t *testing.T) *InvocationSet {
	dir := t.TempDir()
	b, err := os.ReadFile(exampleCapture)
	require.NoError(t, err)
	for _, name := range []string{"a.bin", "cap_r3.bin"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	m := filepath.Join(dir, "w.yaml")
	text := "- {capture: a.bin, rank: 5, kernel_name: MegaMoe}\n- {capture: cap_r3.bin}\n"
	require.NoError(t, os.WriteFile(m, []byte(text), 0o644))
	w, err := Window{Manifest: m}.Resolve(nil, nil, true)
	require.NoError(t, err)
	return w
}

// flagLayout is the request the layout flags would make for the example
// capture: its own layout, given (found once without a request).
func flagLayout(t *testing.T) capture.Request {
	c, err := capture.Open(exampleCapture)
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	l := d.Layout.Layout
	caps := l.Capacities
	return capture.Request{GivenBy: "the flags", CubeSlots: l.CubeSlots, Capacities: &caps}
}

// schedule is the example capture's schedule, as --plan gives it.
func schedule(t *testing.T) *plan.Schedule {
	s, err := plan.ParseFile("../examples/moe_layer.yaml")
	require.NoError(t, err)
	return s
}

// provenance is what Load says of one source: each interpretation's
// value where it matters, and where it came from.
type provenance struct {
	layout     From
	kernel     string
	kernelFrom From
	family     abi.Family
	familyFrom From
	evidence   string // a substring of FamilyEvidence
	mhz        float64
	freqFrom   From
	names      From
	rank       uint32
	rankFrom   From
}

// TestLoadProvenance: Load says where each interpretation of each source
// came from, for a capture, a trace that states its frequency, a window
// trace that states none, a manifest's captures, and the flags.
func TestLoadProvenance(t *testing.T) {
	t.Parallel()
	defaults := func() *FamilyOptions { return &FamilyOptions{KernelName: "MegaKernel"} }
	for _, c := range []struct {
		name     string
		o        Options
		schedule From
		want     []provenance
	}{
		{"capture", Options{Paths: []string{exampleCapture}}, "", []provenance{
			{layout: FromHeaders, kernel: "MegaKernel", kernelFrom: FromDefault, family: abi.FamilyNone, familyFrom: FromDefault,
				mhz: 50, freqFrom: FromSoC, names: FromDefault, rank: 0, rankFrom: FromDefault}}},
		{"trace stating its frequency", Options{Paths: []string{statedTrace}}, "", []provenance{
			{layout: FromTrace, kernel: "MegaKernel", kernelFrom: FromTrace, family: abi.FamilyNone, familyFrom: FromDefault,
				mhz: 50, freqFrom: FromTrace, names: FromTrace, rank: 0, rankFrom: FromTrace}}},
		{"window trace stating none", Options{Paths: []string{windowTrace(t)}}, "", []provenance{
			{layout: FromTrace, kernel: "MegaKernel", kernelFrom: FromDefault, family: abi.FamilyMegaMoe, familyFrom: FromData, evidence: "desc id 0x10002",
				mhz: 2000.0 / 40, freqFrom: FromEvents, names: FromDefault, rank: 2, rankFrom: FromTrace}}},
		{"manifest", Options{Window: manifestWindow(t)}, "", []provenance{
			{layout: FromHeaders, kernel: "MegaMoe", kernelFrom: FromManifest, family: abi.FamilyMegaMoe, familyFrom: FromKernelName, evidence: `kernel name "MegaMoe"`,
				mhz: 50, freqFrom: FromSoC, names: FromDefault, rank: 5, rankFrom: FromManifest},
			{layout: FromHeaders, kernel: "MegaKernel", kernelFrom: FromDefault, family: abi.FamilyNone, familyFrom: FromDefault,
				mhz: 50, freqFrom: FromSoC, names: FromDefault, rank: 3, rankFrom: FromFileName}}},
		{"flags", Options{Paths: []string{exampleCapture}, Request: flagLayout(t), LayoutGiven: true, Ranks: []uint{7},
			FreqMHz: 1000, FreqGiven: true, NamesFile: exampleNames,
			Family: &FamilyOptions{KernelName: "MegaMoe", KernelNameGiven: true, Family: "MegaMoeGrad"}, Schedule: schedule(t)}, FromFlag, []provenance{
			{layout: FromFlag, kernel: "MegaMoe", kernelFrom: FromFlag, family: abi.FamilyMegaMoeGrad, familyFrom: FromFlag,
				mhz: 1000, freqFrom: FromFlag, names: FromFlag, rank: 7, rankFrom: FromFlag}}},
	} {
		c.o.SoC = "ascend910b"
		if c.o.Family == nil {
			c.o.Family = defaults()
		}
		l, err := Load(c.o)
		if err != nil {
			l.Close()
			require.FailNow(t, fmt.Sprintf("%s: %v", c.name, err))
		}
		require.Lenf(t, l.Sources, len(c.want), "%s", c.name)
		assert.Equalf(t, c.schedule, l.ScheduleFrom, "%s: schedule from", c.name)
		for i, w := range c.want {
			s := l.Sources[i]
			got := provenance{layout: s.LayoutFrom, kernel: s.Kernel, kernelFrom: s.KernelFrom,
				family: s.Family, familyFrom: s.FamilyFrom, evidence: w.evidence,
				mhz: s.FrequencyMHz, freqFrom: s.FrequencyFrom, names: s.NamesFrom, rank: s.Rank, rankFrom: s.RankFrom}
			if !strings.Contains(s.FamilyEvidence, w.evidence) {
				got.evidence = s.FamilyEvidence
			}
			assert.Equalf(t, w, got, "%s: source %d", c.name, i)
		}
		l.Close()
	}
}

// TestLoadRefusesCaptureFlagsWithTrace: --rank and the layout flags go
// with captures; given with a JSON trace (after a capture), the usage
// error names the trace, as a trace in a window is named. They named no
// file.
func TestLoadRefusesCaptureFlagsWithTrace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Ranks: []uint{0, 1}}, statedTrace + ": --rank goes with captures: a JSON trace states its ranks"},
		{Options{Request: flagLayout(t), LayoutGiven: true}, statedTrace + ": --cube-slots and the capacity flags go with captures: a JSON trace states its layout"},
	} {
		c.o.Paths, c.o.SoC, c.o.Family = []string{exampleCapture, statedTrace}, "ascend910b", &FamilyOptions{KernelName: "MegaKernel"}
		l, err := Load(c.o)
		l.Close()
		var ie *Error
		require.EqualError(t, err, c.want)
		require.ErrorAs(t, err, &ie)
		assert.False(t, ie.Invalid)
	}
}
