// Package flows finds the dependency arrows of a decoded capture: the
// producers of each event under the schedule the kernel ran, and the
// arrows into each wait record. The trace writers draw them.
package flows

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// Mode says which dependency arrows a trace gets.
type Mode uint8

// The flow modes.
const (
	// None draws no arrow.
	None Mode = iota
	// Releasing draws one arrow per wait record, from its releasing
	// producer: the producer of the waited event with the latest
	// end_cycle at or before the wait's end_cycle.
	Releasing
	// All draws an arrow from every producer of the waited event that
	// ends within the wait ([start_cycle, end_cycle]), and from the
	// releasing producer when it ended before the wait started.
	All
)

var modeNames = [...]string{None: "none", Releasing: "releasing", All: "all"}

// String returns the mode's name on the command line ("releasing").
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// ParseMode returns the mode named name: none, releasing or all.
func ParseMode(name string) (Mode, error) {
	for m, n := range modeNames {
		if n == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown flow mode %q (known: releasing, all, none)", name)
}

// Flow is one dependency arrow: from a producer of Event to a wait record
// of a task whose dependent_event is Event. From.EndCycle <= To.EndCycle
// always holds. A protobuf writer emits it as flow_ids on From's slice and
// terminating_flow_ids on To's.
type Flow struct {
	// ID is unique within one capture's flows, from 1 (the trace writer
	// makes it unique across captures, see chromejson.Write).
	ID    uint64
	Event plan.EventID
	From  decode.RecordRef
	To    decode.RecordRef
}

// Stats count what the arrows of one capture came to.
type Stats struct {
	// Waits is the number of wait records.
	Waits uint64
	// Arrows is the number of arrows drawn (after MaxFlows).
	Arrows uint64
	// WaitsWithoutProducer counts the waits that no producer of their event
	// ended before (clock skew, dropped records, or a schedule that is not
	// the one the kernel ran).
	WaitsWithoutProducer uint64
	// Capped counts arrows left out by MaxFlows.
	Capped uint64
	// Unbound counts arrows left out of a trace because the rounding of
	// timestamps to nanoseconds left no binding point inside both slices
	// with the producer's first (at most a nanosecond apart; only at
	// frequencies whose cycle is not a whole number of nanoseconds).
	Unbound uint64
}

// Dependencies are the producers of every event in one capture, for the
// schedule the kernel ran: the TriggerEvent records of the tasks whose
// trigger_event is the event, and the compute records of its
// ShmemPutMemSignal tasks (which signal the event themselves and write no
// trigger record). Memory is 24 bytes per producer record plus a few
// bytes per event; records of other kinds are not kept.
type Dependencies struct {
	// Schedule is the schedule the capture was checked against.
	Schedule *plan.Schedule
	// producers[e] are the producers of event e by (EndCycle, Active, Index).
	producers map[plan.EventID][]decode.RecordRef
}

// maxMismatches bounds the records a schedule mismatch error names.
const maxMismatches = 5

// NewDependencies indexes the producers of every event of s in d, in one
// pass over its records. The capture must match the schedule: a wait,
// trigger or compute record whose task_id is beyond the task table, or a
// wait record of a task without dependent_event, is an error naming the
// first few such records (file offset, slot, record).
func NewDependencies(d *decode.Decoded, s *plan.Schedule) (*Dependencies, error) {
	return NewDependenciesNamed(d, s, nil)
}

// NewDependenciesNamed is NewDependencies for a capture read under names:
// a record's class (wait, trigger or compute) is names.Class, so the
// compute stages of a kernel family (a MegaMoe Dispatch, say) are
// producers as task-type records are.
func NewDependenciesNamed(d *decode.Decoded, s *plan.Schedule, names *kernelnames.Names) (*Dependencies, error) {
	deps := &Dependencies{Schedule: s, producers: map[plan.EventID][]decode.RecordRef{}}
	var bad []string
	badCount := 0
	active, last := -1, ^uint64(0)
	_, err := d.Capture.Scan(d.Summary.Layout, capture.ScanOptions{Record: func(sc *capture.SlotScan, index int, off int64, r *abi.ProfileRecord) {
		// The hook sees the slots with records in buffer order, as
		// Summary.Active lists them.
		if sc.Slot.Offset != last {
			last = sc.Slot.Offset
			active++
		}
		class := names.Class(r.DescID)
		wait, trigger, compute := class == abi.StageWait, class == abi.StageTrigger, class == abi.StageCompute
		if !wait && !trigger && !compute {
			return
		}
		problem := ""
		switch {
		case uint64(r.TaskID) >= uint64(len(s.Tasks)):
			problem = fmt.Sprintf("task_id %d is beyond the schedule's %d tasks", r.TaskID, len(s.Tasks))
		case wait && !s.Tasks[r.TaskID].DependentEvent.Valid():
			problem = fmt.Sprintf("a wait record of task %d, which has no dependent_event", r.TaskID)
		}
		if problem != "" {
			if badCount++; len(bad) < maxMismatches {
				bad = append(bad, fmt.Sprintf("@%#x %s record %d: %s", off, sc.Slot, index, problem))
			}
			return
		}
		t := &s.Tasks[r.TaskID]
		if !t.TriggerEvent.Valid() || !(trigger || compute && t.TaskType == abi.TaskTypeShmemPutMemSignal) {
			return
		}
		deps.producers[t.TriggerEvent] = append(deps.producers[t.TriggerEvent],
			decode.RecordRef{Active: int32(active), Index: uint32(index), StartCycle: r.StartCycle, EndCycle: r.EndCycle})
	}})
	if err != nil {
		return nil, err
	}
	if badCount > 0 {
		more := ""
		if badCount > len(bad) {
			more = fmt.Sprintf("\n  ... and %d more", badCount-len(bad))
		}
		return nil, &ScheduleMismatch{File: d.Capture.Name, Schedule: s.File, Count: badCount,
			Msg: fmt.Sprintf("%s does not match schedule %s (%d records):\n  %s%s", d.Capture.Name, s.File, badCount, strings.Join(bad, "\n  "), more)}
	}
	for e, ps := range deps.producers {
		sortByEnd(ps)
		deps.producers[e] = slices.Clip(ps)
	}
	return deps, nil
}

// sortByEnd sorts producers by end cycle, stably: they were appended in
// slot and record order, which ties keep. They come as runs already in end
// order (a slot's records end in order unless they overlap), so a natural
// merge sort merges the runs pairwise, O(n log runs); many short runs go
// to the library's stable sort.
func sortByEnd(ps []decode.RecordRef) {
	bounds := []int{0}
	for i := 1; i < len(ps); i++ {
		if ps[i].EndCycle < ps[i-1].EndCycle {
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 1 {
		return
	}
	if len(bounds) > len(ps)/8 {
		slices.SortStableFunc(ps, func(a, b decode.RecordRef) int { return cmp.Compare(a.EndCycle, b.EndCycle) })
		return
	}
	bounds = append(bounds, len(ps))
	src, dst := ps, make([]decode.RecordRef, len(ps))
	for len(bounds) > 2 {
		next := []int{0}
		for i := 0; i+1 < len(bounds); i += 2 {
			lo, mid := bounds[i], bounds[i+1]
			if i+2 >= len(bounds) {
				copy(dst[lo:mid], src[lo:mid])
				next = append(next, mid)
				continue
			}
			hi := bounds[i+2]
			l, r, k := lo, mid, lo
			for l < mid && r < hi {
				// Left first on ties: the earlier slot and record.
				if src[r].EndCycle < src[l].EndCycle {
					dst[k] = src[r]
					r++
				} else {
					dst[k] = src[l]
					l++
				}
				k++
			}
			k += copy(dst[k:], src[l:mid])
			copy(dst[k:], src[r:hi])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &ps[0] {
		copy(ps, src)
	}
}

// ScheduleMismatch is a capture whose records the schedule given with it
// cannot have written.
type ScheduleMismatch struct {
	// File is the capture, Schedule the schedule file.
	File, Schedule string
	// Count is how many records do not match.
	Count int
	// Msg names the first few records (file offset, slot, record) and why.
	Msg string
}

// Error returns Msg.
func (e *ScheduleMismatch) Error() string { return e.Msg }

// WaitEvent returns the event a wait record of task id waits on; false for
// a record that is not a wait or a task out of the table.
func (deps *Dependencies) WaitEvent(r *abi.ProfileRecord) (plan.EventID, bool) {
	if r.DescID != abi.RuntimeStageWaitDependency || uint64(r.TaskID) >= uint64(len(deps.Schedule.Tasks)) {
		return plan.NoEvent, false
	}
	e := deps.Schedule.Tasks[r.TaskID].DependentEvent
	return e, e.Valid()
}

// Producers returns the producers of event e, by end_cycle.
func (deps *Dependencies) Producers(e plan.EventID) []decode.RecordRef { return deps.producers[e] }

// Releasing returns the releasing producer of a wait on event e that ends
// at end: the producer with the latest end_cycle <= end (ties: the last in
// slot and record order); false when none ends by then.
func (deps *Dependencies) Releasing(e plan.EventID, end uint64) (decode.RecordRef, bool) {
	ps := deps.producers[e]
	i, _ := slices.BinarySearchFunc(ps, end, func(p decode.RecordRef, end uint64) int {
		if p.EndCycle <= end {
			return -1
		}
		return 1
	})
	if i == 0 {
		return decode.RecordRef{}, false
	}
	return ps[i-1], true
}

// FlowsOf calls yield with the producer of each arrow into wait record w
// (waiting on e) under mode, releasing producer first; it returns false
// when no producer ended by the end of the wait.
func (deps *Dependencies) FlowsOf(e plan.EventID, w decode.RecordRef, mode Mode, yield func(decode.RecordRef)) bool {
	rel, ok := deps.Releasing(e, w.EndCycle)
	if !ok {
		return false
	}
	if mode == None {
		return true
	}
	yield(rel)
	if mode != All {
		return true
	}
	ps := deps.producers[e]
	i, _ := slices.BinarySearchFunc(ps, w.StartCycle, func(p decode.RecordRef, start uint64) int { return cmp.Compare(p.EndCycle, start) })
	for ; i < len(ps) && ps[i].EndCycle <= w.EndCycle; i++ {
		if ps[i] != rel {
			yield(ps[i])
		}
	}
	return true
}

// Each calls yield with every arrow of d in trace order of the waits
// (for each wait, the releasing producer first), at most maxFlows of them
// (0: no cap), and returns what they came to. IDs count from 1.
func Each(d *decode.Decoded, deps *Dependencies, mode Mode, maxFlows int, yield func(Flow) bool) (Stats, error) {
	var st Stats
	stopped := false
	err := d.Records(func(r decode.Record) bool {
		e, ok := deps.WaitEvent(&r.ProfileRecord)
		if !ok {
			return true
		}
		st.Waits++
		w := r.Ref()
		if !deps.FlowsOf(e, w, mode, func(p decode.RecordRef) {
			if stopped {
				return
			}
			if maxFlows > 0 && st.Arrows >= uint64(maxFlows) {
				st.Capped++
				return
			}
			st.Arrows++
			if !yield(Flow{ID: st.Arrows, Event: e, From: p, To: w}) {
				stopped = true
			}
		}) {
			st.WaitsWithoutProducer++
		}
		return !stopped
	})
	return st, err
}

// IDs walks d once and returns, for writers that attach each arrow to
// both of its records (a protobuf writer's flow_ids on the producer's
// slice and terminating_flow_ids on the wait's), a lookup of the arrows
// each record starts (out) and ends (in), by id: the arrows of Each under
// mode and maxFlows, ids base+1, base+2, ... (give input i the base
// i<<32, as the JSON writer does, so ids are unique in a trace). bind, if
// not nil, says whether the writer can draw an arrow: those it cannot are
// left out of the lookup, keep their id (so the others' ids stay those of
// Each) and are counted in Unbound rather than Arrows. Every id in the
// lookup is in one record's out and one record's in; the slices returned
// are never changed. Memory is O(arrows).
func IDs(d *decode.Decoded, deps *Dependencies, mode Mode, maxFlows int, base uint64, bind func(Flow) bool) (func(rec *decode.Record) (out, in []uint64), Stats, error) {
	key := func(active int32, index uint32) uint64 { return uint64(uint32(active))<<32 | uint64(index) }
	outs, ins := map[uint64][]uint64{}, map[uint64][]uint64{}
	unbound := uint64(0)
	st, err := Each(d, deps, mode, maxFlows, func(f Flow) bool {
		if bind != nil && !bind(f) {
			unbound++
			return true
		}
		id := base + f.ID
		from, to := key(f.From.Active, f.From.Index), key(f.To.Active, f.To.Index)
		outs[from] = append(outs[from], id)
		ins[to] = append(ins[to], id)
		return true
	})
	if err != nil {
		return nil, st, err
	}
	st.Arrows -= unbound
	st.Unbound += unbound
	return func(rec *decode.Record) (out, in []uint64) {
		k := key(int32(rec.Active), uint32(rec.Index))
		return outs[k], ins[k]
	}, st, nil
}

// Warning is the trace's warning for a capture with waits that no
// producer of their event ended before, "" when there are none.
func Warning(st Stats) string {
	if st.WaitsWithoutProducer == 0 {
		return ""
	}
	return strconv.FormatUint(st.WaitsWithoutProducer, 10) + " of " + strconv.FormatUint(st.Waits, 10) +
		" wait records have no producer of their event ending before them (clock skew, dropped records, or not the schedule the kernel ran)"
}
