package kernelfamily

import (
	"maps"
	"slices"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Records is what Scan reads from a capture's records for Infer and
// TaskStages.
type Records struct {
	// DescIDs are the distinct desc_id values, ascending.
	DescIDs []uint32
	// taskDesc maps a task id to the desc id of its record that a family
	// may call a compute stage (runtime or graph namespace, not named by
	// the schema); mixed when its records carry two such ids.
	taskDesc map[uint32]uint32
}

// mixed marks a task whose records carry two family-stage candidates.
const mixed = ^uint32(0)

// Scan reads every record of d once for its desc ids and, per task, the
// id a family may name as the task's stage. Its cost is one walk; its
// memory the distinct ids plus one entry per task with such an id.
func Scan(d *decode.Decoded) (*Records, error) {
	ids := map[uint32]struct{}{}
	tasks := map[uint32]uint32{}
	err := d.WithSlots(func() error {
		return d.Records(func(r decode.Record) bool {
			ids[r.DescID] = struct{}{}
			if stageCandidate(r.DescID) {
				if prev, ok := tasks[r.TaskID]; !ok {
					tasks[r.TaskID] = r.DescID
				} else if prev != r.DescID {
					tasks[r.TaskID] = mixed
				}
			}
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	return &Records{DescIDs: slices.Sorted(maps.Keys(ids)), taskDesc: tasks}, nil
}

// stageCandidate reports whether some family may name id as a stage: an
// id of the runtime or graph-stage namespace the schema does not name.
func stageCandidate(id uint32) bool {
	if _, named := abi.DescSchemaName(id); named {
		return false
	}
	ns, _ := abi.LookupDesc(id)
	return ns == abi.NamespaceRuntimeStage || ns == abi.NamespaceGraphStage
}

// TaskStages names each task's stage under f where the records allow: a
// task whose records carry exactly one of f's compute stages is named by
// it (its WaitDependency and TriggerEvent records are then shown as
// "<stage>_WaitDependency", as upstream's host names them), with name's
// name for the stage's desc id (nil: f's own). nil when f names no task so.
func (r *Records) TaskStages(f abi.Family, name func(desc uint32) string) map[uint32]string {
	var out map[uint32]string
	for task, id := range r.taskDesc {
		st, ok := f.Stage(id)
		if id == mixed || !ok || st.Class != abi.StageCompute {
			continue
		}
		if out == nil {
			out = map[uint32]string{}
		}
		out[task] = st.Name
		if name != nil {
			out[task] = name(id)
		}
	}
	return out
}
