package capture

import (
	"fmt"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// LayoutSource says where a layout's record capacities come from.
type LayoutSource string

// The layout sources.
const (
	// FromHeaders: capacities read from AIC/0 and AIV/0 (decode's default).
	FromHeaders LayoutSource = "headers"
	// FromHost: capacities given (--aic-capacity and --aiv-capacity).
	FromHost LayoutSource = "host"
	// FromPlan: the host plan's capacities, because AIC/0 or AIV/0 is
	// unused and its header states none.
	FromPlan LayoutSource = "plan"
)

// Describe says where the capacities come from, to follow "capacities ".
func (s LayoutSource) Describe() string {
	switch s {
	case FromHost:
		return "given by the host"
	case FromPlan:
		return "from the host plan"
	}
	return "read from the headers of AIC/0 and AIV/0"
}

// Plan is the host plan of a capture: what `cycleabi plan` computes from
// a schedule.
type Plan struct {
	// Name labels the plan in messages (the schedule file).
	Name       string
	CubeSlots  uint32
	Capacities abi.Capacities
}

// WithPlan returns o with the host plan p as its defaults: p's cube slot
// count when o sets none, and p's capacities as the Fallback when o sets
// none. A nil p returns o.
func (o LayoutOptions) WithPlan(p *Plan) LayoutOptions {
	if p == nil {
		return o
	}
	if o.CubeSlots == 0 {
		o.CubeSlots = p.CubeSlots
	}
	if o.Fallback == nil {
		caps := p.Capacities
		o.Fallback = &caps
	}
	return o
}

// Settled is how the layout of a capture is found: the options
// ResolveLayout acts on and where the capacities come from.
type Settled struct {
	// Options has CubeSlots set, and Capacities set unless the capacities
	// are read from the buffer.
	Options LayoutOptions
	Source  LayoutSource
	// Idle is "AIC/0" or "AIV/0" when the capacities are read from the
	// buffer and that slot's header is all zero (its core never ran): the
	// layout is then read from a header that states no capacity. Else "".
	Idle string
}

// Settle decides how the layout of c is found under o: given capacities
// win; else they are read from the headers of AIC/0 and AIV/0, unless one
// of those is unused and o has a Fallback.
func (c *Capture) Settle(o LayoutOptions) Settled {
	if o.CubeSlots == 0 {
		o.CubeSlots = abi.MinCubeSlots
	}
	if o.Capacities != nil {
		return Settled{Options: o, Source: FromHost}
	}
	idle := c.idleFirstHeader(o.CubeSlots)
	if idle != "" && o.Fallback != nil {
		caps := *o.Fallback
		o.Capacities = &caps
		return Settled{Options: o, Source: FromPlan}
	}
	return Settled{Options: o, Source: FromHeaders, Idle: idle}
}

// IdleHint is what to do about a layout read from an unused header, or ""
// when the layout was not.
func (s Settled) IdleHint() string {
	if s.Idle == "" {
		return ""
	}
	return fmt.Sprintf("%s is unused (its header is all zero), so the layout's capacities were read from a header that states none; "+
		"pass the host-planned --aic-capacity and --aiv-capacity, or --plan SCHEDULE", s.Idle)
}

// Explain adds IdleHint to the problems a layout read from an unused
// header causes: slots found where the guessed layout puts them disagree
// with it, or the buffer does not fit it.
func (s Settled) Explain(p *Problem) {
	switch p.Code {
	case CodeCapacityMismatch, CodeBadCapacity, CodeTruncated, CodeSlotIdentity, CodeCountOverCapacity:
		if h := s.IdleHint(); h != "" {
			p.Hint = h
		}
	}
}

// idleFirstHeader names AIC/0 when its header is all zero, else AIV/0 when
// its header (where AIC/0's capacity puts it) is, else "".
func (c *Capture) idleFirstHeader(cubeSlots uint32) string {
	aic, ok := c.header(0)
	if !ok {
		return ""
	}
	if aic.IsZero() {
		return abi.Slot{CoreType: abi.CoreTypeAIC}.String()
	}
	l, err := abi.NewLayout(cubeSlots, abi.Capacities{AIC: aic.RecordCapacity})
	if err != nil {
		return ""
	}
	if aiv, ok := c.header(int64(l.SlotOffset(abi.CoreTypeAIV, 0))); ok && aiv.IsZero() {
		return abi.Slot{CoreType: abi.CoreTypeAIV}.String()
	}
	return ""
}

// header reads the core header at buffer offset off, if the buffer holds it.
func (c *Capture) header(off int64) (abi.CoreHeader, bool) {
	var buf [abi.CoreHeaderSize]byte
	if off < 0 || off > c.size-abi.CoreHeaderSize {
		return abi.CoreHeader{}, false
	}
	b, err := c.view(off, abi.CoreHeaderSize, buf[:])
	if err != nil {
		return abi.CoreHeader{}, false
	}
	h, err := abi.DecodeCoreHeader(b)
	return h, err == nil
}
