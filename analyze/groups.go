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
	// stageOf[id] is the index in stageNames of the names file's stage of
	// task id, or -1; tasks past its length are looked up in the file's map.
	stageOf    []int32
	stageNames []string
	// stageDist[i] and waitDist[i] are the compute and wait groups of
	// stageNames[i], made on first use.
	stageDist, waitDist []*dist
	// graphType[id]: the schedule's task type group of task id.
	graphType taskCache
	// waitStage[id]: the wait group of task id, for tasks the names file
	// does not name.
	waitStage taskCache
	// owners below len(ownerDense) are found without a map.
	ownerDense []*dist
}

// maxDenseTasks bounds the task tables (4 to 8 bytes per task each).
const maxDenseTasks = 1 << 24

func newFastGroups(a *analyzer) *fastGroups {
	g := &fastGroups{a: a, ownerDense: make([]*dist, 1024)}
	n := 0
	if a.o.Deps != nil {
		n = min(len(a.o.Deps.Schedule.Tasks), maxDenseTasks)
	}
	g.graphType, g.waitStage = make(taskCache, n), make(taskCache, n)
	if a.o.Names != nil && a.o.Names.Tasks.Len() > 0 {
		// Records look tasks up in no useful order, each only two or
		// three times: a table indexed by task id, built once, is several
		// times faster than the names file's map.
		maxID := -1
		for id := range a.o.Names.Tasks.All() {
			maxID = max(maxID, int(id))
		}
		if maxID < 2*a.o.Names.Tasks.Len()+1024 && maxID < maxDenseTasks {
			g.stageOf = make([]int32, maxID+1)
			for i := range g.stageOf {
				g.stageOf[i] = -1
			}
			index := map[string]int32{}
			for id, name := range a.o.Names.Tasks.All() {
				i, ok := index[name]
				if !ok {
					i = int32(len(g.stageNames))
					index[name] = i
					g.stageNames = append(g.stageNames, name)
				}
				g.stageOf[id] = i
			}
			g.stageDist, g.waitDist = make([]*dist, len(g.stageNames)), make([]*dist, len(g.stageNames))
		}
	}
	return g
}

// namedStage returns the index of task id's stage in stageNames, -1 when
// the names file gives it none, -2 when the id is past the table.
func (g *fastGroups) namedStage(id uint32) int32 {
	if int(id) < len(g.stageOf) {
		return g.stageOf[id]
	}
	return -2
}

func (g *fastGroups) desc(r *abi.ProfileRecord) *descEntry {
	e := &g.descs[r.DescID%uint32(len(g.descs))]
	if e.valid && e.desc == r.DescID {
		return e
	}
	a := g.a
	*e = descEntry{desc: r.DescID, valid: true}
	if a.names.typeByDesc(r.DescID) {
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
	var stage *dist
	switch i := g.namedStage(r.TaskID); {
	case i >= 0:
		if stage = g.stageDist[i]; stage == nil {
			stage = a.stages.get(g.stageNames[i])
			g.stageDist[i] = stage
		}
	case i == -2:
		if s, ok := a.names.names.TaskStage(r.TaskID); ok {
			stage = a.stages.get(s)
			break
		}
		fallthrough
	default:
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
	if i := g.namedStage(r.TaskID); i >= 0 {
		d := g.waitDist[i]
		if d == nil {
			d = a.waits.get(g.stageNames[i])
			g.waitDist[i] = d
		}
		d.add(dur)
		return
	}
	g.waitStage.get(r.TaskID, func() *dist { return a.waits.get(a.names.taskStage(r.TaskID)) }).add(dur)
}
