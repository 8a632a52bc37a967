package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// The keys a schedule may have, in the order they are documented.
var (
	scheduleKeys = []string{"mode", "num_workers", "vector_worker_stride", "tasks", "cube_task_indices", "vector_task_indices", "kernel_family", "replica_gradients"}
	taskKeys     = []string{"task_type", "dependent_event", "trigger_event", "graph_stage", "owner_id", "stage_task_index", "profile_desc_id"}
)

// parseYAML is the authoritative parser: every schedule the JSON fast path
// accepts parses to the same Schedule here, and every error is reported
// from here. note says what else to do when the file is too large to read
// as YAML.
//
// With problems in the text it returns them, and also the schedule as far
// as it could be read (nil when there is no document to read), so that
// planning can report what the good parts show.
func parseYAML(file string, data []byte, lim yamlpos.Limits, note string) (*Schedule, error) {
	p := &yamlParser{Reader: yamlpos.Reader{File: file, Errs: ErrorList{Max: maxErrors}}}
	root, err := yamlpos.Document(file, "YAML", data, lim, note)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			p.Errs.Add(e)
			return nil, &p.Errs
		}
		return nil, err
	}
	if root == nil {
		p.Errs.Add(&Error{File: file, Line: 1, Col: 1, Msg: "empty schedule"})
		return nil, &p.Errs
	}
	s := &Schedule{File: file, src: data}
	p.schedule(root, s)
	if p.Errs.Len() > 0 {
		p.Errs.Sort()
		return s, &p.Errs
	}
	return s, nil
}

// yamlParser reads a schedule's nodes.
type yamlParser struct {
	yamlpos.Reader
}

func (p *yamlParser) schedule(n *yaml.Node, s *Schedule) {
	m := p.Mapping(n, "", scheduleKeys, []string{"num_workers", "tasks"})
	if m == nil {
		return
	}
	// An optional key given as null is absent, as in a task; a required
	// one is still read, and null is not what it needs.
	for k, v := range m {
		if k != "num_workers" && k != "tasks" && yamlpos.IsNull(v) {
			delete(m, k)
		}
	}
	if v := m["mode"]; v != nil {
		if name, ok := p.Str(v, "mode"); ok {
			mode, known := ParseMode(name)
			if !known {
				p.Unknown(v, "mode", "mode", name, []string{"event_driven", "aiv_pipeline"})
			}
			s.Mode = mode
		}
	}
	if v := m["num_workers"]; v != nil {
		s.NumWorkers, _ = p.Int(v, "num_workers", math.MinInt64, math.MaxInt64)
	}
	if v := m["vector_worker_stride"]; v != nil {
		s.VectorWorkerStride, _ = p.Int(v, "vector_worker_stride", 1, math.MaxInt64)
	}
	// The family first: the tasks' task_type names are read in its table.
	if v := m["kernel_family"]; v != nil {
		if name, ok := p.Str(v, "kernel_family"); ok {
			f, known := KernelFamily(name)
			if !known {
				p.Unknown(v, "kernel_family", "kernel family", name, familyNames())
			}
			s.KernelFamily = f
		}
	}
	if v := m["tasks"]; v != nil {
		items := p.Seq(v, "tasks")
		s.Tasks = make([]Task, len(items))
		for i, item := range items {
			s.Tasks[i] = p.task(item, fmt.Sprintf("tasks[%d]", i), s.KernelFamily)
		}
	}
	if v := m["replica_gradients"]; v != nil {
		if n, ok := p.Int(v, "replica_gradients", 0, math.MaxUint32); ok {
			s.ReplicaGradients = uint32(n)
		}
	}
	s.CubeTaskIndices = p.indices(m["cube_task_indices"], "cube_task_indices")
	s.VectorTaskIndices = p.indices(m["vector_task_indices"], "vector_task_indices")
}

func (p *yamlParser) task(n *yaml.Node, path string, f abi.Family) Task {
	t := NewTask(0)
	m := p.Mapping(n, path, taskKeys, []string{"task_type"})
	if m == nil {
		return t
	}
	if v := m["task_type"]; v != nil {
		t.TaskType, _ = p.taskType(v, path+".task_type", f)
	}
	t.DependentEvent = p.event(m["dependent_event"], path+".dependent_event")
	t.TriggerEvent = p.event(m["trigger_event"], path+".trigger_event")
	// An optional field given as null is absent (what a JSON writer makes
	// of None).
	for k, v := range m {
		if k != "task_type" && yamlpos.IsNull(v) {
			delete(m, k)
		}
	}
	if v := m["graph_stage"]; v != nil {
		if s, ok := p.Int(v, path+".graph_stage", 0, abi.GraphStageCount-1); ok {
			t.GraphStage = uint32(s)
		}
	}
	if v := m["profile_desc_id"]; v != nil {
		// MaxUint32 is the runtime's INVALID_PROFILE_DESC_ID: not given.
		if d, ok := p.Int(v, path+".profile_desc_id", 0, NoProfileDescID); ok {
			t.ProfileDescID = uint32(d)
		}
	}
	if v := m["owner_id"]; v != nil {
		if o, ok := p.Int(v, path+".owner_id", 0, math.MaxUint32); ok {
			t.OwnerID = uint32(o)
		}
	}
	if v := m["stage_task_index"]; v != nil {
		// MaxUint32 is reserved for "not given".
		if i, ok := p.Int(v, path+".stage_task_index", 0, math.MaxUint32-1); ok {
			t.StageTaskIndex = uint32(i)
		}
	}
	return t
}

// taskType reads a TaskType given by name ("MatMul") or number (103): a
// name is f's (KernelFamily), the schema's TaskType enum's under
// abi.FamilyNone. A number the schema does not name is accepted (the
// device may know newer task types) as long as its descriptor stays in the
// task-type namespace.
func (p *yamlParser) taskType(n *yaml.Node, path string, f abi.Family) (abi.TaskType, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v, ok := p.Int(n, path, 0, abi.TaskTypeCount-1)
		return abi.TaskType(v), ok
	}
	name, ok := p.Str(n, path)
	if !ok {
		return 0, false
	}
	t, ok := f.ParseTaskType(name)
	if !ok {
		what := "task type"
		if f != abi.FamilyNone {
			what = f.String() + " task type"
		}
		p.Unknown(n, path, what, name, f.TaskTypeNames())
	}
	return abi.TaskType(t), ok
}

// KernelFamily returns the family a schedule's kernel_family names,
// compared as --kernel-family compares it (abi.FamilyByName; "none" is
// abi.FamilyNone, the schema's own table).
func KernelFamily(name string) (abi.Family, bool) {
	if strings.EqualFold(strings.TrimSpace(name), "none") {
		return abi.FamilyNone, true
	}
	return abi.FamilyByName(name)
}

// familyNames lists kernel_family's values.
func familyNames() []string {
	var names []string
	for _, f := range abi.Families() {
		names = append(names, f.String())
	}
	return append(names, "none")
}

// event reads an optional event id; absent, null, or EVENT_INVALID_ID
// (4294967295, what the runtime's structs hold for "no event") is NoEvent.
func (p *yamlParser) event(n *yaml.Node, path string) EventID {
	if n == nil || yamlpos.IsNull(n) {
		return NoEvent
	}
	v, ok := p.Int(n, path, 0, int64(NoEvent))
	if !ok {
		return NoEvent
	}
	return EventID(v)
}

func (p *yamlParser) indices(n *yaml.Node, path string) []uint32 {
	if n == nil {
		return nil
	}
	items := p.Seq(n, path)
	out := make([]uint32, len(items))
	for i, item := range items {
		// The upper bound (the task table's length) is Plan's to check,
		// so that a schedule built in Go is held to it too.
		v, _ := p.Int(item, fmt.Sprintf("%s[%d]", path, i), 0, math.MaxUint32)
		out[i] = uint32(v)
	}
	return out
}
