package chromejson_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordBytes is the size of one record's description in FuzzTraceWriter's
// input: a slot selector, start_cycle, a duration, desc_id, task_id,
// stage_task_index and owner_id.
const recordBytes = 1 + 8 + 4 + 4*4

// maxTraceRecords bounds the records FuzzTraceWriter writes.
const maxTraceRecords = 2000

// traceCapture writes a valid capture (24 cube slots, 16 records per slot)
// holding the records described by spec, through the Go mirror of the
// device writer: records past a slot's capacity are dropped as on the
// device. It always holds at least one record.
func traceCapture(spec []byte) *capturetest.Builder {
	const cube, capacity = abi.MinCubeSlots, 16
	b := capturetest.NewWith(cube, abi.SameCapacities(capacity))
	entered := map[abi.Slot]bool{}
	for len(spec) >= recordBytes {
		rec := spec[:recordBytes]
		spec = spec[recordBytes:]
		s := b.Layout.Slot(int(rec[0]) % b.Layout.NumSlots())
		start := binary.LittleEndian.Uint64(rec[1:])
		end := start + uint64(binary.LittleEndian.Uint32(rec[9:]))
		if end < start {
			end = math.MaxUint64
		}
		if !entered[s] {
			entered[s] = true
			b.Enter(s.CoreType, s.BlockID, start/2)
		}
		b.Write(s.CoreType, s.BlockID, abi.ProfileRecord{
			StartCycle: start, EndCycle: end,
			DescID: binary.LittleEndian.Uint32(rec[13:]), TaskID: binary.LittleEndian.Uint32(rec[17:]),
			StageTaskIndex: binary.LittleEndian.Uint32(rec[21:]), OwnerID: binary.LittleEndian.Uint32(rec[25:]),
		})
	}
	if len(entered) == 0 {
		b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 2, 3, abi.TaskTypeBase, 0)
	}
	return b
}

// FuzzTraceWriter writes the trace of a valid capture built from the input
// with an arbitrary names file, kernel name, owner label and configuration.
// Write refuses exactly the frequencies that are not positive and
// finite, or so low that 2^64-1 cycles overflow a float64 of microseconds;
// otherwise its output is valid UTF-8 and parses as JSON, with one
// X event per live record, in trace order, each named as Names.EventName
// says, and the configuration's kernel name and rank in the metadata.
func FuzzTraceWriter(f *testing.F) {
	rec := func(slot byte, start uint64, dur, desc, task, index, owner uint32) []byte {
		b := []byte{slot}
		b = binary.LittleEndian.AppendUint64(b, start)
		for _, v := range []uint32{dur, desc, task, index, owner} {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	spec := append(append(append(
		rec(0, 1000, 50, abi.RuntimeStageWaitDependency, 7, 0, abi.InvalidOwnerID),
		rec(0, 1050, 500, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 7, 0, 3)...),
		rec(30, 999, 0, abi.GraphStageBase+2, 8, 1, 0)...),
		rec(71, math.MaxUint64-10, 100, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)...)
	names := []byte("stages:\n  0x10001: Prefetch\ngraph_stages:\n  2: \"Dispatch \\\"quoted\\\"\"\ntasks:\n  7: Expert\\u00e9\n")
	f.Add(spec, names, "MegaKernel", "Owner", false, uint32(0), uint32(0), 50.0)
	f.Add(spec, names, "kernel \"x\"\n\t\x00\u2028", "Ö\\", true, uint32(3), uint32(7), 1000.0)
	f.Add(spec, []byte("{}"), "k\xff\xfe", "o\xc3", true, uint32(math.MaxUint32), uint32(1), 1e-300)
	f.Add([]byte{}, []byte("tasks: {0: T}"), "", "", true, uint32(1), uint32(1), 0.0)
	f.Add(spec, []byte(nil), "k", "o", false, uint32(0), uint32(0), math.Inf(1))
	f.Fuzz(func(t *testing.T, spec, namesFile []byte, kernel, owner string, detailed bool, rank, device uint32, mhz float64) {
		if len(spec) > maxTraceRecords*recordBytes || len(namesFile) > 1<<16 || len(kernel)+len(owner) > 1<<12 {
			return
		}
		b := traceCapture(spec)
		c, err := capture.FromBytes("fuzz.bin", b.Bytes())
		require.NoError(t, err)
		d, err := decode.Decode(c, capture.Request{Capacities: &b.Layout.Capacities})
		require.NoError(t, err, "a capture written by the writer does not decode")
		names, err := kernelnames.Parse("names.yaml", namesFile)
		if err != nil {
			names = nil
		}
		cfg := render.Config{Rank: rank, DeviceID: device, SoCName: "ascend910b", FrequencyMHz: mhz,
			DetailedNames: detailed, KernelName: kernel, OwnerLabel: owner, Names: names}
		var out bytes.Buffer
		err = chromejson.Write(&out, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{Parallel: 1})
		// A frequency must be positive and finite, and high enough that
		// 2^64-1 cycles are a finite number of microseconds.
		if valid := mhz > 0 && !math.IsInf(mhz, 0) && !math.IsInf(math.MaxUint64/mhz, 0); !valid {
			require.Errorf(t, err, "Write accepted frequency %v MHz", mhz)
			return
		}
		require.NoError(t, err, "Write")
		checkTraceJSON(t, out.Bytes(), d, cfg)
	})
}

// checkTraceJSON parses a trace and checks it against the decoded capture
// and the configuration it was written with.
func checkTraceJSON(t *testing.T, trace []byte, d *decode.Decoded, cfg render.Config) {
	t.Helper()
	require.True(t, utf8.Valid(trace), "the trace is not valid UTF-8")
	var doc struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Pid  json.Number     `json:"pid"`
			Ts   json.Number     `json:"ts"`
			Dur  json.Number     `json:"dur"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
		Meta struct {
			KernelName  string      `json:"kernelName"`
			Rank        json.Number `json:"rank"`
			RecordCount json.Number `json:"recordCount"`
		} `json:"megaKernelCycleTrace"`
	}
	dec := json.NewDecoder(bytes.NewReader(trace))
	dec.UseNumber()
	require.NoErrorf(t, dec.Decode(&doc), "the trace is not JSON\n%.3000s", trace)
	validNames := utf8.ValidString(cfg.KernelName) && utf8.ValidString(cfg.OwnerLabel) && namesValid(cfg.Names)
	assert.Falsef(t, validNames && doc.Meta.KernelName != cfg.KernelName, "kernelName %q, want %q", doc.Meta.KernelName, cfg.KernelName)
	assert.Equal(t, itoa(uint64(cfg.Rank)), doc.Meta.Rank.String(), "rank")
	assert.Equal(t, itoa(d.Summary.Records), doc.Meta.RecordCount.String(), "recordCount")
	var xs []int
	for i, e := range doc.TraceEvents {
		if e.Ph == "X" {
			xs = append(xs, i)
		}
		for _, n := range []json.Number{e.Ts, e.Dur} {
			if n == "" {
				continue
			}
			_, err := n.Float64()
			assert.NoErrorf(t, err, "event %d: %s is not a finite number", i, n)
		}
	}
	require.Equalf(t, d.Summary.Records, uint64(len(xs)), "%d X events for", len(xs))
	i := 0
	err := d.Records(func(r decode.Record) bool {
		e := doc.TraceEvents[xs[i]]
		i++
		if validNames {
			assert.Equalf(t, cfg.Names.EventName(&r.ProfileRecord, cfg.DetailedNames, cfg.OwnerLabel), e.Name, "X event %d named", i-1)
		}
		assert.Equalf(t, itoa(uint64(cfg.Rank)), e.Pid.String(), "X event %d pid %s, want %d", i-1, e.Pid, cfg.Rank)
		return true
	})
	require.NoError(t, err)
}

// namesValid reports whether every name of n is valid UTF-8 (the trace
// can only carry those exactly).
func namesValid(n *kernelnames.Names) bool {
	if n == nil {
		return true
	}
	for _, m := range []map[uint32]string{n.Stages, maps.Collect(n.Tasks.All())} {
		for _, s := range m {
			if !utf8.ValidString(s) {
				return false
			}
		}
	}
	return true
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
