package analyze

import (
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// groups are named distributions.
type groups[K comparable] struct {
	m      map[K]*dist
	budget *int // exact values left, shared by every group of an analysis
}

// get returns the distribution of group k, made on first use.
func (g *groups[K]) get(k K) *dist {
	d := g.m[k]
	if d == nil {
		if g.m == nil {
			g.m = map[K]*dist{}
		}
		d = newDist(g.budget)
		g.m[k] = d
	}
	return d
}

func (g *groups[K]) add(k K, v uint64) { g.get(k).add(v) }

// The hot loop finds a record's groups through caches; the names are
// the namer's, which the caches only remember.

// descEntry caches the groups a compute desc_id names by itself.
type descEntry struct {
	desc  uint32
	valid bool
	typ   *dist // nil when the type depends on the task (graph stage with a schedule)
	stage *dist // the desc's stage, for tasks without a names-file stage (made on first use)
}

// taskCache remembers a group per task id for ids below its length.
type taskCache []*dist

// none marks a task cache entry whose task has no group of that kind.
var none = &dist{}

func (c taskCache) get(id uint32, slow func() *dist) *dist {
	if int(id) < len(c) {
		if d := c[id]; d != nil {
			return d
		}
		d := slow()
		c[id] = d
		return d
	}
	return slow()
}

// fastGroups find the groups of records quickly.
type fastGroups struct {
	a     *analyzer
	descs [256]descEntry
	// taskStage[id]: the names file's stage group of task id, or none.
	taskStage taskCache
	// graphType[id]: the schedule's task type group of task id.
	graphType taskCache
	// waitStage[id]: the wait group of task id.
	waitStage taskCache
	// owners below len(ownerDense) are found without a map.
	ownerDense []*dist
}

// maxDenseTasks bounds the task caches (8 bytes per task each).
const maxDenseTasks = 1 << 24

func newFastGroups(a *analyzer) *fastGroups {
	g := &fastGroups{a: a, ownerDense: make([]*dist, 1024)}
	n := 0
	if a.o.Deps != nil {
		n = len(a.o.Deps.Schedule.Tasks)
	}
	if a.o.Names != nil {
		maxID := -1
		for id := range a.o.Names.Tasks {
			maxID = max(maxID, int(id))
		}
		if maxID < 2*len(a.o.Names.Tasks)+1024 {
			n = max(n, maxID+1)
		}
	}
	n = min(n, maxDenseTasks)
	g.taskStage, g.graphType, g.waitStage = make(taskCache, n), make(taskCache, n), make(taskCache, n)
	return g
}

func (g *fastGroups) desc(r *abi.ProfileRecord) *descEntry {
	e := &g.descs[r.DescID%uint32(len(g.descs))]
	if e.valid && e.desc == r.DescID {
		return e
	}
	a := g.a
	*e = descEntry{desc: r.DescID, valid: true}
	if ns, _ := abi.LookupDesc(r.DescID); ns == abi.NamespaceTaskType || a.o.Deps == nil {
		e.typ = a.types.get(a.names.taskType(r))
	}
	return e
}

// compute adds a compute record of duration dur to its groups.
func (g *fastGroups) compute(r *abi.ProfileRecord, dur uint64) {
	a := g.a
	e := g.desc(r)
	typ := e.typ
	if typ == nil {
		typ = g.graphType.get(r.TaskID, func() *dist { return a.types.get(a.names.taskType(r)) })
	}
	typ.add(dur)
	stage := g.taskStage.get(r.TaskID, func() *dist {
		if s, ok := a.names.names.TaskStage(r.TaskID); ok {
			return a.stages.get(s)
		}
		return none
	})
	if stage == none {
		if e.stage == nil {
			e.stage = a.stages.get(a.names.names.StageName(r.DescID))
		}
		stage = e.stage
	}
	stage.add(dur)
	if o := r.OwnerID; o != abi.InvalidOwnerID {
		if int(o) < len(g.ownerDense) {
			d := g.ownerDense[o]
			if d == nil {
				d = a.owners.get(o)
				g.ownerDense[o] = d
			}
			d.add(dur)
		} else {
			a.owners.add(o, dur)
		}
	}
}

// wait adds a wait record to the group of its task's stage.
func (g *fastGroups) wait(r *abi.ProfileRecord, dur uint64) {
	a := g.a
	g.waitStage.get(r.TaskID, func() *dist { return a.waits.get(a.names.taskStage(r.TaskID)) }).add(dur)
}
