// Package capturedraw draws random valid captures under every naming
// rule, for the property tests of decode and of its writers. It imports
// neither decode nor a writer, so that decode's own tests can use it too.
package capturedraw

import (
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"pgregory.net/rapid"
)

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

// Draw draws a valid capture: random slots entered, each writing a
// random number of records (some past capacity, dropped), in start order
// or not; entry cycles sometimes 0.
func Draw(t *rapid.T) Capture {
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
