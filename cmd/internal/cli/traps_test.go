package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamWindow writes a window trace as upstream's multi-invocation
// export does: no cycleFrequencyMHz, kernelName or rank at the top (they
// are per invocation, where present), every event with its cycles and its
// ts and dur in µs written in full, at mhz. durs, when not nil, replaces
// the events' durs as written. It returns the path and the events' span
// in µs by their own timestamps (the latest ts + dur less the earliest
// ts), the independent figure analyze must agree with.
func upstreamWindow(t *testing.T, mhz float64, durs []string) (string, float64) {
	t.Helper()
	const anchor = 1_000_000
	// One invocation on one AIV core: 37,020 cycles at 1000 MHz, 37.02 µs.
	spans := [][2]uint64{{0, 10_000}, {10_000, 20_000}, {20_000, 37_020}}
	var evs []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range spans {
		start, end := anchor+s[0], anchor+s[1]
		ts := float64(start-anchor) / mhz
		dur := strconv.FormatFloat(float64(end-start)/mhz, 'g', -1, 64)
		if durs != nil {
			dur = durs[i]
		}
		d, _ := strconv.ParseFloat(dur, 64)
		lo, hi = min(lo, ts), max(hi, ts+d)
		evs = append(evs, fmt.Sprintf(`{"name":"TaskType_MatMul","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2000,"ts":%s,"dur":%s,"args":{"rank":0,"device_id":3,"core_type":"AIV","block_id":0,"task_id":%d,"desc_id":131175,"stage_task_index":0,"task_number":1,"start_cycle":%d,"end_cycle":%d,"core_entry_cycle":%d,"invocation_id":0,"step":1,"direction":"forward"}}`,
			strconv.FormatFloat(ts, 'g', -1, 64), dur, i, start, end, anchor))
	}
	meta := fmt.Sprintf(`"megaKernelCycleTrace":{"schemaVersion":1,"windowIndex":0,"anchorCycle":%d,"invocationCount":1,"recordCount":3,"droppedRecordCount":0,"detailedTaskNames":false,"invocations":[{"invocationId":0,"step":1,"direction":"forward","kernelName":"MegaKernel","rank":0,"deviceId":3,"recordCount":3,"droppedRecordCount":0}],"warnings":[]}`, anchor)
	path := filepath.Join(t.TempDir(), "window.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"traceEvents":[`+strings.Join(evs, ",\n")+`],`+meta+`}`), 0o644))
	return path, hi - lo
}

// TestWindowFrequencyFromEvents: a window that states no frequency is
// read at the one its events imply, and the run says so; analyze's
// makespan is the events' own span (37.02 µs), not 20 times it (the
// default 50 MHz of --soc ascend910b gave 740.4 µs before). A flag still
// decides over the events.
func TestWindowFrequencyFromEvents(t *testing.T) {
	path, spanUs := upstreamWindow(t, 1000, nil)
	stdout, stderr, code := runMain(t, "analyze", path, "--format", "json")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	var rep analyze.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	r := rep.Ranks[0]
	const said = "the trace states no cycle frequency (cycleFrequencyMHz): 1000 MHz from its 3 events' cycles over their durations"
	assert.Containsf(t, strings.Join(r.Notes, "\n"), said, "the report's notes = %q, want them to say the frequency came from the events", r.Notes)
	_, stderr, _ = runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	assert.Contains(t, stderr, said, "decode: stderr, want it to say the frequency came from the events")
	assert.Equal(t, float64(1000), r.CycleFrequencyMHz, "frequency MHz")
	assert.InDelta(t, spanUs, r.MakespanUs, 1e-9, "makespan µs, want the events' own")
	stdout, stderr, code = runMain(t, "analyze", path, "--format", "json", "--freq-mhz", "50")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.LessOrEqualf(t, math.Abs(rep.Ranks[0].MakespanUs-spanUs*20), 1e-6, "freq-mhz 50: makespan µs, want %v", spanUs*20)
}

// TestWindowFrequencyDisagrees: events that imply different frequencies,
// or one no system counter runs at, are an error naming the events (line
// and byte), exit 1, in validate too; the error says to give --freq-mhz
// or --soc, and with either the trace is read at it (the clash was an
// error whatever the flags said, so the advice led nowhere, and a
// frequency of 1e-9 MHz from the events was taken as it came).
func TestWindowFrequencyDisagrees(t *testing.T) {
	// The second event's dur says 50 MHz, the others 1000.
	clash, _ := upstreamWindow(t, 1000, []string{"10", "200", "17.02"})
	// Every dur 1e8 times too long: 1e-5 MHz, a hundredth of the lowest
	// system-counter frequency (1 kHz).
	slow, _ := upstreamWindow(t, 1000, []string{"1e9", "1e9", "1.702e9"})
	for _, c := range []struct {
		path  string
		wants []string
	}{
		{clash, []string{"events disagree", "the event at line 2", "the event at line 1", "--freq-mhz"}},
		{slow, []string{"its events imply 1e-05 MHz (the event at line 3: 17020 cycles in 1702000000 µs), which is not a system-counter frequency (0.001 to 1e+06 MHz)", ":3: byte ", "--freq-mhz"}},
	} {
		for _, cmd := range []string{"analyze", "validate"} {
			_, stderr, code := runMain(t, cmd, c.path)
			assert.Equalf(t, ExitInvalid, code, "%s %s: code:\n%s", cmd, c.path, stderr)
			for _, want := range c.wants {
				assert.Containsf(t, stderr, want, "%s: stderr", cmd)
			}
		}
		stdout, stderr, code := runMain(t, "analyze", c.path, "--format", "json", "--freq-mhz", "50")
		require.Equalf(t, ExitOK, code, "freq-mhz 50: %s: code", stderr)
		var rep analyze.Report
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
		// 37,020 cycles at 50 MHz, whatever the durs say.
		assert.LessOrEqualf(t, math.Abs(rep.Ranks[0].MakespanUs-37020.0/50), 1e-6, "freq-mhz 50: makespan µs, want %v", 37020.0/50)
		_, stderr, code = runMain(t, "decode", c.path, "--soc", "ascend910b", "-o", filepath.Join(t.TempDir(), "t.json"))
		assert.Equalf(t, ExitOK, code, "decode --soc: code\n%s", stderr)
	}
}

// TestDirectionCommaSeparated: --direction forward,backward is two
// directions, as --step 3,3 is two steps: the same window as the flags
// repeated, byte for byte.
func TestDirectionCommaSeparated(t *testing.T) {
	dir := t.TempDir()
	capPath := "../../../examples/moe_layer.bin"
	outs := [2]string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	for i, args := range [][]string{
		{"--step", "3", "--step", "3", "--direction", "forward", "--direction", "backward"},
		{"--step", "3,3", "--direction", "forward,backward"},
	} {
		_, stderr, code := runMain(t, append([]string{"decode", capPath, capPath, "-o", outs[i]}, args...)...)
		require.Equalf(t, ExitOK, code, "%v: %s: code", args, stderr)
	}
	a, err := os.ReadFile(outs[0])
	require.NoError(t, err)
	b, err := os.ReadFile(outs[1])
	require.NoError(t, err)
	require.Equal(t, string(b), string(a), "direction forward,backward wrote another window than the flags repeated")
	assert.Contains(t, string(a), `"direction":"backward"`, "direction forward,backward wrote another window than the flags repeated")
}

// headerDropped sums the droppedCount of every core header of a raw
// capture of 72 slots of the given capacity, read straight from the bytes
// (CoreHeader: u64 entryCycle, u32 recordCount, u32 droppedCount, ...; a
// slot is the 64-byte header and capacity 32-byte records).
func headerDropped(t *testing.T, path string, capacity int) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	stride := 64 + capacity*32
	require.Lenf(t, b, 72*stride, "%s bytes, want 72 slots of %d", path, stride)
	var n uint64
	for s := 0; s < 72; s++ {
		h := b[s*stride:]
		n += uint64(h[12]) | uint64(h[13])<<8 | uint64(h[14])<<16 | uint64(h[15])<<24
	}
	return n
}

// TestDiffShowsDropped: diff of a run that dropped records and one that
// did not shows the dropped count change, in JSON and in text, with the
// counts the captures' headers hold.
func TestDiffShowsDropped(t *testing.T) {
	dir := t.TempDir()
	base := "../../../examples/moe_layer.bin"
	sched := filepath.Join(dir, "s.yaml")
	src, err := os.ReadFile("../../../examples/moe_layer.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sched, src, 0o644))
	// The example was synthesized at --capacity-scale 0.8 and dropped
	// records; at the planned capacities nothing is dropped.
	newCap := filepath.Join(dir, "new.bin")
	_, stderr, code := runMain(t, "synth", sched, "-o", newCap)
	require.Equalf(t, ExitOK, code, "synth: %s: code", stderr)
	capOf := func(p string) int {
		st, err := os.Stat(p)
		require.NoError(t, err)
		return (int(st.Size())/72 - 64) / 32
	}
	wantBase, wantNew := headerDropped(t, base, capOf(base)), headerDropped(t, newCap, capOf(newCap))
	require.NotEqual(t, wantBase, wantNew, "both captures dropped")
	stdout, stderr, code := runMain(t, "diff", base, newCap, "--format", "json")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	var d struct {
		Ranks []struct {
			Dropped struct{ Base, New, Abs float64 }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &d))
	got := d.Ranks[0].Dropped
	assert.Equalf(t, float64(wantBase), got.Base, "dropped %+v, want base %d, new %d (the headers' droppedCount)", got, wantBase, wantNew)
	assert.Equalf(t, float64(wantNew), got.New, "dropped %+v, want base %d, new %d (the headers' droppedCount)", got, wantBase, wantNew)
	assert.Equalf(t, float64(wantNew)-float64(wantBase), got.Abs, "dropped %+v, want base %d, new %d (the headers' droppedCount)", got, wantBase, wantNew)
	stdout, _, _ = runMain(t, "diff", base, newCap)
	assert.Contains(t, stdout, "dropped", "text diff")
}

// megaMoeCapture synthesizes the first family case's MegaMoe schedule
// (seed 3) into dir and returns the capture's path.
func megaMoeCapture(t *testing.T, dir string) string {
	t.Helper()
	sched := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(sched, []byte(familyCases[0].schedule), 0o644))
	capPath := filepath.Join(dir, "c.bin")
	_, errOut, code := runMain(t, "synth", sched, "--seed", "3", "-o", capPath)
	require.Equalf(t, ExitOK, code, "synth: %s", errOut)
	return capPath
}

// TestValidateStrictFamily: validate --strict refuses a MegaMoe capture
// read under no family (its stage ids 0x10001.. are MegaMoe's), naming
// --kernel-family; named, or without --strict, it passes.
func TestValidateStrictFamily(t *testing.T) {
	dir := t.TempDir()
	capPath := megaMoeCapture(t, dir)
	_, stderr, code := runMain(t, "validate", capPath, "--strict")
	require.Equal(t, ExitInvalid, code, "validate --strict: code")
	require.Contains(t, stderr, "kernel family MegaMoe's", "validate --strict: code")
	assert.Contains(t, stderr, "--kernel-family MegaMoe", "validate --strict: code")
	for _, args := range [][]string{{"--strict", "--kernel-family", "MegaMoe"}, {"--strict", "--kernel-name", "MegaMoe"}, {}} {
		_, stderr, code = runMain(t, append([]string{"validate", capPath}, args...)...)
		assert.Equalf(t, ExitOK, code, "validate %v: code, stderr %q", args, stderr)
	}
}
