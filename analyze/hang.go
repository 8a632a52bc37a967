package analyze

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// Diagnosis says why the kernel of a capture stopped before its work was
// done (it hung, or crashed): the device publishes a record only once it
// is complete, so a capture copied back after a timeout holds exactly the
// work that finished. With the schedule, every worker core whose queue
// did not finish is listed with the task it was on or waits for, and the
// chains of waits between the cores are followed to their roots. Without
// one, the records alone can only show the cores that stopped inside a
// task and those that stopped first, and the diagnosis asks for the
// schedule. A capture whose kernel finished gets none (Rank.Diagnosis is
// nil).
type Diagnosis struct {
	// Summary says in one line what stopped and where the chains end.
	Summary string `json:"summary"`
	// NeedsPlan is true when the capture was analyzed without its
	// schedule (--plan), which the chain of waits needs.
	NeedsPlan bool `json:"needs_plan"`
	// Cores are, with a schedule, each worker core that did not finish its
	// queue, those that wait after the others, each part by core type then
	// block id; without one, the cores whose last record shows they
	// stopped inside a task, then (up to MaxListed) the cores whose records
	// end first.
	Cores []StoppedCore `json:"cores"`
	// Roots are where the chains of waits end: empty without a schedule.
	Roots []Root `json:"roots"`
}

// The states of a stopped core (StoppedCore.State).
const (
	// StateStoppedInside: the core stopped inside its task: the task's
	// dependencies were met (its wait ended, or it has none) but it never
	// finished.
	StateStoppedInside = "stopped-inside"
	// StateWaiting: the core waits for an event that never fired.
	StateWaiting = "waiting"
	// StateNeverEntered: a worker core with tasks whose header is zero.
	StateNeverEntered = "never-entered"
	// StateTriggerMissing: the core finished its queue but went past a
	// task whose trigger it never sent.
	StateTriggerMissing = "trigger-missing"
	// StateEndedFirst (without a schedule): the core's records end before
	// the other cores'.
	StateEndedFirst = "ended-first"
)

// The kinds of roots (Root.Kind).
const (
	// RootStoppedInside: a task whose dependencies were all met but never
	// finished: its core stopped inside it.
	RootStoppedInside = "stopped-inside"
	// RootTriggerNotSent: a task that finished its compute but never sent
	// its trigger, while its core went on.
	RootTriggerNotSent = "trigger-not-sent"
	// RootTooFewTriggers: a task that can never run: every trigger the
	// schedule gives its event finished, and the event did not fire.
	RootTooFewTriggers = "too-few-triggers"
	// RootWaitCycle: tasks that wait on each other in a cycle (deadlock).
	RootWaitCycle = "wait-cycle"
	// RootNeverEntered: a task on a core that never entered the kernel.
	RootNeverEntered = "never-entered"
	// RootRecordsDropped: a task on a core that dropped records: whether
	// it finished is not known (a core that dropped records is taken to
	// have finished its queue unless a chain of waits leads to it).
	RootRecordsDropped = "records-dropped"
)

// StoppedCore is where one core stopped.
type StoppedCore struct {
	Core  string `json:"core"`
	State string `json:"state"`
	// LastTask is the last task the core finished (nil: none, or without
	// a schedule); Task the task it was on or waits for (nil without a
	// schedule, where LastRecord tells what is known).
	LastTask     *uint32 `json:"last_task"`
	LastTaskType string  `json:"last_task_type,omitempty"`
	Task         *uint32 `json:"task"`
	TaskType     string  `json:"task_type,omitempty"`
	// Event is the event a waiting task waits on; Triggers the tasks of
	// the schedule that trigger it, TriggersFinished how many of them
	// finished, Unfinished the first of those that did not (up to
	// MaxListed) and WaitsOn their cores.
	Event            *uint32  `json:"event,omitempty"`
	Triggers         int      `json:"triggers"`
	TriggersFinished int      `json:"triggers_finished"`
	Unfinished       []uint32 `json:"unfinished_triggers,omitempty"`
	WaitsOn          []string `json:"waits_on_cores,omitempty"`
	// LastRecord names the core's last record ("task 17 MatMul compute"),
	// "" when it wrote none; LastEndCycle is that record's end.
	LastRecord   string `json:"last_record"`
	LastEndCycle uint64 `json:"last_end_cycle"`
}

// Root is where chains of waits end: one task for every kind but a cycle
// of waits, which names each task of the cycle.
type Root struct {
	Kind  string     `json:"kind"`
	Tasks []RootTask `json:"tasks"`
	// Message says it in a sentence, with task ids, types, cores, events.
	Message string `json:"message"`
	// BlockedCores counts the stopped cores whose chain of waits leads
	// here, the root's own included.
	BlockedCores int `json:"blocked_cores"`

	waiting int // the tasks waiting on a starved event, listed or not
}

// RootTask is a task at a root: on Core; Event is the event it waits on
// (too few triggers, a cycle) or the trigger it never sent, nil for none.
type RootTask struct {
	Task     uint32  `json:"task"`
	TaskType string  `json:"task_type"`
	Core     string  `json:"core"`
	Event    *uint32 `json:"event,omitempty"`
}

// MaxListed bounds the unfinished triggers and cores a stopped core lists,
// and the cores a diagnosis without a schedule names as ended first.
const MaxListed = 8

// The bits of a task's records seen (hangWalk.tasks).
const (
	seenWait uint8 = 1 << iota
	seenCompute
	seenTrigger
)

// lastRecord is the last record of an active core.
type lastRecord struct {
	index    int
	desc     uint32
	task     uint32
	kind     string
	end      uint64
	computes uint64 // compute records (an AIV pipeline's progress)
}

// hangWalk gathers, during the analysis' walk, what a diagnosis needs:
// one byte per scheduled task and one record per core.
type hangWalk struct {
	tasks []uint8
	last  []lastRecord
}

func newHangWalk(d *decode.Decoded, o Options) *hangWalk {
	h := &hangWalk{last: make([]lastRecord, len(d.Summary.Active))}
	for i := range h.last {
		h.last[i].index = -1
	}
	if o.Deps != nil {
		h.tasks = make([]uint8, len(o.Deps.Schedule.Tasks))
	}
	return h
}

// record notes r, of kind (KindWait, ...).
func (h *hangWalk) record(r *decode.Record, kind string) {
	l := &h.last[r.Active]
	if r.Index > l.index {
		l.index, l.desc, l.task, l.kind, l.end = r.Index, r.DescID, r.TaskID, kind, r.EndCycle
	}
	bit := uint8(0)
	switch kind {
	case KindWait:
		bit = seenWait
	case KindCompute:
		bit = seenCompute
		l.computes++
	case KindOther:
		if r.DescID == abi.RuntimeStageTerminateTask {
			bit = seenCompute // a Terminate task's compute record
			l.computes++
		}
	case KindTrigger:
		bit = seenTrigger
	}
	if bit != 0 && uint64(r.TaskID) < uint64(len(h.tasks)) {
		h.tasks[r.TaskID] |= bit
	}
}

// diagnose returns the diagnosis of res, nil when its kernel finished.
func (a *analyzer) diagnose(d *decode.Decoded, h *hangWalk, res *Rank) *Diagnosis {
	if a.o.Deps == nil {
		return a.diagnoseRecords(d, h, res)
	}
	s := a.o.Deps.Schedule
	if s.Mode == plan.EventDriven && h.allFinished(s) {
		return nil // the usual case, told without planning or allocating
	}
	r, err := plan.Plan(s)
	if err != nil {
		return nil // a schedule that does not plan: decode --plan refused it already
	}
	g := newHangGraph(a, d, h, res, s, r)
	if !slices.ContainsFunc(g.nodes, func(n *hangNode) bool { return n.core.Task != nil }) {
		// Every core finished its queue (a trigger nobody waits on may
		// be missing): the kernel did not stop.
		return nil
	}
	g.follow()
	return g.diagnosis()
}

// allFinished reports whether every task of s's queues finished.
func (h *hangWalk) allFinished(s *plan.Schedule) bool {
	for _, q := range [][]uint32{s.CubeTaskIndices, s.VectorTaskIndices} {
		for _, id := range q {
			if uint64(id) >= uint64(len(h.tasks)) || !h.finished(s, id) {
				return false
			}
		}
	}
	return true
}

// finished reports whether task t finished: its compute, and its trigger
// record unless it writes none (a put-with-signal signals itself).
func (h *hangWalk) finished(s *plan.Schedule, id uint32) bool {
	b := h.tasks[id]
	return b&seenCompute != 0 && (b&seenTrigger != 0 || s.Tasks[id].TaskType == abi.TaskTypeShmemPutMemSignal)
}

// describe names a core's last record: "task 17 MatMul compute".
func (a *analyzer) describe(l *lastRecord) string {
	if l.index < 0 {
		return ""
	}
	what := a.names.names.StageName(l.desc)
	if l.kind == KindCompute {
		what = a.names.taskType(&abi.ProfileRecord{DescID: l.desc, TaskID: l.task})
	}
	return fmt.Sprintf("task %d %s (%s)", l.task, what, l.kind)
}

// dropsUnattributed reports whether d dropped records it cannot place on
// a core: a JSON trace states only how many were dropped in all. Then any
// core may have dropped its last records, and each is taken, as a core
// that dropped records is, to have run past its last record.
func dropsUnattributed(d *decode.Decoded) bool {
	var placed uint64
	for _, s := range d.Summary.Active {
		placed += uint64(s.Dropped)
	}
	return d.Summary.Dropped > placed
}

// diagnoseRecords is the diagnosis without a schedule: a capture looks
// stopped when a core's last record is a wait (the task it let run never
// finished) or the compute of a task type that always triggers with no
// trigger after it. The cores that show it come first, then those whose
// records end first.
func (a *analyzer) diagnoseRecords(d *decode.Decoded, h *hangWalk, res *Rank) *Diagnosis {
	var inside, rest []StoppedCore
	unknown := dropsUnattributed(d)
	for i, s := range d.Summary.Active {
		l := &h.last[i]
		if l.index < 0 {
			continue
		}
		c := StoppedCore{Core: s.Slot.String(), State: StateEndedFirst, LastRecord: a.describe(l), LastEndCycle: l.end}
		if s.Dropped == 0 && !unknown && a.stoppedAfter(l) {
			c.State = StateStoppedInside
			inside = append(inside, c)
			continue
		}
		rest = append(rest, c)
	}
	if len(inside) == 0 {
		return nil
	}
	slices.SortStableFunc(rest, func(x, y StoppedCore) int { return cmp.Compare(x.LastEndCycle, y.LastEndCycle) })
	rest = rest[:min(len(rest), MaxListed)]
	cores := append(inside, rest...)
	first := inside[0]
	for _, c := range inside {
		if c.LastEndCycle < first.LastEndCycle {
			first = c
		}
	}
	return &Diagnosis{NeedsPlan: true, Cores: cores, Roots: []Root{},
		Summary: fmt.Sprintf("the kernel looks stopped: %d core(s) stopped inside a task, the first %s, after %s; give its schedule (--plan SCHEDULE) to follow the chain of waits to its root",
			len(inside), first.Core, first.LastRecord)}
}

// stoppedAfter reports whether a core whose last record is l stopped
// inside a task: l is a wait, or the compute of a task type that writes a
// trigger record after it.
func (a *analyzer) stoppedAfter(l *lastRecord) bool {
	switch l.kind {
	case KindWait:
		return true
	case KindCompute:
		ns, t := abi.LookupDesc(l.desc)
		return ns == abi.NamespaceTaskType && abi.TaskType(t) != abi.TaskTypeShmemPutMemSignal && a.names.family() == abi.FamilyNone
	}
	return false
}
