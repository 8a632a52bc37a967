package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// hangNode is a worker core that did not finish its queue.
type hangNode struct {
	core  StoppedCore
	slot  abi.Slot
	task  uint32       // the task it was on or waits for
	event plan.EventID // the event it waits on (StateWaiting)
	holes []uint32     // tasks it went past without their trigger
	edges []int        // the nodes of its event's unfinished triggers
	roots []int        // the roots it ends at on its own (no edge)
	// unseen: a core of a JSON trace without records, which may not have
	// entered the kernel (Options.TraceCores).
	unseen bool
}

// hangGraph follows the chains of waits between a capture's stopped cores.
type hangGraph struct {
	a     *analyzer
	h     *hangWalk
	s     *plan.Schedule
	nodes []*hangNode
	// owner is, per task id, the node of the stopped core that holds it
	// unfinished (a task it went past without its trigger, or one from
	// the task it was on), droppedOwner(k) for a task of the k-th core that
	// dropped records, or noOwner; wentPast marks the tasks a core went
	// past without their trigger. Eight bytes per task, and only for a
	// capture that stopped.
	owner    []int32
	wentPast []bool
	// droppedCores name the cores that dropped records.
	droppedCores []string
	roots        []Root
	keys         map[string]int // a root's key: its index in roots
}

// noOwner marks a task no stopped core holds (hangGraph.owner).
const noOwner = -1

// dropped is the owner value of a task of the k-th core that dropped
// records.
func droppedOwner(k int) int32 { return int32(-2 - k) }

// newHangGraph finds each worker core that did not finish its queue under
// the schedule's assignment, and where it is in it.
func newHangGraph(a *analyzer, d *decode.Decoded, h *hangWalk, res *Rank, s *plan.Schedule, r plan.Result) *hangGraph {
	g := &hangGraph{a: a, h: h, s: s, keys: map[string]int{}, owner: make([]int32, len(s.Tasks)), wentPast: make([]bool, len(s.Tasks))}
	for i := range g.owner {
		g.owner[i] = noOwner
	}
	assign := plan.Assign(s, r)
	active := map[uint64]int{}
	for i, as := range d.Summary.Active {
		active[as.Slot.Offset] = i
	}
	entered := map[string]bool{}
	for _, c := range res.Cores {
		entered[c.Core] = true
	}
	unknown := dropsUnattributed(d)
	l := d.Summary.Layout
	for i := range l.NumSlots() {
		slot := l.Slot(i)
		w, n := assign.WorkerOn(slot.CoreType, slot.BlockID)
		if n == 0 {
			continue
		}
		q := assign.Queue(slot.CoreType, w)
		ai, ok := active[slot.Offset]
		var last *lastRecord
		var dropped uint32
		if ok {
			last, dropped = &h.last[ai], d.Summary.Active[ai].Dropped
			if unknown {
				dropped = max(dropped, 1) // it may have dropped its last records
			}
		}
		in := entered[slot.String()]
		if node := g.place(slot, q, r.Mode, in || a.o.TraceCores, last, dropped); node != nil {
			node.unseen = !in
			g.nodes = append(g.nodes, node)
		}
	}
	return g
}

// place returns the node of the core on slot running queue q, nil when it
// finished its queue.
func (g *hangGraph) place(slot abi.Slot, q []uint32, mode plan.Mode, entered bool, last *lastRecord, dropped uint32) *hangNode {
	n := &hangNode{slot: slot, core: StoppedCore{Core: slot.String()}, event: plan.NoEvent}
	if last != nil {
		n.core.LastRecord, n.core.LastEndCycle = g.a.describe(last), last.end
	}
	var pos int // the index in q of the task it was on or waits for
	switch {
	case !entered:
		n.core.State = StateNeverEntered
	case mode == plan.AIVPipeline:
		if last != nil {
			pos = int(min(last.computes, uint64(len(q))))
		}
		if pos == len(q) || dropped > 0 {
			return nil
		}
		n.core.State = StateStoppedInside
	default:
		reached := -1
		for i, id := range q {
			if g.h.tasks[id] != 0 {
				reached = i
			}
		}
		for _, id := range q[:max(reached, 0)] {
			if !g.h.finished(g.s, id) {
				n.holes = append(n.holes, id)
			}
		}
		pos = reached + 1
		if reached >= 0 && !g.h.finished(g.s, q[reached]) {
			if g.h.tasks[q[reached]]&seenCompute == 0 {
				pos = reached // it stopped inside the task it reached
			} else {
				// Its compute ended but no trigger followed: stuck sending
				// it, or gone on to a wait that never ends.
				n.holes = append(n.holes, q[reached])
			}
		}
		if pos == len(q) && len(n.holes) == 0 {
			return nil
		}
		if dropped > 0 {
			// Its records past its capacity are lost: taken as finished,
			// unless a chain of waits leads to one of its tasks.
			g.droppedCores = append(g.droppedCores, slot.String())
			g.hold(q, droppedOwner(len(g.droppedCores)-1))
			return nil
		}
	}
	if pos == len(q) {
		// Only holes: it went on past them and finished its queue.
		n.core.State, n.task = StateTriggerMissing, q[pos-1]
		lt := n.task
		n.core.LastTask, n.core.LastTaskType = &lt, g.a.names.typeName(g.s.Tasks[lt].TaskType)
		g.holdHoles(n)
		return n
	}
	n.task = q[pos]
	if t := &g.s.Tasks[n.task]; mode != plan.AIVPipeline && len(n.holes) > 0 && n.holes[len(n.holes)-1] == q[pos-1] &&
		g.h.tasks[n.task] == 0 && !t.DependentEvent.Valid() && n.core.State == "" {
		// Nothing stopped its next task: it is still sending the trigger.
		pos--
		n.task = q[pos]
		n.core.State = StateTriggerMissing
	}
	if pos > 0 {
		lt := q[pos-1]
		n.core.LastTask, n.core.LastTaskType = &lt, g.a.names.typeName(g.s.Tasks[lt].TaskType)
	}
	task := n.task // a copy: a pointer into n would keep every node alive with the analysis
	n.core.Task, n.core.TaskType = &task, g.a.names.typeName(g.s.Tasks[n.task].TaskType)
	if mode != plan.AIVPipeline { // a pipeline's cores share one queue and wait on nothing
		g.hold(q[pos:], int32(len(g.nodes)))
		g.holdHoles(n)
	}
	if n.core.State == "" {
		g.state(n, mode)
	}
	return n
}

// hold gives the tasks ids to owner.
func (g *hangGraph) hold(ids []uint32, owner int32) {
	for _, id := range ids {
		g.owner[id] = owner
	}
}

// holdHoles gives n (the next node) the tasks it went past.
func (g *hangGraph) holdHoles(n *hangNode) {
	for _, id := range n.holes {
		g.owner[id] = int32(len(g.nodes))
		g.wentPast[id] = true
	}
}

// state decides whether a core that entered stopped inside its task or
// waits on its event.
func (g *hangGraph) state(n *hangNode, mode plan.Mode) {
	t := &g.s.Tasks[n.task]
	switch {
	case mode == plan.AIVPipeline, g.h.tasks[n.task] != 0, !t.DependentEvent.Valid():
		n.core.State = StateStoppedInside
	default:
		n.core.State = StateWaiting
		n.event = t.DependentEvent
		e := uint32(n.event)
		n.core.Event = &e
	}
}

// follow gives each stopped core its event's triggers and the roots its
// chain ends at on its own, and links it to the cores of the triggers
// that did not finish.
func (g *hangGraph) follow() {
	triggers := map[plan.EventID][]uint32{}
	for _, n := range g.nodes {
		if n.core.State == StateWaiting {
			triggers[n.event] = nil
		}
	}
	for _, q := range [][]uint32{g.s.CubeTaskIndices, g.s.VectorTaskIndices} {
		for _, id := range q {
			if e := g.s.Tasks[id].TriggerEvent; e.Valid() {
				if ts, ok := triggers[e]; ok {
					triggers[e] = append(ts, id)
				}
			}
		}
	}
	for i, n := range g.nodes {
		switch n.core.State {
		case StateStoppedInside:
			kind := RootStoppedInside
			if n.unseen {
				kind = RootNeverEntered // nothing says it started its task
			}
			n.roots = append(n.roots, g.root(kind, []int{i}, plan.NoEvent))
		case StateNeverEntered:
			n.roots = append(n.roots, g.root(RootNeverEntered, []int{i}, plan.NoEvent))
		case StateWaiting:
			g.link(i, n, triggers[n.event])
		}
	}
}

// link finds the triggers of n's event that did not finish and the cores
// they are on.
func (g *hangGraph) link(i int, n *hangNode, ts []uint32) {
	n.core.Triggers = len(ts)
	seen := map[int]bool{}
	for _, id := range ts {
		if g.h.finished(g.s, id) {
			n.core.TriggersFinished++
			continue
		}
		if len(n.core.Unfinished) < MaxListed {
			n.core.Unfinished = append(n.core.Unfinished, id)
		}
		o := g.owner[id]
		if o < 0 {
			if o != noOwner {
				core := g.droppedCores[-2-o]
				r := g.addRoot(RootRecordsDropped, []RootTask{g.rootTask(id, core, plan.NoEvent)})
				if !slices.Contains(n.roots, r) {
					n.roots = append(n.roots, r)
				}
			}
			continue
		}
		j := int(o)
		m := g.nodes[j]
		if g.wentPast[id] { // m went past it
			r := g.taskRoot(RootTriggerNotSent, id, j, g.s.Tasks[id].TriggerEvent)
			if !slices.Contains(n.roots, r) {
				n.roots = append(n.roots, r)
			}
			continue
		}
		if !seen[j] {
			seen[j] = true
			n.edges = append(n.edges, j)
			if len(n.core.WaitsOn) < MaxListed {
				n.core.WaitsOn = append(n.core.WaitsOn, m.core.Core)
			}
		}
	}
	switch {
	case n.core.TriggersFinished < n.core.Triggers:
	case n.unseen:
		n.roots = append(n.roots, g.root(RootNeverEntered, []int{i}, plan.NoEvent))
	default:
		n.roots = append(n.roots, g.starved(i, n))
	}
}

// root returns the index of the root of kind at the next tasks of nodes,
// adding it once.
func (g *hangGraph) root(kind string, nodes []int, e plan.EventID) int {
	var tasks []RootTask
	for _, i := range nodes {
		n := g.nodes[i]
		ev := e
		if kind == RootWaitCycle {
			ev = n.event
		}
		tasks = append(tasks, g.rootTask(n.task, n.core.Core, ev))
	}
	return g.addRoot(kind, tasks)
}

// taskRoot is root for task id on node j.
func (g *hangGraph) taskRoot(kind string, id uint32, j int, e plan.EventID) int {
	return g.addRoot(kind, []RootTask{g.rootTask(id, g.nodes[j].core.Core, e)})
}

func (g *hangGraph) rootTask(id uint32, core string, e plan.EventID) RootTask {
	t := RootTask{Task: id, TaskType: g.a.names.typeName(g.s.Tasks[id].TaskType), Core: core}
	if e.Valid() {
		v := uint32(e)
		t.Event = &v
	}
	return t
}

// starved returns the root of the event node i waits on, which got every
// trigger the schedule gives it: one root per event, naming each task
// that waits on it (up to MaxListed).
func (g *hangGraph) starved(i int, n *hangNode) int {
	key := fmt.Sprintf("%s event %d", RootTooFewTriggers, n.event)
	t := g.rootTask(n.task, n.core.Core, n.event)
	r, ok := g.keys[key]
	if !ok {
		g.roots = append(g.roots, Root{Kind: RootTooFewTriggers})
		r = len(g.roots) - 1
		g.keys[key] = r
	}
	root := &g.roots[r]
	if len(root.Tasks) < MaxListed {
		root.Tasks = append(root.Tasks, t)
	}
	root.waiting++
	root.Message = starvedMessage(root.Tasks, root.waiting, n.core.Triggers)
	return r
}

func (g *hangGraph) addRoot(kind string, tasks []RootTask) int {
	var key strings.Builder
	key.WriteString(kind)
	for _, t := range tasks {
		fmt.Fprintf(&key, " %d@%s", t.Task, t.Core)
	}
	if i, ok := g.keys[key.String()]; ok {
		return i
	}
	msg := rootMessage(kind, tasks)
	if kind == RootNeverEntered && g.a.o.TraceCores {
		msg = tasks[0].taskName() + " never ran: its core wrote no record (a JSON trace holds no core without one, so whether it entered the kernel is not known)"
	}
	g.roots = append(g.roots, Root{Kind: kind, Tasks: tasks, Message: msg})
	g.keys[key.String()] = len(g.roots) - 1
	return len(g.roots) - 1
}

// diagnosis finds the cycles of waits, counts the cores whose chains end
// at each root, and returns the roots in order of the cores they block.
func (g *hangGraph) diagnosis() *Diagnosis {
	for _, scc := range g.cycles() {
		r := g.root(RootWaitCycle, scc, plan.NoEvent)
		for _, i := range scc {
			g.nodes[i].roots = append(g.nodes[i].roots, r)
		}
	}
	blocked := make([]int, len(g.roots))
	seen := make([]bool, len(g.nodes))
	for i := range g.nodes {
		clear(seen)
		ends := map[int]bool{}
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			n := g.nodes[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			for _, r := range n.roots {
				ends[r] = true
			}
			for _, j := range n.edges {
				if !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		for r := range ends {
			blocked[r]++
		}
	}
	for i := range g.roots {
		g.roots[i].BlockedCores = blocked[i]
	}
	roots := slices.Clone(g.roots)
	slices.SortStableFunc(roots, func(x, y Root) int { return cmp.Compare(y.BlockedCores, x.BlockedCores) })
	cores := make([]StoppedCore, len(g.nodes))
	for i, n := range g.nodes {
		cores[i] = n.core
	}
	// The cores where chains end first, then those that wait.
	slices.SortStableFunc(cores, func(x, y StoppedCore) int {
		return cmp.Compare(b2i(x.State == StateWaiting), b2i(y.State == StateWaiting))
	})
	return &Diagnosis{Cores: cores, Roots: roots, Summary: diagnosisSummary(len(cores), roots)}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
