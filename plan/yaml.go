package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// The keys a schedule may have, in the order they are documented.
var (
	scheduleKeys = []string{"mode", "num_workers", "vector_worker_stride", "tasks", "cube_task_indices", "vector_task_indices"}
	taskKeys     = []string{"task_type", "dependent_event", "trigger_event", "graph_stage", "owner_id", "stage_task_index"}
)

// parseYAML is the authoritative parser: every schedule the JSON fast path
// accepts parses to the same Schedule here, and every error is reported
// from here.
func parseYAML(file string, data []byte) (*Schedule, error) {
	p := &yamlParser{file: file, errs: ErrorList{Max: maxErrors}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs.Add(yamlSyntaxError(file, err))
		return nil, &p.errs
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		p.errs.Add(&Error{File: file, Line: 1, Col: 1, Msg: "empty schedule"})
		return nil, &p.errs
	}
	s := &Schedule{File: file, src: data}
	p.schedule(doc.Content[0], s)
	if len(p.errs.Errs) > 0 {
		return nil, &p.errs
	}
	return s, nil
}

// yamlSyntaxError turns a YAML syntax error into an Error with a line.
func yamlSyntaxError(file string, err error) *Error { return yamlpos.Syntax(file, "YAML", err) }

type yamlParser struct {
	file string
	errs ErrorList
}

func (p *yamlParser) errorf(n *yaml.Node, path, format string, args ...any) {
	p.errs.Add(yamlpos.At(p.file, n, path, format, args...))
}

func (p *yamlParser) schedule(n *yaml.Node, s *Schedule) {
	m := p.mapping(n, "", scheduleKeys, []string{"num_workers", "tasks"})
	if m == nil {
		return
	}
	// An optional key given as null is absent, as in a task; a required
	// one is still read, and null is not what it needs.
	for k, v := range m {
		if k != "num_workers" && k != "tasks" && isNull(v) {
			delete(m, k)
		}
	}
	if v := m["mode"]; v != nil {
		if name, ok := p.str(v, "mode"); ok {
			mode, known := ParseMode(name)
			if !known {
				p.errorf(v, "mode", "unknown mode %q (known: event_driven, aiv_pipeline)", name)
			}
			s.Mode = mode
		}
	}
	if v := m["num_workers"]; v != nil {
		s.NumWorkers, _ = p.int(v, "num_workers", math.MinInt64, math.MaxInt64)
	}
	if v := m["vector_worker_stride"]; v != nil {
		s.VectorWorkerStride, _ = p.int(v, "vector_worker_stride", 1, math.MaxInt64)
	}
	if v := m["tasks"]; v != nil {
		items := p.seq(v, "tasks")
		s.Tasks = make([]Task, len(items))
		for i, item := range items {
			s.Tasks[i] = p.task(item, fmt.Sprintf("tasks[%d]", i))
		}
	}
	s.CubeTaskIndices = p.indices(m["cube_task_indices"], "cube_task_indices")
	s.VectorTaskIndices = p.indices(m["vector_task_indices"], "vector_task_indices")
}

func (p *yamlParser) task(n *yaml.Node, path string) Task {
	t := NewTask(0)
	m := p.mapping(n, path, taskKeys, []string{"task_type"})
	if m == nil {
		return t
	}
	if v := m["task_type"]; v != nil {
		t.TaskType, _ = p.taskType(v, path+".task_type")
	}
	t.DependentEvent = p.event(m["dependent_event"], path+".dependent_event")
	t.TriggerEvent = p.event(m["trigger_event"], path+".trigger_event")
	// An optional field given as null is absent (what a JSON writer makes
	// of None).
	for k, v := range m {
		if k != "task_type" && isNull(v) {
			delete(m, k)
		}
	}
	if v := m["graph_stage"]; v != nil {
		if s, ok := p.int(v, path+".graph_stage", 0, abi.GraphStageCount-1); ok {
			t.GraphStage = uint32(s)
		}
	}
	if v := m["owner_id"]; v != nil {
		if o, ok := p.int(v, path+".owner_id", 0, math.MaxUint32); ok {
			t.OwnerID = uint32(o)
		}
	}
	if v := m["stage_task_index"]; v != nil {
		// MaxUint32 is reserved for "not given".
		if i, ok := p.int(v, path+".stage_task_index", 0, math.MaxUint32-1); ok {
			t.StageTaskIndex = uint32(i)
		}
	}
	return t
}

// taskType reads a TaskType given by name ("MatMul") or number (103). A
// number the schema does not name is accepted (the device may know newer
// task types) as long as its descriptor stays in the task-type namespace.
func (p *yamlParser) taskType(n *yaml.Node, path string) (abi.TaskType, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		t, ok := abi.ParseTaskType(n.Value)
		if !ok {
			p.errorf(n, path, "unknown task type %q (known: %s)", n.Value, taskTypeNames())
		}
		return t, ok
	}
	v, ok := p.int(n, path, 0, abi.TaskTypeCount-1)
	return abi.TaskType(v), ok
}

func taskTypeNames() string {
	var names []string
	for _, t := range abi.TaskTypes() {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}

// event reads an optional event id; absent or null is NoEvent.
func (p *yamlParser) event(n *yaml.Node, path string) EventID {
	if n == nil || isNull(n) {
		return NoEvent
	}
	v, ok := p.int(n, path, 0, int64(NoEvent)-1)
	if !ok {
		return NoEvent
	}
	return EventID(v)
}

func (p *yamlParser) indices(n *yaml.Node, path string) []uint32 {
	if n == nil {
		return nil
	}
	items := p.seq(n, path)
	out := make([]uint32, len(items))
	for i, item := range items {
		// The upper bound (the task table's length) is Plan's to check,
		// so that a schedule built in Go is held to it too.
		v, _ := p.int(resolveAlias(item), fmt.Sprintf("%s[%d]", path, i), 0, math.MaxUint32)
		out[i] = uint32(v)
	}
	return out
}

// mapping reads a mapping node, reporting unknown, duplicate and missing
// keys; known lists every key allowed, required those that must be present.
func (p *yamlParser) mapping(n *yaml.Node, path string, known, required []string) map[string]*yaml.Node {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a mapping, got %s", kindName(n))
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(known, k.Value) {
			p.errorf(k, join(path, k.Value), "unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errorf(k, join(path, k.Value), "duplicate key %q", k.Value)
			continue
		}
		out[k.Value] = resolveAlias(v)
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			p.errorf(n, path, "missing required key %q", k)
		}
	}
	return out
}

func (p *yamlParser) seq(n *yaml.Node, path string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "expected a list, got %s", kindName(n))
		return nil
	}
	return n.Content
}

func (p *yamlParser) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		p.errorf(n, path, "expected a string, got %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

// int reads an integer in [min, max] (decimal, or 0x/0o/0b prefixed).
func (p *yamlParser) int(n *yaml.Node, path string, min, max int64) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errorf(n, path, "expected an integer, got %s", kindName(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	switch {
	case err != nil:
		p.errorf(n, path, "integer %s does not fit in 64 bits", n.Value)
	case v < min:
		p.errorf(n, path, "%d is below the minimum %d", v, min)
	case v > max:
		p.errorf(n, path, "%d exceeds the maximum %d", v, max)
	default:
		return v, true
	}
	return 0, false
}

func isNull(n *yaml.Node) bool             { return yamlpos.IsNull(n) }
func resolveAlias(n *yaml.Node) *yaml.Node { return yamlpos.Resolve(n) }
func kindName(n *yaml.Node) string         { return yamlpos.KindName(n) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// join appends key to a YAML path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
