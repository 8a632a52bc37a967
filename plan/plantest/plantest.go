// Package plantest generates schedules for property tests: any schedule
// Plan accepts, in either mode, and its text as YAML or JSON.
package plantest

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"pgregory.net/rapid"
)

// Limits bound a generated schedule; the zero value means small.
type Limits struct {
	MaxWorkers int64 // default 16
	MaxTasks   int   // default 24
	MaxQueue   int   // default 48 entries per queue
	MaxEvents  int   // event ids 0..MaxEvents-1; default 6
}

func (l Limits) withDefaults() Limits {
	if l.MaxWorkers == 0 {
		l.MaxWorkers = 16
	}
	if l.MaxTasks == 0 {
		l.MaxTasks = 24
	}
	if l.MaxQueue == 0 {
		l.MaxQueue = 48
	}
	if l.MaxEvents == 0 {
		l.MaxEvents = 6
	}
	return l
}

// Schedule draws a schedule that Plan accepts.
func Schedule(t *rapid.T, lim Limits) *plan.Schedule {
	lim = lim.withDefaults()
	s := &plan.Schedule{File: "generated.yaml"}
	if rapid.IntRange(0, 4).Draw(t, "pipeline") == 0 {
		s.Mode = plan.AIVPipeline
		s.NumWorkers = rapid.Int64Range(1, lim.MaxWorkers).Draw(t, "num_workers")
		s.VectorWorkerStride = rapid.Int64Range(0, 3).Draw(t, "vector_worker_stride")
		s.Tasks = rapid.SliceOfN(taskGen(lim, false), 0, lim.MaxTasks).Draw(t, "tasks")
		if len(s.Tasks) > 0 && s.NumWorkers/s.Stride() > 0 {
			s.VectorTaskIndices = queue(t, "vector_task_indices", len(s.Tasks), lim.MaxQueue)
		}
		return s
	}
	s.Mode = plan.EventDriven
	s.NumWorkers = 2 * rapid.Int64Range(0, lim.MaxWorkers/2).Draw(t, "half_workers")
	s.VectorWorkerStride = rapid.Int64Range(0, 3).Draw(t, "vector_worker_stride")
	s.Tasks = rapid.SliceOfN(taskGen(lim, true), 0, lim.MaxTasks).Draw(t, "tasks")
	if len(s.Tasks) > 0 && s.NumWorkers > 0 {
		s.CubeTaskIndices = queue(t, "cube_task_indices", len(s.Tasks), lim.MaxQueue)
		if s.NumWorkers/s.Stride() > 0 {
			s.VectorTaskIndices = queue(t, "vector_task_indices", len(s.Tasks), lim.MaxQueue)
		}
	}
	return s
}

func queue(t *rapid.T, label string, tasks, maxLen int) []uint32 {
	return rapid.SliceOfN(rapid.Uint32Range(0, uint32(tasks-1)), 0, maxLen).Draw(t, label)
}

func taskGen(lim Limits, events bool) *rapid.Generator[plan.Task] {
	return rapid.Custom(func(t *rapid.T) plan.Task {
		var tt abi.TaskType
		if rapid.Bool().Draw(t, "named") {
			tt = rapid.SampledFrom(abi.TaskTypes()).Draw(t, "task_type")
		} else {
			tt = abi.TaskType(rapid.Uint32Range(0, abi.TaskTypeCount-1).Draw(t, "task_type_number"))
		}
		task := plan.NewTask(tt)
		if events {
			task.DependentEvent = event(t, "dependent_event", lim.MaxEvents)
			task.TriggerEvent = event(t, "trigger_event", lim.MaxEvents)
		}
		if rapid.IntRange(0, 3).Draw(t, "has_graph_stage") == 0 {
			task.GraphStage = rapid.Uint32Range(0, abi.GraphStageCount-1).Draw(t, "graph_stage")
		}
		if rapid.Bool().Draw(t, "has_owner") {
			task.OwnerID = rapid.Uint32().Draw(t, "owner_id")
		}
		if rapid.IntRange(0, 3).Draw(t, "has_stage_task_index") == 0 {
			task.StageTaskIndex = rapid.Uint32Range(0, plan.AutoStageTaskIndex-1).Draw(t, "stage_task_index")
		}
		return task
	})
}

func event(t *rapid.T, label string, n int) plan.EventID {
	e := rapid.IntRange(-1, n-1).Draw(t, label)
	if e < 0 {
		return plan.NoEvent
	}
	return plan.EventID(e)
}

// Style is how Text writes a schedule.
type Style int

// The text styles.
const (
	YAML     Style = iota // block mappings, flow task entries
	JSON                  // plain JSON, one task per line
	JSONNull              // JSON with every absent optional field written as null
)

// Text renders s as a schedule file. Task types with a schema name are
// written by name when byName is true, else by number.
func Text(s *plan.Schedule, style Style, byName bool) []byte {
	var b strings.Builder
	// kv writes one key and value; a string value is quoted in JSON, a raw
	// one (a list, null) never.
	type raw string
	kv := func(k string, v any) string {
		if style == YAML {
			return fmt.Sprintf("%s: %v", k, v)
		}
		if str, ok := v.(string); ok {
			v = `"` + str + `"`
		}
		return fmt.Sprintf("%q: %v", k, v)
	}
	var top []string
	top = append(top, kv("mode", s.Mode.String()), kv("num_workers", s.NumWorkers))
	if s.VectorWorkerStride != 0 {
		top = append(top, kv("vector_worker_stride", s.VectorWorkerStride))
	}
	var tasks []string
	for _, t := range s.Tasks {
		var f []string
		var tt any = uint32(t.TaskType)
		if byName && t.TaskType.Valid() {
			tt = t.TaskType.String()
		}
		f = append(f, kv("task_type", tt))
		opt := func(k string, set bool, v uint32) {
			switch {
			case set:
				f = append(f, kv(k, v))
			case style == JSONNull:
				f = append(f, kv(k, raw("null")))
			}
		}
		opt("dependent_event", t.DependentEvent.Valid(), uint32(t.DependentEvent))
		opt("trigger_event", t.TriggerEvent.Valid(), uint32(t.TriggerEvent))
		opt("graph_stage", t.GraphStage != plan.NoGraphStage, t.GraphStage)
		opt("owner_id", t.OwnerID != abi.InvalidOwnerID, t.OwnerID)
		opt("stage_task_index", t.StageTaskIndex != plan.AutoStageTaskIndex, t.StageTaskIndex)
		tasks = append(tasks, "{"+strings.Join(f, ", ")+"}")
	}
	list := func(q []uint32) string {
		items := make([]string, len(q))
		for i, v := range q {
			items[i] = fmt.Sprint(v)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	if style == YAML {
		for _, l := range top {
			b.WriteString(l + "\n")
		}
		if len(tasks) == 0 {
			b.WriteString("tasks: []\n")
		} else {
			b.WriteString("tasks:\n")
			for _, t := range tasks {
				b.WriteString("  - " + t + "\n")
			}
		}
		if s.CubeTaskIndices != nil {
			b.WriteString("cube_task_indices: " + list(s.CubeTaskIndices) + "\n")
		}
		if s.VectorTaskIndices != nil {
			b.WriteString("vector_task_indices: " + list(s.VectorTaskIndices) + "\n")
		}
		return []byte(b.String())
	}
	b.WriteString("{" + strings.Join(top, ", ") + ",\n \"tasks\": [")
	b.WriteString(strings.Join(tasks, ",\n  "))
	b.WriteString("]")
	if s.CubeTaskIndices != nil {
		b.WriteString(",\n " + kv("cube_task_indices", raw(list(s.CubeTaskIndices))))
	}
	if s.VectorTaskIndices != nil {
		b.WriteString(",\n " + kv("vector_task_indices", raw(list(s.VectorTaskIndices))))
	}
	b.WriteString("}\n")
	return []byte(b.String())
}
