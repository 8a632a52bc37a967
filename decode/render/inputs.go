package render

import (
	"fmt"
	"math"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
)

// Config says how one capture appears in the trace.
type Config struct {
	// Rank is the trace pid; DeviceID is shown with it (the reference
	// defaults it to the rank).
	Rank     uint32
	DeviceID uint32
	// SoCName is recorded in the trace's metadata as given.
	SoCName string
	// FrequencyMHz is the system-counter frequency the cycles count at;
	// positive and finite (abi.SystemCounterMHz gives it by SoC).
	FrequencyMHz float64
	// DetailedNames appends the task number to event names and prefixes
	// the owner ("<OwnerLabel><owner_id>_").
	DetailedNames bool
	// KernelName names the process ("<KernelName> rank 0 device 0").
	KernelName string
	// KernelFamily is the kernel family the ids were read under ("none"
	// for the schema's own tables; "" when not known: not written) and
	// KernelFamilyFrom what chose it: the trace's metadata carries both,
	// so that the trace read back is read under the same family.
	KernelFamily, KernelFamilyFrom string
	// OwnerLabel prefixes the owner id in detailed names ("Owner3_...").
	OwnerLabel string
	// Names are the kernel's names for its stages and tasks; nil for none.
	Names *kernelnames.Names
	// Invocation, when set, makes the capture one invocation of its rank
	// (see Invocation); nil for one capture per rank.
	Invocation *Invocation
	// WindowIndex is the window object's windowIndex: which window of a
	// profiling session the invocations are, counted from 0 as upstream's
	// profiler counts them (the index of the window trace they were read
	// from; 0 for captures). The first input's is written.
	WindowIndex int64
	// FlowMode says which dependency arrows to draw when Deps is set;
	// MaxFlows caps the arrows of this capture (0: no cap).
	FlowMode flows.Mode
	MaxFlows int
	// Deps, when set, are the capture's event producers under the
	// schedule it ran: the trace gets dependency arrows (FlowMode).
	Deps *flows.Dependencies
}

// Input is one decoded capture and how to show it.
//
// Each Input has a decode.Decoded of its own, never shared with another Input:
// the writer counts the warnings it sees in it while inputs render in
// parallel (the same capture twice is decoded twice).
type Input struct {
	Decoded *decode.Decoded
	Config  Config
}

// WriteOptions tune the writers (chromejson.Write, perfetto.Write); the
// zero value is ready to use.
type WriteOptions struct {
	// Parallel bounds how many captures are rendered at once (0: GOMAXPROCS).
	Parallel int
	// Formatters is the number of goroutines that format each capture's
	// events (0: GOMAXPROCS; 1: none but the capture's own). The trace is
	// the same for any. Each capture gets them all: the writer takes the
	// captures in order, so the one being written is the one that can
	// use the cores; the next ones fill their few buffered chunks and
	// wait, using none.
	Formatters int
	// Progress, when set, is called with the number of events just
	// written, from the goroutine that called the writer.
	Progress func(events int)
	// InvocationGapUs, when set, lays the invocations of a rank end to
	// end, this many microseconds apart, instead of at their real times
	// (nil: each shifted by its anchor's distance from the rank's
	// earliest anchor).
	InvocationGapUs *float64
	// AbsoluteTime times every event from system-counter cycle 0 instead
	// of from its capture's anchor (or its rank's earliest anchor); it
	// wins over InvocationGapUs.
	AbsoluteTime bool
	// Overlaps, when set, receives the warning of each invocation whose
	// records overlap in time those of another of its rank, placed at
	// their real times (they share the rank's threads).
	Overlaps *[]string
	// FlowStats, when it has one entry per input, receives what each
	// input's dependency arrows came to (zero for an input without Deps).
	FlowStats []flows.Stats
	// ShiftNegativeTS moves every JSON timestamp later by the same time
	// when records start before their time 0, so that none is negative
	// (Perfetto's JSON importer drops events with a negative ts), as
	// perfetto.Write always does; the zero value writes them negative,
	// as the reference decoder does. See chromejson.Write and
	// ShiftNegative.
	ShiftNegativeTS bool
}

func (c *Config) check() error {
	if !(c.FrequencyMHz > 0) || math.IsInf(c.FrequencyMHz, 0) {
		return fmt.Errorf("cycle frequency must be positive and finite, got %v MHz", c.FrequencyMHz)
	}
	// At a frequency this low, 2^64-1 cycles is more microseconds than a
	// float64 holds: the timestamps would be written as +Inf, not JSON.
	if math.IsInf(math.MaxUint64/c.FrequencyMHz, 0) {
		return fmt.Errorf("cycle frequency %v MHz is too low: timestamps would overflow", c.FrequencyMHz)
	}
	return nil
}
