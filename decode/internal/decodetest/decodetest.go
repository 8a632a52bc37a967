// Package decodetest holds what the tests of the trace writers
// (decode/chromejson, decode/perfetto) share: random captures under every
// naming rule, decoding from memory, the reference decoder's reading of a
// capture, a JSON trace read back, the benchmark captures and the
// benchmark that writes them (BenchWrite). It imports no writer, only
// the pipeline's types (decode/render), so that the writers' own tests
// can import it.
package decodetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
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
	require.NoError(tb, err)
	l, _ := benchgen.MB32.Layout()
	c, err := capture.FromBytes("bench.bin", buf)
	require.NoError(tb, err)
	d, err := decode.Decode(c, capture.Request{Capacities: &l.Capacities})
	require.NoError(tb, err)
	return d
}

// DefaultConfig is what `cycleabi decode` uses without flags.
func DefaultConfig() render.Config {
	return render.Config{SoCName: "ascend910b", FrequencyMHz: 50, KernelName: "MegaKernel", OwnerLabel: "Owner"}
}

// RandomFlowCapture draws a random schedule, simulates and decodes its
// capture, and returns it with the schedule's arrows and a Config (the
// default's, with the arrows) drawn over frequencies whose cycles are and
// are not whole nanoseconds, every flow mode and arrow caps; ok is false
// when the capture holds no record.
func RandomFlowCapture(t *rapid.T) (d *decode.Decoded, deps *flows.Dependencies, cfg render.Config, ok bool) {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, "seed")}
	c, err := synth.Run(s, opts)
	if err != nil {
		var pe *plan.Error
		require.ErrorAsf(t, err, &pe, "%v", err)
		opts.WaitTimeout = synth.DefaultWaitTimeout
		c, err = synth.Run(s, opts)
		require.NoError(t, err)
	}
	if c.Records() == 0 {
		return nil, nil, cfg, false
	}
	d, err = Decode("random.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	require.NoError(t, err)
	deps, err = flows.NewDependencies(d, s)
	require.NoError(t, err)
	cfg = DefaultConfig()
	cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 3, 1000, 7.3}).Draw(t, "mhz")
	cfg.FlowMode = rapid.SampledFrom([]flows.Mode{flows.Releasing, flows.All, flows.None}).Draw(t, "mode")
	cfg.MaxFlows = rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "max")
	cfg.Deps = deps
	return d, deps, cfg, true
}
