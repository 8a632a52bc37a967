package synth

import (
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// Faults make the simulated kernel hang as a faulty one does, so that the
// tools that diagnose a hung kernel's capture (analyze's diagnosis) can be
// tested against a known root. A kernel with a fault never ends: each core
// that cannot go on stays where it is, and the capture holds what the
// device would leave, only the records that finished (the device publishes
// a record's count once the record is complete). Faults exclude
// Options.WaitTimeout: a watchdog would end the waits a fault makes
// endless.
type Faults struct {
	// StopInTask are tasks whose core stops inside them, as a core that
	// faults or spins forever does: the task's wait, when it has one, ends
	// and is recorded, its compute never finishes, and the core runs
	// nothing more. In an AIV pipeline, where every AIV worker runs the
	// whole queue, worker 0 stops.
	StopInTask []uint32
	// SkipTrigger are tasks whose trigger is never sent: the task's
	// compute is recorded, its trigger record is not, its event never
	// gets that trigger, and its core goes on with its queue.
	SkipTrigger []uint32
	// StarveEvents are events that need one trigger more than the
	// schedule's tasks send (a device event whose trigger count is larger
	// than the schedule has): they never fire.
	StarveEvents []plan.EventID
	// Hang writes the capture of a kernel whose waits never end instead of
	// refusing the schedule: a cycle of waits, a wait on an event no
	// scheduled task triggers, a trigger on a core that never enters
	// (Options.IdleCores). The other faults imply it.
	Hang bool
}

// any reports whether f injects a fault (or lets waits hang).
func (f *Faults) any() bool {
	return f.Hang || len(f.StopInTask) > 0 || len(f.SkipTrigger) > 0 || len(f.StarveEvents) > 0
}

// stopsIn reports whether worker w stops inside task id.
func (f *Faults) stopsIn(id uint32, mode plan.Mode, w uint32) bool {
	return slices.Contains(f.StopInTask, id) && (mode != plan.AIVPipeline || w == 0)
}

// check refuses faults that name no scheduled task or event, or that the
// schedule's mode cannot have.
func (f *Faults) check(s *plan.Schedule, r plan.Result, waitTimeout uint64) error {
	if !f.any() {
		return nil
	}
	if waitTimeout != 0 {
		return fmt.Errorf("%s: a wait timeout ends the waits that faults make endless: give one or the other", s.File)
	}
	scheduled := map[uint32]bool{}
	waited := map[plan.EventID]bool{}
	for _, q := range [][]uint32{s.CubeTaskIndices, s.VectorTaskIndices} {
		for _, id := range q {
			scheduled[id] = true
			waited[s.Tasks[id].DependentEvent] = true
		}
	}
	for _, id := range f.StopInTask {
		if !scheduled[id] {
			return fmt.Errorf("%s: cannot stop inside task %d: no queue holds it", s.File, id)
		}
	}
	for _, id := range f.SkipTrigger {
		switch {
		case !scheduled[id]:
			return fmt.Errorf("%s: cannot skip the trigger of task %d: no queue holds it", s.File, id)
		case r.Mode == plan.AIVPipeline:
			return fmt.Errorf("%s: cannot skip the trigger of task %d: an AIV pipeline sends no triggers", s.File, id)
		case s.Tasks[id].TaskType == abi.TaskTypeShmemPutMemSignal:
			return fmt.Errorf("%s: cannot skip the trigger of task %d: a ShmemPutMemSignal's put signals its event itself", s.File, id)
		case !s.Tasks[id].TriggerEvent.Valid():
			return fmt.Errorf("%s: cannot skip the trigger of task %d: it triggers no event", s.File, id)
		}
	}
	for _, e := range f.StarveEvents {
		if !e.Valid() || !waited[e] || r.Mode == plan.AIVPipeline {
			return fmt.Errorf("%s: cannot starve event %d: no scheduled task waits on it", s.File, e)
		}
	}
	return nil
}

// markStopped notes in the manifest where each core that did not finish
// its queue stopped.
func (sim *simulator) markStopped() {
	for _, c := range sim.cores {
		if len(c.queue) == 0 {
			continue
		}
		m := c.slot
		m.NextTask = c.queue[0]
		switch {
		case c.stopped:
			m.Stopped = true
		case c.blocked:
			m.Blocked = true
			m.BlockedOn = sim.s.Tasks[c.queue[0]].DependentEvent
		}
	}
}
