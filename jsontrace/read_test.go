package jsontrace_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/sniff"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ev is a record event as the reference decoder writes it, with args
// replaced or added by extra ("key":value pairs) and removed by drop.
func ev(name string, extra string, drop ...string) string {
	args := map[string]string{
		"rank": "0", "device_id": "0", "core_type": `"AIV"`, "block_id": "3", "task_id": "7", "desc_id": "131175",
		"stage_task_index": "0", "task_number": "1", "start_cycle": "1100", "end_cycle": "1200", "core_entry_cycle": "1000",
	}
	order := []string{"rank", "device_id", "core_type", "block_id", "task_id", "desc_id", "stage_task_index", "task_number", "start_cycle", "end_cycle", "core_entry_cycle"}
	var parts []string
	for _, k := range order {
		skip := false
		for _, d := range drop {
			skip = skip || d == k
		}
		if !skip && !strings.Contains(extra, `"`+k+`":`) {
			parts = append(parts, `"`+k+`":`+args[k])
		}
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	return `{"name":"` + name + `","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2003,"ts":2.0,"dur":2.0,"args":{` + strings.Join(parts, ",") + `}}`
}

const meta1 = `"megaKernelCycleTrace":{"schemaVersion":1,"rank":0,"deviceId":0,"socName":"ascend910b","cycleFrequencyMHz":50.0,"anchorCycle":1000,"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCount":1,"droppedRecordCount":2,"profileBufferBytes":` + bufBytes + `,"detailedTaskNames":false,"kernelName":"MegaMoe","ownerLabel":"Owner"}`

// bufBytes is the buffer of 24 cube slots at capacity 16: 24·(64+512) +
// 48·(64+512).
const bufBytes = "41472"

func trace(events ...string) string {
	return "{\"traceEvents\":[\n" + strings.Join(events, ",\n") + "\n],\n" + meta1 + "}"
}

func write(t *testing.T, name, text string) string {
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// TestReadOne reads one record back with the metadata's layout, dropped
// count, frequency and kernel name, and the names its event carries.
func TestReadOne(t *testing.T) {
	text := trace(
		`{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"MegaMoe rank 0 device 0"}}`,
		ev("Combine_WaitDependency", `"desc_id":65536,"task_stage":"Combine","owner_id":4`))
	p := write(t, "t.json", text)
	tr, err := jsontrace.Read(p, "")
	require.NoError(t, err)
	defer tr.Close()
	require.Len(t, tr.Sources, 1)
	s := tr.Sources[0]
	require.Equalf(t, uint64(1), s.Records, "source %+v", s)
	require.Equalf(t, uint64(2), s.Dropped, "source %+v", s)
	require.Equalf(t, float64(50), s.FrequencyMHz, "source %+v", s)
	require.Equalf(t, "MegaMoe", s.KernelName, "source %+v", s)
	require.Equalf(t, uint32(24), s.Layout.CubeSlots, "source %+v", s)
	require.Equalf(t, uint32(16), s.Layout.Capacities.AIV, "source %+v", s)
	require.NotNil(t, s.Names, "names: want task 7 Combine")
	stage, _ := s.Names.TaskStage(7)
	require.Equal(t, "Combine", stage, "names %+v: task 7's stage", s.Names)
	require.Equal(t, 1, s.Names.Tasks.Len(), "names %+v: task names", s.Names)
	require.Empty(t, s.Names.Stages, "names %+v: no stage name (WaitDependency is the schema's)", s.Names)
	d, err := s.Decode()
	require.NoError(t, err)
	require.Equal(t, uint64(1), d.Summary.Records, "summary %+v: records", d.Summary)
	require.Equal(t, uint64(2), d.Summary.Dropped, "summary %+v: dropped", d.Summary)
	require.Equal(t, uint64(1000), d.Summary.Anchor, "summary %+v: anchor", d.Summary)
	require.Len(t, d.Summary.Active, 1, "summary %+v: active slots", d.Summary)
	require.Equal(t, "AIV/3", d.Summary.Active[0].Slot.String(), "summary %+v: the active slot", d.Summary)
	var n int
	d.Records(func(r decode.Record) bool {
		n++
		require.Equalf(t, uint64(1100), r.StartCycle, "record %+v", r)
		require.Equalf(t, uint64(1200), r.EndCycle, "record %+v", r)
		require.Equalf(t, uint32(65536), r.DescID, "record %+v", r)
		require.Equalf(t, uint32(7), r.TaskID, "record %+v", r)
		require.Equalf(t, uint32(4), r.OwnerID, "record %+v", r)
		require.Equalf(t, uint64(1000), r.EntryCycle, "record %+v", r)
		return true
	})
	require.Equal(t, 1, n)
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"wrote none", "dropped count", "dropped 2 records"} {
		assert.Contains(t, notes, want, "notes")
	}
	want := int64(strings.Index(text, `{"name":"Combine_WaitDependency"`))
	off, ok := s.EventOffset(int64(s.Layout.SlotOffset(d.Summary.Active[0].Slot.CoreType, 3) + 64))
	require.Truef(t, ok, "EventOffset, %v", ok)
	require.Equalf(t, want, off, "EventOffset, %v", ok)
}

// TestGzipAndSniff: a gzip trace reads as the plain one; Sniff tells
// traces by content, not name.
func TestGzipAndSniff(t *testing.T) {
	text := trace(ev("TaskType_MatMul", ""))
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(text))
	w.Close()
	gz := write(t, "trace.bin", z.String()) // the name says nothing
	tr, err := jsontrace.Read(gz, "")
	require.NoError(t, err)
	tr.Close()
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"plain.json", text, true},
		{"gz.bin", z.String(), true},
		{"meta-first.json", "  {\"megaKernelCycleTrace\":{}}", true},
		{"report.json", `{"abi_version": 1, "ranks": []}`, false},
		{"capture.json", "\x00\x00\x00\x00{\"traceEvents\"", false},
		{"schedule.yaml", "num_workers: 4\n", false},
		{"empty.json", "", false},
	} {
		r, err := sniff.File(write(t, c.name, c.text))
		require.NoErrorf(t, err, "sniff.File(%s): a trace", c.name)
		assert.Equalf(t, c.want, r.Kind == sniff.JSON && r.Trace, "sniff.File(%s): a trace", c.name)
	}
}

// TestErrors: a trace that cannot be read back is an *Error naming the
// file, and the line and byte offset of the event at fault where there
// is one.
func TestErrors(t *testing.T) {
	good := ev("TaskType_MatMul", "")
	for _, c := range []struct {
		name, text, want string
		line             int
	}{
		{"not json", "{\"traceEvents\":[\n" + good + ",\n{oops}]}", `expected an object key, found 'o'`, 3},
		{"not an object", `["traceEvents"]`, "a MegaKernel trace is a JSON object", 1},
		{"no metadata", `{"traceEvents":[` + good + `]}`, "no megaKernelCycleTrace object", 0},
		{"no events", trace(), "no MegaKernel record events", 0},
		{"missing arg", trace(ev("X", "", "end_cycle")), "without args.end_cycle", 2},
		{"bad arg", trace(ev("X", `"start_cycle":-1`)), "args.start_cycle is -1, expected a non-negative integer", 2},
		{"too big", trace(ev("X", `"desc_id":4294967296`)), "args.desc_id 4294967296 does not fit", 2},
		{"end before start", trace(ev("X", `"end_cycle":1000`)), "args.end_cycle 1000 is before args.start_cycle 1100", 2},
		{"core type", trace(ev("X", `"core_type":"NPU"`)), `args.core_type is "NPU"`, 2},
		{"two entries", trace(good, ev("X", `"core_entry_cycle":999`)), "args.core_entry_cycle 999 of AIV/3, where its events before say 1000", 3},
		{"two stages", trace(ev("X", `"task_stage":"A"`), ev("X", `"task_stage":"B"`)), `args.task_stage "B" of task 7, where its events before say "A"`, 3},
		{"count", strings.Replace(trace(good, good), `"recordCount":1`, `"recordCount":1`, 1), "the metadata says 1 records, the trace holds 2", 0},
		{"capacity", strings.Replace(trace(good), `"AIV":16`, `"AIV":0`, 1), "AIV/3 has 1 record events, more than its capacity 0", 2},
		{"buffer", strings.Replace(trace(good), bufBytes, "41473", 1), "profileBufferBytes 41473 is no whole number of cube slots", 0},
		{"huge", strings.Replace(strings.Replace(trace(good), `"AIV":16`, `"AIV":134217712`, 1), `"profileBufferBytes":`+bufBytes, `"cubeSlots":4096`, 1), "need 43,980,463,472,640 bytes of scratch, more than the 1,099,511,627,776", 0},
		// Under 1 TiB of buffer, over it with the event offsets: the
		// message named the buffer only ("879611346944 bytes ... more
		// than the 1099511627776").
		{"huge with offsets", strings.Replace(strings.Replace(trace(good), `"AIV":16`, `"AIV":3355440`, 1), `"profileBufferBytes":`+bufBytes, `"cubeSlots":4096`, 1), "its stated layout (879,611,346,944 bytes, and 219,902,836,736 bytes of event offsets) and those before it need 1,099,514,183,680 bytes of scratch, more than the 1,099,511,627,776 cycleabi rebuilds captures in", 0},
		{"schema", strings.Replace(trace(good), `"schemaVersion":1`, `"schemaVersion":2`, 1), "schemaVersion 2 is not one this build reads", 0},
		{"other rank", trace(ev("X", `"rank":3`)), "events of rank 3, which megaKernelCycleTrace does not describe", 2},
		{"invocation", trace(ev("X", `"invocation_id":0`)), "events of invocation 0 of rank 0, which megaKernelCycleTrace.invocations does not list", 2},
		{"window without ids", strings.Replace(trace(good), `"kernelName"`, `"invocations":[{"invocationId":0}],"kernelName"`, 1), "without args.invocation_id in a window", 2},
		{"step", trace(ev("X", `"invocation_id":0,"step":"x"`)), `args.step is "x"`, 2},
		{"truncated", trace(good)[:60], "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, "t.json", c.text)
			tr, err := jsontrace.Read(p, "")
			if err == nil {
				tr.Close()
				require.FailNow(t, "no error")
			}
			var e *jsontrace.Error
			require.ErrorAsf(t, err, &e, "%T %v: not a *jsontrace.Error", err, err)
			require.Equal(t, p, e.File, "error %v: the file", err)
			require.Contains(t, e.Msg, c.want, "error %v", err)
			if c.line != 0 {
				require.Equal(t, c.line, e.Line, "error %v: the line", err)
			}
			require.Falsef(t, c.line != 0 && !strings.Contains(err.Error(), "byte "), "error %v names no byte offset", err)
		})
	}
}

// TestValidatePointsAtEvents: validate's finding about a record names the
// byte offset of the record's event in the trace, and the trace's dropped
// count is a dropped-total warning.
func TestValidatePointsAtEvents(t *testing.T) {
	second := ev("TaskType_MatMul", `"start_cycle":1150,"end_cycle":1250`)
	text := strings.Replace(trace(ev("TaskType_MatMul", ""), second), `"recordCount":1`, `"recordCount":2`, 1)
	tr, err := jsontrace.Read(write(t, "t.json", text), "")
	require.NoError(t, err)
	defer tr.Close()
	res, err := tr.Sources[0].Validate(validate.Options{})
	require.NoError(t, err)
	var codes []string
	for _, f := range res.Findings {
		codes = append(codes, string(f.Code))
		switch f.Code {
		case validate.CodeOverlap:
			assert.Equal(t, int64(strings.Index(text, second)), f.Off, "overlap at")
			assert.Equal(t, 1, f.Record, "overlap at")
			assert.Equal(t, "AIV/3", f.Slot, "overlap at")
		case validate.CodeDroppedTotal:
			assert.Contains(t, f.Message(), "2 records dropped", "dropped-total")
		}
	}
	require.Contains(t, codes, string(validate.CodeOverlap), "findings")
	require.Contains(t, codes, string(validate.CodeDroppedTotal), "findings")
	require.Equal(t, uint64(2), res.Dropped, "dropped")
}

// TestDataAfterTheTrace: text after the trace's object is an error at its
// byte, as merge reports it.
func TestDataAfterTheTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	text := "{\"traceEvents\":[]}\n x"
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	_, err := jsontrace.Read(path, t.TempDir())
	want := fmt.Sprintf("%s:2: byte %d: data after the trace object: 'x'", path, len(text)-1)
	assert.EqualErrorf(t, err, want, "error %v, want %s", err, want)
}
