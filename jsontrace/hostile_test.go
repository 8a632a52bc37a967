package jsontrace_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/sniff"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamesCapped: an event's name and a task_stage longer than a names
// file's cap are cut to its 4,096 bytes, each with a warning naming the
// event's line and byte (Source.Warnings, not its notes: the issue asks
// for a warning), and the metadata's kernelName too (they were kept
// whole: a 60 MB stage name made decode write it on every event of its
// descriptor); validate reports each as a name-capped warning at its
// event.
func TestNamesCapped(t *testing.T) {
	long := strings.Repeat("n", 10000)
	stage := strings.Repeat("s", 5000)
	text := trace(ev("TaskType_"+long, `"task_stage":"`+stage+`"`))
	text = strings.Replace(text, `"kernelName":"MegaMoe"`, `"kernelName":"`+strings.Repeat("k", 7000)+`"`, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	s := tr.Sources[0]
	got, _ := s.Names.Tasks.Lookup(7)
	assert.Equalf(t, stage[:4096], got, "task_stage: %d bytes, want the first 4096", len(got))
	for id, n := range s.Names.Stages {
		assert.LessOrEqualf(t, len(n), 4096, "stage %d: a name of", id)
	}
	assert.Len(t, s.KernelName, 4096, "kernelName")
	warnings, notes := strings.Join(s.Warnings, "\n"), strings.Join(s.Notes, "\n")
	for _, want := range []string{
		"line 2, byte 17: the name of the first event of desc_id 131175 is 10,009 bytes long: kept its first 4,096 bytes, the cap on a name (as in a names file)",
		"line 2, byte 17: args.task_stage of task 7 is 5,000 bytes long",
		"megaKernelCycleTrace's kernelName is 7,000 bytes long",
	} {
		require.Containsf(t, warnings, want, "warnings\nnotes\n%s\n among the warnings only", notes)
		assert.NotContainsf(t, notes, want, "warnings\nnotes\n%s\n among the warnings only", notes)
	}
	assert.Len(t, s.Warnings, 3, "warnings")
	assert.Equal(t, 3, s.CutNames(), "names cut")
	res, err := s.Validate(validate.Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Count(validate.CodeNameCapped), "name-capped findings")
	var offs []int64
	for _, f := range res.Findings {
		if f.Code == validate.CodeNameCapped {
			offs = append(offs, f.Off)
			require.Equalf(t, capture.Severity(capture.Warning), f.Severity, "finding %v, want a warning saying the name was cut", &f.Problem)
			assert.Containsf(t, f.Value, "bytes long: kept its first 4,096 bytes", "finding %v, want a warning saying the name was cut", &f.Problem)
		}
	}
	// Two at the event (byte 17), one at the metadata (after the events).
	require.Len(t, offs, 3, "name-capped offsets")
	require.Equal(t, int64(17), offs[0], "name-capped offsets")
	require.Equal(t, int64(17), offs[1], "name-capped offsets")
	assert.Greater(t, offs[2], int64(17), "name-capped offsets")
}

// TestNamesCappedCounted: past the eighth, cut names are counted in one
// more warning, and validate's count of name-capped stays exact.
func TestNamesCappedCounted(t *testing.T) {
	// Eleven tasks, each with a task_stage of 5,000 bytes.
	var evs []string
	for i := range 11 {
		evs = append(evs, ev("TaskType_MatMul", fmt.Sprintf(`"task_id":%d,"start_cycle":%d,"end_cycle":%d,"task_stage":"%s"`, 100+i, 1100+10*i, 1105+10*i, strings.Repeat("s", 5000))))
	}
	text := strings.Replace(trace(evs...), `"recordCount":1,`, `"recordCount":11,`, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	s := tr.Sources[0]
	require.Equal(t, 11, s.CutNames(), "names cut")
	require.Len(t, s.Warnings, 9, "warnings: eight, and one counting the rest")
	assert.Equal(t, "3 more names were cut to 4096 bytes", s.Warnings[8], "last warning")
	res, err := s.Validate(validate.Options{})
	require.NoError(t, err)
	assert.Equal(t, 11, res.Count(validate.CodeNameCapped), "name-capped count")
	res, err = s.Validate(validate.Options{MaxFindings: 2})
	require.NoError(t, err)
	i := slices.IndexFunc(res.Counts, func(c validate.CodeCount) bool { return c.Code == validate.CodeNameCapped })
	if assert.GreaterOrEqual(t, i, 0, "max-findings 2: no name-capped count in %v", res.Counts) {
		assert.Equal(t, 11, res.Counts[i].Count, "max-findings 2: name-capped count")
		assert.Equal(t, 2, res.Counts[i].Kept, "max-findings 2: name-capped findings kept")
	}
}

// TestMissingRankIsSaid: a rank the metadata lists with not one event in
// the trace is named (Trace.Missing, the first capture's warnings, a
// missing-capture warning from Validate, which --strict makes exit 1);
// the same for an invocation of a window. They vanished silently.
func TestMissingRankIsSaid(t *testing.T) {
	ranks := `"ranks":[{"rank":0,"recordCount":1},{"rank":2,"recordCount":2974},{"rank":5}],`
	text := strings.Replace(trace(ev("TaskType_MatMul", "")), `"kernelName"`, ranks+`"kernelName"`, 1)
	text = strings.Replace(text, `"rank":0,"deviceId":0,`, ``, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	want := []string{
		"megaKernelCycleTrace.ranks[1] (rank 2) has no events in the trace, where its recordCount says 2,974 records: they are missing (an edited or truncated trace?)",
		"megaKernelCycleTrace.ranks[2] (rank 5) has no events in the trace: its records, if it wrote any, are missing (an edited or truncated trace?)",
	}
	require.Equalf(t, strings.Join(want, "\n"), strings.Join(tr.Missing, "\n"), "Missing = %q, want %q", tr.Missing, want)
	warnings, notes := strings.Join(tr.Sources[0].Warnings, "\n"), strings.Join(tr.Sources[0].Notes, "\n")
	for _, w := range want {
		require.Containsf(t, warnings, w, "warnings, notes %q: among the warnings only", notes)
		assert.NotContainsf(t, notes, w, "warnings, notes %q: among the warnings only", notes)
	}
	res, err := tr.Sources[0].Validate(validate.Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Count(validate.CodeMissingCapture), "missing-capture findings")
	assert.GreaterOrEqual(t, res.Warnings(), 2, "warnings, with the missing-capture findings")

	// A window's invocation without events.
	inv := `"invocations":[{"invocationId":0,"recordCount":1},{"invocationId":1,"recordCount":40}],`
	text = strings.Replace(trace(ev("TaskType_MatMul", `"invocation_id":0`)), `"kernelName"`, inv+`"kernelName"`, 1)
	tr2, err := jsontrace.Read(write(t, "w.json", text), "")
	require.NoError(t, err)
	defer tr2.Close()
	wantMissing := "megaKernelCycleTrace.invocations[1] (invocation 1) has no events in the trace, where its recordCount says 40 records"
	if assert.Len(t, tr2.Missing, 1, "window: Missing") {
		assert.True(t, strings.HasPrefix(tr2.Missing[0], wantMissing), "window: Missing = %q, want %q", tr2.Missing, wantMissing)
	}
}

// TestSniffAfterBOMAndWhitespace: the sniffer (package sniff, which
// every command asks whether a file is a trace) looks past a byte order
// mark and any amount of whitespace (it read 512 bytes), and the first
// key after them may lie anywhere (here across its 512-byte reads).
func TestSniffAfterBOMAndWhitespace(t *testing.T) {
	body := trace(ev("TaskType_MatMul", ""))
	for _, prefix := range []string{"\xef\xbb\xbf", strings.Repeat(" ", 600), "\xef\xbb\xbf" + strings.Repeat("\n", 509), strings.Repeat(" ", 5000)} {
		r, err := sniff.File(write(t, "t.json", prefix+body))
		require.NoErrorf(t, err, "%d bytes of prefix: Sniff", len(prefix))
		assert.Truef(t, r.Kind == sniff.JSON && r.Trace, "%d bytes of prefix: Sniff", len(prefix))
	}
	for _, text := range []string{strings.Repeat(" ", 2000), "\xef\xbb\xbf", strings.Repeat(" ", 600) + "[1]"} {
		r, err := sniff.File(write(t, "t.json", text))
		require.NoErrorf(t, err, "%.10q: Sniff", text)
		assert.Falsef(t, r.Kind == sniff.JSON && r.Trace, "%.10q: Sniff", text)
	}
}

// TestJSONReadAsPython: the trace reads as Python's json module reads it:
// an escaped ph or cat is the string it encodes (the record was dropped
// silently), a key an event holds twice is its last value (the reader
// took the first), megaKernelCycleTrace: null is no metadata (it was
// accepted as an empty one), and a second traceEvents is refused at its
// place (a stream cannot keep only the last; no profiler writes two).
func TestJSONReadAsPython(t *testing.T) {
	escaped := strings.Replace(strings.Replace(ev("TaskType_MatMul", ""), `"cat":"MegaKernelInternal"`, `"cat":"MegaKernel\u0049nternal"`, 1), `"ph":"X"`, `"ph":"\u0058"`, 1)
	// The metadata's recordCount too: 7, then 2 (the last); and
	// "RecordCount" is another key, which encoding/json alone took for it.
	text := strings.Replace(trace(ev("TaskType_MatMul", `"end_cycle":1000,"end_cycle":1200`), escaped), `"recordCount":1`, `"recordCount":7,"recordCount":2,"RecordCount":99`, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	s := tr.Sources[0]
	assert.Equal(t, uint64(2), s.Records)
	null := strings.Replace(trace(ev("TaskType_MatMul", "")), meta1, `"megaKernelCycleTrace":null`, 1)
	_, err = jsontrace.Read(write(t, "n.json", null), "")
	assert.ErrorContains(t, err, "no megaKernelCycleTrace object", "megaKernelCycleTrace null")
	two := strings.Replace(trace(ev("TaskType_MatMul", "")), "{\"traceEvents\":[", "{\"traceEvents\":[],\n\"traceEvents\":[", 1)
	_, err = jsontrace.Read(write(t, "two.json", two), "")
	assert.ErrorContains(t, err, ":2: byte 33: a second traceEvents key", "two traceEvents")
}

// TestRepeatedMetadataKeyReplaces: a key the megaKernelCycleTrace object
// repeats is its last value, as Python reads it: a second
// "recordCapacityPerCore": {"AIV": 4096} states AIV only (refused, as that
// object written once is), where it was merged into the first (AIC 16, AIV
// 4096), and a second cubeSlots replaces the first.
func TestRepeatedMetadataKeyReplaces(t *testing.T) {
	text := strings.Replace(trace(ev("TaskType_MatMul", "")), `"recordCapacityPerCore":{"AIC":16,"AIV":16}`,
		`"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCapacityPerCore":{"AIV":4096}`, 1)
	_, err := jsontrace.Read(write(t, "t.json", text), "")
	assert.ErrorContainsf(t, err, "recordCapacityPerCore states no AIC capacity", "a second recordCapacityPerCore of AIV only: %v, want it refused as AIV only", err)
	once := strings.Replace(trace(ev("TaskType_MatMul", "")), `"recordCapacityPerCore":{"AIC":16,"AIV":16}`, `"recordCapacityPerCore":{"AIV":4096}`, 1)
	_, errOnce := jsontrace.Read(write(t, "once.json", once), "")
	tail := func(err error) string { s := fmt.Sprint(err); return s[strings.LastIndex(s, ".json: ")+1:] }
	require.Errorf(t, err, "repeated: %v; written once: %v; want the same", err, errOnce)
	require.Errorf(t, errOnce, "repeated: %v; written once: %v; want the same", err, errOnce)
	assert.Equalf(t, tail(errOnce), tail(err), "repeated: %v; written once: %v; want the same", err, errOnce)
	text = strings.Replace(trace(ev("TaskType_MatMul", "")), `"recordCapacityPerCore":{"AIC":16,"AIV":16}`,
		`"recordCapacityPerCore":{"AIC":32},"recordCapacityPerCore":{"AIC":16,"AIV":16},"cubeSlots":30,"cubeSlots":24`, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	l := tr.Sources[0].Layout
	assert.Equalf(t, uint32(24), l.CubeSlots, "layout cube slots, %+v; want the last keys' 24 and AIC 16, AIV 16", l.Capacities)
	assert.Equalf(t, uint32(16), l.Capacities.AIC, "layout cube slots, %+v; want the last keys' 24 and AIC 16, AIV 16", l.Capacities)
	assert.Equalf(t, uint32(16), l.Capacities.AIV, "layout cube slots, %+v; want the last keys' 24 and AIC 16, AIV 16", l.Capacities)
}

// TestBufferBytesContradictingLayoutIsRefused: a profileBufferBytes that
// is not the size of the layout its cubeSlots and recordCapacityPerCore
// state is refused, naming all three (it was ignored: the trace says two
// things and one was taken silently).
func TestBufferBytesContradictingLayoutIsRefused(t *testing.T) {
	for _, c := range []struct {
		slots string
		ok    bool
	}{{`"cubeSlots":24,`, true}, {`"cubeSlots":25,`, false}, {"", true}} {
		text := strings.Replace(trace(ev("TaskType_MatMul", "")), `"recordCount":1,`, c.slots+`"recordCount":1,`, 1)
		tr, err := jsontrace.Read(write(t, "t.json", text), "")
		if c.ok {
			if err != nil {
				assert.Fail(t, fmt.Sprintf("%s: %v", c.slots, err))
			} else {
				tr.Close()
			}
			continue
		}
		want := "profileBufferBytes " + bufBytes + " contradicts cubeSlots 25 at the stated capacities (recordCapacityPerCore), whose buffer is 43200 bytes"
		assert.ErrorContainsf(t, err, want, "%s: %v, want %q", c.slots, err, want)
	}
}

// TestFrequencyRange: a cycleFrequencyMHz outside 0.001 to 1e6 MHz is
// refused at the metadata, naming it (1e-300 was taken: decode and export
// then failed with exit 2, analyze printed times of 300 digits).
func TestFrequencyRange(t *testing.T) {
	for _, f := range []string{"1e-300", "0.0009", "0", "-50", "1000001", "1e308"} {
		text := strings.Replace(trace(ev("TaskType_MatMul", "")), `"cycleFrequencyMHz":50.0`, `"cycleFrequencyMHz":`+f, 1)
		_, err := jsontrace.Read(write(t, "t.json", text), "")
		want := ":4: byte 333: megaKernelCycleTrace.cycleFrequencyMHz "
		require.ErrorContainsf(t, err, want, "%s MHz", f)
		assert.Containsf(t, err.Error(), "is not a system-counter frequency (0.001 to 1e+06 MHz)", "%s MHz", f)
	}
	for _, f := range []string{"0.001", "50", "1e6"} {
		text := strings.Replace(trace(ev("TaskType_MatMul", "")), `"cycleFrequencyMHz":50.0`, `"cycleFrequencyMHz":`+f, 1)
		tr, err := jsontrace.Read(write(t, "t.json", text), "")
		if !assert.NoErrorf(t, err, "%s MHz", f) {
			continue
		}
		tr.Close()
	}
}

// TestMissingCoreIsSaid: a core a thread_name event names (the writers
// name the threads of the cores with records only) with no record event
// is named, where the metadata states no recordCount to catch it: every
// event of a core could vanish silently.
func TestMissingCoreIsSaid(t *testing.T) {
	thread := func(pid int, name string) string {
		return fmt.Sprintf(`{"name":"thread_name","ph":"M","pid":%d,"tid":7,"args":{"name":%q}}`, pid, name)
	}
	text := trace(thread(0, "AIV/3"), thread(0, "AIC/9"), thread(1, "AIV/3"), thread(0, "not a core"), ev("TaskType_MatMul", ""))
	text = strings.Replace(text, `"recordCount":1,`, ``, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	want := []string{
		"core AIC/9 of rank 0 has a thread_name event (line 3, byte 90) and no record events: its records are missing (an edited or truncated trace?)",
		"core AIV/3 of rank 1 has a thread_name event (line 4, byte 163) and no record events: its records are missing (an edited or truncated trace?)",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(tr.Missing, "\n"), "Missing")
}
