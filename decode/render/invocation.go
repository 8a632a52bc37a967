package render

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsontext"
	"github.com/megakernel/cycleabi/tracemeta"
)

// Invocation marks a capture as one kernel launch of a window: several
// captures of one rank (forward and backward, several steps and layers),
// each an invocation. Inputs with an Invocation share their rank's process
// and core threads; each sits at its real time relative to the rank's
// earliest (see WriteOptions.InvocationGapUs and AbsoluteTime).
type Invocation struct {
	// ID orders the invocations of a rank; unique per rank.
	ID int64
	// Step is the training step, nil when not known.
	Step *int64
	// Direction is "forward", "backward" or "" (not known).
	Direction string
}

// Directions are the values Invocation.Direction may take besides "".
var Directions = []string{"forward", "backward"}

// CheckDirection reports an error for a direction that is not one of
// Directions (or "").
func CheckDirection(d string) error {
	if d == "" || slices.Contains(Directions, d) {
		return nil
	}
	return fmt.Errorf("direction %q is not forward or backward", d)
}

// Placement is where one input's events go: ts = (start_cycle + shift -
// anchor) / MHz, and which metadata events it writes.
type Placement struct {
	anchor, shift uint64
	// shiftedBy is how far anchor was moved back so that no ts is
	// negative (WriteOptions.ShiftNegativeTS); anchor+shiftedBy is the
	// time 0 the input's records are counted as before.
	shiftedBy uint64
	// meta: the process and thread metadata events are written by this
	// input (the first of its rank), for slots (every core of the rank).
	meta  bool
	slots []abi.Slot
	args  []byte // `,"invocation_id":N,"step":S,"direction":D`, or nil
	// overlap is the warning of an invocation whose records overlap in
	// time those of an earlier-starting invocation of its rank, or "".
	overlap string
}

// Anchor is the cycle the input's time 0 stands for: moved back by
// ShiftedBy once ShiftNegative has shifted it.
func (p *Placement) Anchor() uint64 { return p.anchor }

// ShiftedBy is how far ShiftNegative moved Anchor back so that no
// timestamp is negative (0 when it did not): Anchor+ShiftedBy is the time
// 0 the input's records are counted as before (decode.Warnings).
func (p *Placement) ShiftedBy() uint64 { return p.shiftedBy }

// Args is what every event of an invocation ends its args with, as JSON
// text: `,"invocation_id":N,"step":S,"direction":D`; nil for an input
// that is not an invocation.
func (p *Placement) Args() []byte { return p.args }

// Shift is the cycles added to the input's records to place them.
func (p *Placement) Shift() uint64 { return p.shift }

// Meta says whether this input writes its rank's process and core
// tracks (the first of its rank); Slots are then the rank's cores.
func (p *Placement) Meta() bool { return p.meta }

// Slots are the cores of the rank, when Meta.
func (p *Placement) Slots() []abi.Slot { return p.slots }

// Overlap is the warning of an invocation whose records overlap in time
// those of an earlier-starting invocation of its rank, or "".
func (p *Placement) Overlap() string { return p.overlap }

// invocationMode reports whether the inputs are invocations (any has an
// Invocation; then all must).
func invocationMode(inputs []Input) (bool, error) {
	n := 0
	for i := range inputs {
		if inputs[i].Config.Invocation != nil {
			n++
		}
	}
	if n > 0 && n < len(inputs) {
		return false, fmt.Errorf("%d of %d captures are invocations: give every capture its invocation, or none", n, len(inputs))
	}
	return n > 0, nil
}

// place works out every input's Placement. Without invocations each
// input is its own rank, timed from its own anchor (or from cycle 0 with
// AbsoluteTime), as before. With invocations the inputs of a rank share
// one clock (the device's system counter), so by default they sit at
// their real relative times: every invocation of a rank is timed from the
// rank's earliest anchor, which shifts each by (its anchor - that anchor)
// / MHz, as upstream's window export does. Invocations whose records
// overlap in time stay where they ran, on the same threads, and get a
// warning. With InvocationGapUs they are laid end to end instead, in
// Invocation.ID order, each timed from its own anchor and shifted to start
// the gap after the previous one's last record ends; with AbsoluteTime
// every input keeps system-counter time (cycle 0 is ts 0).
func place(inputs []Input, o *WriteOptions) ([]Placement, error) {
	ps := make([]Placement, len(inputs))
	inv, err := invocationMode(inputs)
	if err != nil {
		return nil, err
	}
	for i := range inputs {
		ps[i].meta = true
		if !o.AbsoluteTime {
			ps[i].anchor = inputs[i].Decoded.Summary.Anchor
		}
	}
	if !inv {
		return ps, nil
	}
	endToEnd := o.InvocationGapUs != nil && !o.AbsoluteTime
	var gap float64
	if o.InvocationGapUs != nil {
		gap = *o.InvocationGapUs
		if !(gap >= 0) || math.IsInf(gap, 0) {
			return nil, fmt.Errorf("the gap between invocations must be >= 0 and finite, got %v us", gap)
		}
	}
	byRank := map[uint32][]int{}
	var ranks []uint32
	var shared slotSets
	for i := range inputs {
		r := inputs[i].Config.Rank
		if _, ok := byRank[r]; !ok {
			ranks = append(ranks, r)
		}
		byRank[r] = append(byRank[r], i)
	}
	for _, r := range ranks {
		idx := byRank[r]
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Compare(inputs[a].Config.Invocation.ID, inputs[b].Config.Invocation.ID)
		})
		var slots []abi.Slot
		seen := map[abi.Slot]bool{}
		for k, i := range idx {
			in := &inputs[i]
			if k > 0 && in.Config.Invocation.ID == inputs[idx[k-1]].Config.Invocation.ID {
				return nil, fmt.Errorf("%s and %s are both invocation %d of rank %d", inputs[idx[k-1]].Decoded.Capture.Name, in.Decoded.Capture.Name, in.Config.Invocation.ID, r)
			}
			err := in.Decoded.WithSlots(func() error {
				for _, a := range in.Decoded.Summary.Active {
					if !seen[a.Slot] {
						seen[a.Slot] = true
						slots = append(slots, a.Slot)
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			ps[i].meta = false
			ps[i].args = invocationArgs(in.Config.Invocation)
		}
		var err error
		if endToEnd {
			err = layEndToEnd(inputs, ps, idx, gap)
		} else {
			if !o.AbsoluteTime {
				base := inputs[idx[0]].Decoded.Summary.Anchor
				for _, i := range idx {
					base = min(base, inputs[i].Decoded.Summary.Anchor)
				}
				for _, i := range idx {
					ps[i].anchor = base
				}
			}
			err = markOverlaps(inputs, ps, idx)
		}
		if err != nil {
			return nil, err
		}
		slices.SortFunc(slots, func(x, y abi.Slot) int {
			return cmp.Or(cmp.Compare(x.CoreType, y.CoreType), cmp.Compare(x.BlockID, y.BlockID))
		})
		first := slices.Min(idx)
		ps[first].meta = true
		ps[first].slots = shared.of(slots)
	}
	return ps, nil
}

// layEndToEnd shifts the invocations idx of one rank (in id order) so
// that each starts gap us after the previous one's last record ends.
func layEndToEnd(inputs []Input, ps []Placement, idx []int, gap float64) error {
	var shift uint64
	for _, i := range idx {
		in := &inputs[i]
		r := in.Config.Rank
		maxEnd, err := lastEnd(in.Decoded)
		if err != nil {
			return err
		}
		if maxEnd > math.MaxUint64-shift {
			return fmt.Errorf("%s: invocation %d of rank %d ends past 2^64 cycles once laid out after the ones before it; use --absolute-time", in.Decoded.Capture.Name, in.Config.Invocation.ID, r)
		}
		ps[i].shift = shift
		anchor := ps[i].anchor
		span := uint64(0)
		if maxEnd > anchor {
			span = maxEnd - anchor
		}
		gapCycles := math.Round(gap * in.Config.FrequencyMHz)
		if gapCycles > 1<<62 {
			return fmt.Errorf("a gap of %v us between invocations is more than 2^62 cycles", gap)
		}
		next, c1 := bits.Add64(shift, span, 0)
		next, c2 := bits.Add64(next, uint64(gapCycles), 0)
		if c1|c2 != 0 {
			return fmt.Errorf("the invocations of rank %d span more than 2^64 cycles once laid out; use --absolute-time", r)
		}
		shift = next
	}
	return nil
}

// markOverlaps sets the overlap warning of each invocation of one rank
// (idx) whose records, placed at their real times, overlap those of an
// invocation that starts no later: its slices then share threads and time
// with the other's, as they ran (or as two copies of one capture would).
func markOverlaps(inputs []Input, ps []Placement, idx []int) error {
	type span struct {
		i          int
		start, end uint64 // cycles: the earliest start, the latest end
	}
	var spans []span
	for _, i := range idx {
		d := inputs[i].Decoded
		if d.Summary.Records == 0 {
			continue
		}
		end, err := lastEnd(d)
		if err != nil {
			return err
		}
		spans = append(spans, span{i, d.Summary.Earliest, end})
	}
	// idx is in id order: a stable sort keeps it among equal starts.
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	if len(spans) == 0 {
		return nil
	}
	prev := spans[0] // of the spans before s, the first that ends last
	for _, s := range spans[1:] {
		if s.start < prev.end {
			a, b := &inputs[prev.i], &inputs[s.i]
			w := fmt.Sprintf("invocation %d (%s) of rank %d overlaps invocation %d (%s) in time: cycles %d-%d against %d-%d; their slices share the core threads",
				b.Config.Invocation.ID, b.Decoded.Capture.Name, b.Config.Rank, a.Config.Invocation.ID, a.Decoded.Capture.Name,
				s.start, s.end, prev.start, prev.end)
			if a.Decoded.Summary.Anchor == b.Decoded.Summary.Anchor {
				w += fmt.Sprintf(" (both anchored at cycle %d: the same capture twice?)", a.Decoded.Summary.Anchor)
			}
			ps[s.i].overlap = w + "; --invocation-gap-us lays them end to end"
		}
		if s.end > prev.end {
			prev = s
		}
	}
	return nil
}

// windowWarnings are the warnings of a window of invocations: the records
// its cores dropped, then each invocation that overlaps another in time.
func windowWarnings(dropped uint64, ps []Placement) []string {
	var ws []string
	if w := decode.Warning(dropped); w != "" {
		ws = append(ws, w)
	}
	for i := range ps {
		if ps[i].overlap != "" {
			ws = append(ws, ps[i].overlap)
		}
	}
	return ws
}

// reportOverlaps hands the overlap warnings to o.Overlaps, when set.
func reportOverlaps(ps []Placement, o *WriteOptions) {
	if o.Overlaps == nil {
		return
	}
	*o.Overlaps = (*o.Overlaps)[:0]
	for i := range ps {
		if ps[i].overlap != "" {
			*o.Overlaps = append(*o.Overlaps, ps[i].overlap)
		}
	}
}

// lastEnd returns the largest end_cycle of the capture's records.
func lastEnd(d *decode.Decoded) (uint64, error) {
	var end uint64
	err := d.WithSlots(func() error {
		return d.Records(func(r decode.Record) bool {
			end = max(end, r.EndCycle)
			return true
		})
	})
	return end, err
}

// slotSets holds each distinct set of a rank's cores once: the ranks of
// a window mostly run on the same cores, and a run over thousands of
// ranks would otherwise keep a copy per rank until it is written.
type slotSets map[string][]abi.Slot

// of returns the held set equal to slots (slots itself the first time).
func (m *slotSets) of(slots []abi.Slot) []abi.Slot {
	if *m == nil {
		*m = slotSets{}
	}
	key := make([]byte, 0, len(slots)*20)
	for _, s := range slots {
		key = binary.LittleEndian.AppendUint32(key, uint32(s.CoreType))
		key = binary.LittleEndian.AppendUint32(key, s.BlockID)
		key = binary.LittleEndian.AppendUint64(key, s.Offset)
		key = binary.LittleEndian.AppendUint32(key, s.Capacity)
	}
	if held, ok := (*m)[string(key)]; ok {
		return held
	}
	slots = slices.Clip(slots)
	(*m)[string(key)] = slots
	return slots
}

func invocationArgs(inv *Invocation) []byte {
	b := []byte(`,"invocation_id":`)
	b = strconv.AppendInt(b, inv.ID, 10)
	return appendStepDirection(b, inv)
}

// appendStepDirection appends `,"step":S,"direction":D`, null where the
// invocation has none: the same in each event's args and the metadata.
func appendStepDirection(b []byte, inv *Invocation) []byte {
	b = append(b, `,"step":`...)
	if inv.Step != nil {
		b = strconv.AppendInt(b, *inv.Step, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"direction":`...)
	if inv.Direction != "" {
		return jsontext.AppendString(b, inv.Direction)
	}
	return append(b, "null"...)
}

// invocationsMeta is the window's invocations for its megaKernelCycleTrace
// object: one entry per input, in input order.
func invocationsMeta(inputs []Input) []tracemeta.Invocation {
	invs := make([]tracemeta.Invocation, len(inputs))
	for i := range inputs {
		in := &inputs[i]
		cfg, inv, sum := &in.Config, in.Config.Invocation, in.Decoded.Summary
		invs[i] = tracemeta.Invocation{
			InvocationID: inv.ID, Step: inv.Step,
			KernelName: &cfg.KernelName, Rank: &cfg.Rank, DeviceID: &cfg.DeviceID,
			AnchorCycle: &sum.Anchor, RecordCount: &sum.Records, Dropped: &sum.Dropped,
			Capture: &in.Decoded.Capture.Name,
		}
		if inv.Direction != "" {
			invs[i].Direction = &inv.Direction
		}
	}
	return invs
}
