package analyze

import (
	"fmt"
	"strconv"
	"strings"
)

// cycles returns the cycles of waits among the stopped cores: each
// strongly connected set of nodes of more than one, or one that waits on
// itself (Tarjan's algorithm; the nodes are cores, so the recursion is as
// deep as there are cores at most).
func (g *hangGraph) cycles() [][]int {
	index := make([]int, len(g.nodes))
	low := make([]int, len(g.nodes))
	on := make([]bool, len(g.nodes))
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		self := false
		for _, w := range g.nodes[v].edges {
			switch {
			case w == v:
				self = true
			case index[w] < 0:
				visit(w)
				low[v] = min(low[v], low[w])
			case on[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 || self {
			for i, j := 0, len(scc)-1; i < j; i, j = i+1, j-1 {
				scc[i], scc[j] = scc[j], scc[i]
			}
			out = append(out, scc)
		}
	}
	for v := range g.nodes {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}

// taskName is "task 17 (MatMul) on AIC/3".
func (t *RootTask) taskName() string {
	return fmt.Sprintf("task %d (%s) on %s", t.Task, t.TaskType, t.Core)
}

func (t *RootTask) event() string {
	if t.Event == nil {
		return "-"
	}
	return strconv.FormatUint(uint64(*t.Event), 10)
}

// rootMessage says what a root is in a sentence.
func rootMessage(kind string, tasks []RootTask) string {
	t := &tasks[0]
	switch kind {
	case RootStoppedInside:
		return t.taskName() + " never finished though its dependencies were met: its core stopped inside it"
	case RootTriggerNotSent:
		return fmt.Sprintf("%s finished its compute but never sent its trigger of event %s", t.taskName(), t.event())
	case RootNeverEntered:
		return t.taskName() + " never ran: its core never entered the kernel"
	case RootRecordsDropped:
		return t.taskName() + " is not known to have finished: its core dropped records"
	}
	parts := make([]string, len(tasks))
	for i := range tasks {
		parts[i] = fmt.Sprintf("%s waits on event %s", tasks[i].taskName(), tasks[i].event())
	}
	return "a cycle of waits (deadlock): " + strings.Join(parts, ", ")
}

// starvedMessage says that the tasks waiting on an event whose every
// scheduled trigger finished can never run.
func starvedMessage(tasks []RootTask, waiting, triggers int) string {
	names := make([]string, len(tasks))
	for i := range tasks {
		names[i] = tasks[i].taskName()
	}
	more := ""
	if waiting > len(tasks) {
		more = fmt.Sprintf(" and %d more", waiting-len(tasks))
	}
	return fmt.Sprintf("event %s got all %d trigger(s) the schedule gives it and never fired, so it needs more triggers than the schedule has: %s%s can never run",
		tasks[0].event(), triggers, strings.Join(names, ", "), more)
}

// diagnosisSummary says in a line how many cores stopped and at what.
func diagnosisSummary(cores int, roots []Root) string {
	s := fmt.Sprintf("the kernel stopped: %d worker core(s) did not finish their queues", cores)
	switch len(roots) {
	case 0:
		return s
	case 1:
		return s + "; root: " + roots[0].Message
	}
	return fmt.Sprintf("%s; %d roots, the first: %s", s, len(roots), roots[0].Message)
}

// coresTable lists the stopped cores.
func (dg *Diagnosis) coresTable() *table {
	t := &table{title: "Stopped cores", head: []string{"core", "state", "last finished", "on or waiting for", "event", "triggers done", "unfinished triggers", "on cores", "last record"}}
	if dg.NeedsPlan {
		t.head = []string{"core", "state", "last record", "last end cycle"}
	}
	opt := func(id *uint32, typ string) string {
		if id == nil {
			return "-"
		}
		return fmt.Sprintf("%d %s", *id, typ)
	}
	for _, c := range dg.Cores {
		if dg.NeedsPlan {
			t.rows = append(t.rows, []string{c.Core, c.State, c.LastRecord, u(c.LastEndCycle)})
			continue
		}
		ev, done, missing := "-", "-", "-"
		if c.Event != nil {
			ev = u(uint64(*c.Event))
			done = fmt.Sprintf("%d of %d", c.TriggersFinished, c.Triggers)
			missing = joinIDs(c.Unfinished, c.Triggers-c.TriggersFinished)
		}
		rec := c.LastRecord
		if rec == "" {
			rec = "-"
		}
		t.rows = append(t.rows, []string{c.Core, c.State, opt(c.LastTask, c.LastTaskType), opt(c.Task, c.TaskType), ev, done, missing,
			orDash(strings.Join(c.WaitsOn, " ")), rec})
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// joinIDs lists ids, saying how many of total are left out.
func joinIDs(ids []uint32, total int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = u(uint64(id))
	}
	s := strings.Join(parts, " ")
	if total > len(ids) {
		s += fmt.Sprintf(" +%d", total-len(ids))
	}
	return orDash(s)
}

// writeDiagnosis writes k's diagnosis, if any, before its tables.
func (k *Rank) writeDiagnosis(tw *textWriter, top int, md bool) {
	dg := k.Diagnosis
	if dg == nil {
		return
	}
	if md {
		tw.printf("> **Stopped:** %s.\n", dg.Summary)
		for i, r := range dg.Roots {
			tw.printf(">\n> Root %d (%s, %d blocked core(s)): %s.\n", i+1, r.Kind, r.BlockedCores, r.Message)
		}
		tw.printf("\n")
		t := dg.coresTable().top(top)
		t.markdown(tw)
		tw.printf("\n")
		return
	}
	tw.printf("STOPPED: %s\n", dg.Summary)
	for i, r := range dg.Roots {
		tw.printf("  root %d (%s, %d blocked core(s)): %s\n", i+1, r.Kind, r.BlockedCores, r.Message)
	}
	tw.printf("\n")
	dg.coresTable().top(top).text(tw)
	tw.printf("\n")
}
