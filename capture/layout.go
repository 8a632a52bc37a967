package capture

import (
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// regions are the schema's slot regions in buffer order; Request.Check
// iterates them and never names one.
var regions = abi.Regions()

// LayoutSource says where a part of a layout came from.
type LayoutSource string

// The layout sources.
const (
	// FromHeaders: read from a header of the capture (the one named in the
	// Evidence), or computed from where that header sits.
	FromHeaders LayoutSource = "headers"
	// FromSize: the only value that makes the layout end with the buffer,
	// for a last region whose headers are all zero.
	FromSize LayoutSource = "size"
	// FromHost: given in the request.
	FromHost LayoutSource = "host"
	// FromPlan: the host plan's, because the capture does not state it.
	FromPlan LayoutSource = "plan"
)

// Plan is the host plan of a capture: what `cycleabi plan` computes from
// a schedule.
type Plan struct {
	// Name labels the plan in messages (the schedule file).
	Name       string
	CubeSlots  uint32
	Capacities abi.Capacities
	// WorkerOn, when set, returns the worker the plan runs on core
	// t/block and the tasks it gives it (0: none run there); a worker
	// with tasks writes records (validate's idle-worker).
	WorkerOn func(t abi.CoreType, block uint32) (worker uint32, tasks int)
}

// Request is what the caller knows about a capture's layout. The zero
// Request knows nothing: the layout is found from the capture alone.
type Request struct {
	// CubeSlots is the cube slot count C; 0 when not given.
	CubeSlots uint32
	// Capacities are the record capacities of every region; nil when not
	// given. Given values override what the headers say, but a request
	// that the headers contradict is refused with both values named.
	Capacities *abi.Capacities
	// Plan is the host plan, nil when there is none. It does not override
	// the headers: it stands in when they state no layout, and chooses
	// among several layouts that fit.
	Plan *Plan
	// GivenBy names CubeSlots and Capacities in messages, as the plural
	// subject of "say" ("the flags"); "" reads "the given values".
	GivenBy string
	// Partial accepts a layout longer than the buffer, for a partial
	// decode of a truncated capture: the layout its headers declare (or
	// the request gives whole) resolves, with Resolved.Missing the bytes
	// the buffer lacks, instead of a truncated problem. Scan it with
	// ScanOptions.Partial.
	Partial bool
}

// RequestPart names the part of a Request a RequestError is about, so that
// a caller can word it in its own terms (a flag name).
type RequestPart int

// The parts of a request.
const (
	// PartCubeSlots is Request.CubeSlots.
	PartCubeSlots RequestPart = iota + 1
	// PartCapacity is the capacity of RequestError.CoreType's region.
	PartCapacity
	// PartLayout is the layout the request's values make together.
	PartLayout
)

// RequestError reports a request that makes no layout, whatever the
// capture: it is the caller's mistake, not the capture's.
type RequestError struct {
	Part RequestPart
	// CoreType is the region of a PartCapacity error.
	CoreType abi.CoreType
	// Value is the refused value.
	Value uint64
	Err   error
}

func (e *RequestError) Error() string {
	switch e.Part {
	case PartCubeSlots:
		return fmt.Sprintf("cube slot count %d: %v", e.Value, e.Err)
	case PartCapacity:
		return fmt.Sprintf("%s capacity %d: %v", e.CoreType, e.Value, e.Err)
	}
	return e.Err.Error()
}

func (e *RequestError) Unwrap() error { return e.Err }

// CheckCubeSlots returns a *RequestError unless n is a cube slot count a
// layout can have.
func CheckCubeSlots(n uint32) error {
	if n < abi.MinCubeSlots {
		return &RequestError{Part: PartCubeSlots, Value: uint64(n), Err: fmt.Errorf("below the schema's minimum %d", abi.MinCubeSlots)}
	}
	return nil
}

// Check returns a *RequestError when the request's values make no layout,
// whatever the capture (Resolve checks it first too).
func (r Request) Check() error {
	if r.CubeSlots != 0 {
		if err := CheckCubeSlots(r.CubeSlots); err != nil {
			return err
		}
	}
	if r.Capacities != nil {
		for _, reg := range regions {
			v := r.Capacities.For(reg.CoreType)
			if err := abi.CheckCapacity(uint64(v)); err != nil {
				return &RequestError{Part: PartCapacity, CoreType: reg.CoreType, Value: uint64(v), Err: err}
			}
		}
		if r.CubeSlots != 0 {
			if _, err := abi.NewLayout(r.CubeSlots, *r.Capacities); err != nil {
				return &RequestError{Part: PartLayout, Err: err}
			}
		}
	}
	return nil
}

// Evidence says where one part of a resolved layout came from.
type Evidence struct {
	Source LayoutSource
	// Slot and Off name the header a FromHeaders part was read from (or,
	// with Derived, computed from): "AIV/0" at file offset 0xc600.
	Slot string
	Off  int64
	// Derived: the part was computed from where the header sits, not read
	// from it (the capacity of a region whose headers are all zero, from
	// where the next region's header is).
	Derived bool
}

// Resolved is a capture's layout and how it was found.
type Resolved struct {
	Layout abi.Layout
	// Source is where the capacities come from, as a whole: FromHost when
	// given, FromPlan when the host plan's were used, else FromHeaders.
	Source LayoutSource
	// CubeSlotsFrom says what fixed the cube slot count.
	CubeSlotsFrom Evidence
	// CapacitiesFrom says where each region's capacity came from, in
	// abi.Regions() order.
	CapacitiesFrom []Evidence
	// How says it in a short phrase for a summary line: "found: 24 cube
	// slots from the AIV/0 header at @0xc600".
	How string
	// Hint is what to do when the layout is wrong; "" when nothing
	// suggests it is (the headers agree with it, or it was given).
	Hint string
	// Missing is how many bytes of the layout the buffer lacks: not 0
	// only for a Request.Partial resolution of a truncated capture.
	Missing uint64
}

// paren renders a layout as "(24 cube slots, AIC capacity 16, AIV capacity 16)".
func paren(l abi.Layout) string { return "(" + l.String() + ")" }

// BytesAfterLayout is the bytes-after-layout warning of a buffer longer
// than the resolved layout res (validate's finding, and decode's warning,
// in the same words); nil when the buffer ends with the layout.
func (c *Capture) BytesAfterLayout(res *Resolved) *Problem {
	l := res.Layout
	if uint64(c.Size()) <= l.Size() {
		return nil
	}
	return &Problem{File: c.Name, Severity: Warning, Code: CodeBytesAfterLayout, Off: c.Base + int64(l.Size()), Record: -1,
		Value:    fmt.Sprintf("%d extra bytes", uint64(c.Size())-l.Size()),
		Expected: fmt.Sprintf("the buffer to end with the layout's %d bytes (%s); decode ignores the extra", l.Size(), l),
		Hint:     res.Hint}
}
