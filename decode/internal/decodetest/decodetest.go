// Package decodetest holds what the tests of the trace writers
// (decode/render, decode/perfetto) share: random captures under every
// naming rule, decoding from memory, the reference decoder's reading of a
// capture, a JSON trace read back, the benchmark captures. It imports no
// writer, so that the writers' own tests can import it.
package decodetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"pgregory.net/rapid"
)

// Decode decodes an in-memory capture.
func Decode(name string, buf []byte, o capture.Request) (*decode.Decoded, error) {
	c, err := capture.FromBytes(name, buf)
	if err != nil {
		return nil, err
	}
	return decode.Decode(c, o)
}

// Trace is a Chrome trace as the JSON writer writes it.
type Trace struct {
	TraceEvents          []Event        `json:"traceEvents"`
	MegaKernelCycleTrace map[string]any `json:"megaKernelCycleTrace"`
	Metadata             map[string]any `json:"metadata"`
}

// Event is one of a Trace's events, numbers as written.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Pid  json.Number    `json:"pid"`
	Tid  json.Number    `json:"tid"`
	Ts   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur"`
	Args map[string]any `json:"args"`
}

// ParseTrace parses a trace with encoding/json, numbers kept as written.
func ParseTrace(b []byte) (*Trace, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.DisallowUnknownFields()
	var f Trace
	if err := d.Decode(&f); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the trace object")
	}
	return &f, nil
}

// XEvents returns the X events of a parsed trace.
func XEvents(f *Trace) []Event {
	var out []Event
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			out = append(out, e)
		}
	}
	return out
}

// LiveRecord is a record as the reference decoder collects it.
type LiveRecord struct {
	abi.ProfileRecord
	Slot  abi.Slot
	Index int
	Entry uint64
}

// ScanRecords lists every live record in slot and record order (the
// order of the reference decoder's list, before its sort).
func ScanRecords(d *decode.Decoded) ([]LiveRecord, error) {
	var recs []LiveRecord
	_, err := d.Capture.Scan(d.Summary.Layout, capture.ScanOptions{
		Record: func(s *capture.SlotScan, index int, _ int64, r *abi.ProfileRecord) {
			recs = append(recs, LiveRecord{ProfileRecord: *r, Slot: s.Slot, Index: index, Entry: s.Header.EntryCycle})
		},
	})
	return recs, err
}

// Capture is a random valid capture and what went into it.
type Capture struct {
	B       *capturetest.Builder
	Opts    capture.Request
	Records int    // live records
	Dropped uint64 // records the slots could not hold
	Names   *kernelnames.Names
}

// DescPool covers every naming rule: runtime stages (prefixed or not,
// named or not), task types named and unnamed, graph stages, ids outside
// every namespace.
var DescPool = []uint32{
	abi.RuntimeStageWaitDependency, abi.RuntimeStageTriggerEvent, abi.RuntimeStageTerminateTask, abi.RuntimeStageBase + 1,
	abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), abi.TaskTypeBase + uint32(abi.TaskTypeSwiGLU), abi.TaskTypeBase + 250,
	abi.GraphStageBase, abi.GraphStageBase + 1, abi.GraphStageBase + 5, abi.GraphStageBase + 0xFFFF,
	0, 7, 0x40000, 0xFFFFFFFF,
}

// DrawCapture draws a valid capture: random slots entered, each writing a
// random number of records (some past capacity, dropped), in start order
// or not; entry cycles sometimes 0.
func DrawCapture(t *rapid.T) Capture {
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
	g := Capture{B: capturetest.NewWith(cube, caps)}
	l := g.B.Layout
	if rapid.Bool().Draw(t, "planned") {
		g.Opts = capture.Request{CubeSlots: cube, Capacities: &l.Capacities}
	} else {
		// Capacities come from each region's slot 0, so every one must be entered.
		g.Opts = capture.Request{CubeSlots: cube}
		for _, r := range regions {
			g.B.Enter(r.CoreType, 0, rapid.Uint64Range(0, 1e6).Draw(t, "entry"+r.CoreType.String()+"0"))
		}
	}
	bigCycles := rapid.Bool().Draw(t, "bigCycles")
	for i := range l.NumSlots() {
		s := l.Slot(i)
		entered := s.BlockID == 0 && g.Opts.Capacities == nil
		// Most slots stay unused (and cheap to draw).
		if !entered && rapid.IntRange(0, 9).Draw(t, "use") > 2 {
			continue
		}
		if !entered {
			entry := rapid.Uint64Range(0, 1e6).Draw(t, "entry")
			if rapid.IntRange(0, 5).Draw(t, "zeroEntry") == 0 {
				entry = 0
			}
			g.B.Enter(s.CoreType, s.BlockID, entry)
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
				DescID:         rapid.SampledFrom(DescPool).Draw(t, "desc"),
				TaskID:         rapid.SampledFrom([]uint32{0, 1, 2, 3, 6, 0xFFFFFFF0}).Draw(t, "task"),
				StageTaskIndex: rapid.SampledFrom([]uint32{0, 1, 41, 0xFFFFFFFF}).Draw(t, "index"),
				OwnerID:        rapid.SampledFrom([]uint32{abi.InvalidOwnerID, 0, 3, 0xFFFFFFFE}).Draw(t, "owner"),
			}
			g.B.Write(s.CoreType, s.BlockID, r)
		}
		g.Records += min(n, int(s.Capacity))
		g.Dropped += uint64(max(0, n-int(s.Capacity)))
	}
	if g.Records == 0 {
		// At least one record, on a slot that has room.
		for i := range l.NumSlots() {
			if s := l.Slot(i); s.Capacity > 0 {
				if !(s.BlockID == 0 && g.Opts.Capacities == nil) {
					g.B.Enter(s.CoreType, s.BlockID, 500)
				}
				g.B.Span(s.CoreType, s.BlockID, 1000, 1010, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
				g.Records++
				break
			}
		}
	}
	tasks := map[uint32]string{1: "Gate", 2: "Combine\u00e9"}
	if rapid.Bool().Draw(t, "sparseTasks") {
		// Far-apart task ids: the writer's sparse lookup.
		tasks[0xFFFFFFF0] = "Far"
	}
	g.Names = &kernelnames.Names{
		Stages: map[uint32]string{abi.GraphStageBase + 1: "Dispatch", abi.RuntimeStageTerminateTask: "Shut\"down"},
		Tasks:  kernelnames.TaskNamesOf(tasks),
	}
	if rapid.Bool().Draw(t, "noNames") {
		g.Names = nil
	}
	return g
}

// BenchCaptures are the benchmark captures by size, made once.
var BenchCaptures = map[string]func() ([]byte, error){
	"32MB":  sync.OnceValues(func() ([]byte, error) { return benchgen.Bytes(benchgen.MB32) }),
	"320MB": sync.OnceValues(func() ([]byte, error) { return benchgen.Bytes(benchgen.MB320) }),
}

// BenchSpecs are the benchmark captures' specs by size.
var BenchSpecs = map[string]benchgen.Spec{"32MB": benchgen.MB32, "320MB": benchgen.MB320}

// CountingWriter counts the bytes written through it to w.
type CountingWriter struct {
	W io.Writer
	N int64
}

func (c *CountingWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// Decoded32MB is the 32 MB benchmark capture, decoded from memory.
func Decoded32MB(tb testing.TB) *decode.Decoded {
	tb.Helper()
	buf, err := BenchCaptures["32MB"]()
	if err != nil {
		tb.Fatal(err)
	}
	l, _ := benchgen.MB32.Layout()
	c, err := capture.FromBytes("bench.bin", buf)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := decode.Decode(c, capture.Request{Capacities: &l.Capacities})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// RandomFlowCapture draws a random schedule, simulates and decodes its
// capture, and returns it with the schedule's arrows and a Config drawn
// over frequencies whose cycles are and are not whole nanoseconds, every
// flow mode and arrow caps; ok is false when the capture holds no record.
func RandomFlowCapture(t *rapid.T) (d *decode.Decoded, deps *flows.Dependencies, draw FlowDraw, ok bool) {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, "seed")}
	c, err := synth.Run(s, opts)
	if err != nil {
		var pe *plan.Error
		if !errors.As(err, &pe) {
			t.Fatal(err)
		}
		opts.WaitTimeout = synth.DefaultWaitTimeout
		if c, err = synth.Run(s, opts); err != nil {
			t.Fatal(err)
		}
	}
	if c.Records() == 0 {
		return nil, nil, draw, false
	}
	d, err = Decode("random.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	if err != nil {
		t.Fatal(err)
	}
	deps, err = flows.NewDependencies(d, s)
	if err != nil {
		t.Fatal(err)
	}
	draw.FrequencyMHz = rapid.SampledFrom([]float64{50, 3, 1000, 7.3}).Draw(t, "mhz")
	draw.Mode = rapid.SampledFrom([]flows.Mode{flows.Releasing, flows.All, flows.None}).Draw(t, "mode")
	draw.MaxFlows = rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "max")
	return d, deps, draw, true
}

// FlowDraw is how RandomFlowCapture's trace shows its arrows: a frequency
// whose cycle is or is not a whole number of nanoseconds, a mode, a cap.
type FlowDraw struct {
	FrequencyMHz float64
	Mode         flows.Mode
	MaxFlows     int
}
