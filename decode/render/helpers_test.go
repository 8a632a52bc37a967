package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

// mustDecode decodes an in-memory capture.
func mustDecode(name string, buf []byte, o capture.Request) (*decode.Decoded, error) {
	c, err := capture.FromBytes(name, buf)
	if err != nil {
		return nil, err
	}
	return decode.Decode(c, o)
}

// traceOf writes the trace of inputs to memory.
func traceOf(inputs ...Input) ([]byte, error) {
	var out bytes.Buffer
	err := WriteTrace(&out, inputs, WriteOptions{})
	return out.Bytes(), err
}

// defaultConfig is what `cycleabi decode` uses without flags.
func defaultConfig() Config {
	return Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel", OwnerLabel: "Owner"}
}

type traceFile struct {
	TraceEvents          []traceEvent   `json:"traceEvents"`
	MegaKernelCycleTrace map[string]any `json:"megaKernelCycleTrace"`
	Metadata             map[string]any `json:"metadata"`
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Pid  json.Number    `json:"pid"`
	Tid  json.Number    `json:"tid"`
	Ts   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur"`
	Args map[string]any `json:"args"`
}

// parseTrace parses a trace with encoding/json, numbers kept as written.
func parseTrace(b []byte) (*traceFile, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.DisallowUnknownFields()
	var f traceFile
	if err := d.Decode(&f); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the trace object")
	}
	return &f, nil
}

var (
	nonNegativeInt = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	micros         = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]{0,2}[1-9])?$`)
)

// checkPerfetto enforces what Perfetto's JSON importer needs:
// "traceEvents" is the first key; every event has a string ph and
// non-negative integer pid and tid; X events have ts and dur as plain
// decimals with at most three fractional digits (no exponent, no trailing
// zeros), dur >= 0.
func checkPerfetto(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("trace does not start with an object: %v %v", tok, err)
	}
	if tok, err := d.Token(); err != nil || tok != "traceEvents" {
		return fmt.Errorf(`first key is %v, want "traceEvents" (%v)`, tok, err)
	}
	var events []map[string]json.RawMessage
	if err := d.Decode(&events); err != nil {
		return err
	}
	for i, e := range events {
		var ph string
		if err := json.Unmarshal(e["ph"], &ph); err != nil {
			return fmt.Errorf("event %d: ph %s: %v", i, e["ph"], err)
		}
		for _, k := range []string{"pid", "tid"} {
			if !nonNegativeInt.Match(e[k]) {
				return fmt.Errorf("event %d: %s %s is not a non-negative integer", i, k, e[k])
			}
		}
		if ph != "X" {
			continue
		}
		for _, k := range []string{"ts", "dur"} {
			if !micros.Match(e[k]) {
				return fmt.Errorf("event %d: %s %s is not a plain decimal with at most 3 fractional digits", i, k, e[k])
			}
		}
		if e["dur"][0] == '-' {
			return fmt.Errorf("event %d: negative dur %s", i, e["dur"])
		}
	}
	return nil
}

// liveRecord is a record as the reference decoder collects it.
type liveRecord struct {
	abi.ProfileRecord
	Slot  abi.Slot
	Index int
	Entry uint64
}

// scanRecords lists every live record in slot and record order (the
// order of the reference decoder's list, before its sort).
func scanRecords(d *decode.Decoded) ([]liveRecord, error) {
	var recs []liveRecord
	_, err := d.Capture.Scan(d.Summary.Layout, capture.ScanOptions{
		Record: func(s *capture.SlotScan, index int, _ int64, r *abi.ProfileRecord) {
			recs = append(recs, liveRecord{ProfileRecord: *r, Slot: s.Slot, Index: index, Entry: s.Header.EntryCycle})
		},
	})
	return recs, err
}

// genCapture is a random valid capture and what went into it.
type genCapture struct {
	b       *capturetest.Builder
	opts    capture.Request
	records int    // live records
	dropped uint64 // records the slots could not hold
	names   *kernelnames.Names
}

// descPool covers every naming rule: runtime stages (prefixed or not,
// named or not), task types named and unnamed, graph stages, ids outside
// every namespace.
var descPool = []uint32{
	abi.RuntimeStageWaitDependency, abi.RuntimeStageTriggerEvent, abi.RuntimeStageTerminateTask, abi.RuntimeStageBase + 1,
	abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), abi.TaskTypeBase + uint32(abi.TaskTypeSwiGLU), abi.TaskTypeBase + 250,
	abi.GraphStageBase, abi.GraphStageBase + 1, abi.GraphStageBase + 5, abi.GraphStageBase + 0xFFFF,
	0, 7, 0x40000, 0xFFFFFFFF,
}

// drawCapture draws a valid capture: random slots entered, each writing a
// random number of records (some past capacity, dropped), in start order
// or not; entry cycles sometimes 0.
func drawCapture(t *rapid.T) genCapture {
	cube := uint32(rapid.IntRange(abi.MinCubeSlots, abi.MinCubeSlots+2).Draw(t, "cubeSlots"))
	regions := abi.Regions()
	var caps abi.Capacities
	total := uint32(0)
	for _, r := range regions {
		c := uint32(16 * rapid.IntRange(0, 3).Draw(t, strings.ToLower(r.CoreType.String())+"16"))
		caps.Set(r.CoreType, c)
		total += c
	}
	if total == 0 {
		caps.Set(regions[len(regions)-1].CoreType, 16)
	}
	g := genCapture{b: capturetest.NewWith(cube, caps)}
	l := g.b.Layout
	if rapid.Bool().Draw(t, "planned") {
		g.opts = capture.Request{CubeSlots: cube, Capacities: &l.Capacities}
	} else {
		// Capacities come from each region's slot 0, so every one must be entered.
		g.opts = capture.Request{CubeSlots: cube}
		for _, r := range regions {
			g.b.Enter(r.CoreType, 0, rapid.Uint64Range(0, 1e6).Draw(t, "entry"+r.CoreType.String()+"0"))
		}
	}
	bigCycles := rapid.Bool().Draw(t, "bigCycles")
	for i := range l.NumSlots() {
		s := l.Slot(i)
		entered := s.BlockID == 0 && g.opts.Capacities == nil
		// Most slots stay unused (and cheap to draw).
		if !entered && rapid.IntRange(0, 9).Draw(t, "use") > 2 {
			continue
		}
		if !entered {
			entry := rapid.Uint64Range(0, 1e6).Draw(t, "entry")
			if rapid.IntRange(0, 5).Draw(t, "zeroEntry") == 0 {
				entry = 0
			}
			g.b.Enter(s.CoreType, s.BlockID, entry)
		}
		n := rapid.IntRange(0, int(s.Capacity)+3).Draw(t, "n")
		sorted := rapid.Bool().Draw(t, "sorted")
		start := rapid.Uint64Range(0, 2e6).Draw(t, "start0")
		for range n {
			if sorted {
				start += rapid.Uint64Range(0, 300).Draw(t, "gap")
			} else {
				start = rapid.Uint64Range(0, 2e6).Draw(t, "start")
			}
			if bigCycles {
				start = rapid.Uint64Range(0, 1<<63).Draw(t, "bigStart")
			}
			r := abi.ProfileRecord{
				StartCycle:     start,
				EndCycle:       start + rapid.Uint64Range(0, 5000).Draw(t, "dur"),
				DescID:         rapid.SampledFrom(descPool).Draw(t, "desc"),
				TaskID:         rapid.SampledFrom([]uint32{0, 1, 2, 3, 6, 0xFFFFFFF0}).Draw(t, "task"),
				StageTaskIndex: rapid.SampledFrom([]uint32{0, 1, 41, 0xFFFFFFFF}).Draw(t, "index"),
				OwnerID:        rapid.SampledFrom([]uint32{abi.InvalidOwnerID, 0, 3, 0xFFFFFFFE}).Draw(t, "owner"),
			}
			g.b.Write(s.CoreType, s.BlockID, r)
		}
		g.records += min(n, int(s.Capacity))
		g.dropped += uint64(max(0, n-int(s.Capacity)))
	}
	if g.records == 0 {
		// At least one record, on a slot that has room.
		for i := range l.NumSlots() {
			if s := l.Slot(i); s.Capacity > 0 {
				if !(s.BlockID == 0 && g.opts.Capacities == nil) {
					g.b.Enter(s.CoreType, s.BlockID, 500)
				}
				g.b.Span(s.CoreType, s.BlockID, 1000, 1010, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
				g.records++
				break
			}
		}
	}
	tasks := map[uint32]string{1: "Gate", 2: "Combine\u00e9"}
	if rapid.Bool().Draw(t, "sparseTasks") {
		// Far-apart task ids: the writer's sparse lookup.
		tasks[0xFFFFFFF0] = "Far"
	}
	g.names = &kernelnames.Names{
		Stages: map[uint32]string{abi.GraphStageBase + 1: "Dispatch", abi.RuntimeStageTerminateTask: "Shut\"down"},
		Tasks:  kernelnames.TaskNamesOf(tasks),
	}
	if rapid.Bool().Draw(t, "noNames") {
		g.names = nil
	}
	return g
}

// xEvents returns the X events of a parsed trace.
func xEvents(f *traceFile) []traceEvent {
	var out []traceEvent
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			out = append(out, e)
		}
	}
	return out
}

func inf() float64 { return math.Inf(1) }
func nan() float64 { return math.NaN() }
