package decode

import (
	"fmt"
	"math"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

// mustDecode decodes an in-memory capture.
func mustDecode(name string, buf []byte, o capture.Request) (*Decoded, error) {
	c, err := capture.FromBytes(name, buf)
	if err != nil {
		return nil, err
	}
	return Decode(c, o)
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
func scanRecords(d *Decoded) ([]liveRecord, error) {
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
	return g
}

func inf() float64 { return math.Inf(1) }
func nan() float64 { return math.NaN() }

// walkOf renders the walk of d's records as text, one record a line, to
// compare walks (the trace writers render this sequence).
func walkOf(d *Decoded) ([]byte, error) {
	var b []byte
	err := d.Records(func(r Record) bool {
		b = fmt.Appendf(b, "%+v\n", r)
		return true
	})
	return b, err
}
