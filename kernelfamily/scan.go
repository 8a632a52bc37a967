package kernelfamily

import (
	"encoding/binary"
	"errors"
	"io"
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
	taskDesc taskDescs
}

// taskDescs maps task ids to desc ids: in a slice for the ids below
// denseTasks (tasks are numbered from 0 in a schedule: a lookup per record
// is an index, where a map's hashing took 4% of an export's CPU), in a map
// above. A candidate desc id is never 0 (its namespace's base is not), so
// 0 in the slice is no entry.
type taskDescs struct {
	dense  []uint32
	sparse map[uint32]uint32
}

// denseTasks bounds the slice: 4 MiB at most.
const denseTasks = 1 << 20

// note records that task has a record of candidate id desc.
func (t *taskDescs) note(task, desc uint32) {
	if task >= denseTasks {
		if t.sparse == nil {
			t.sparse = map[uint32]uint32{}
		}
		if prev, ok := t.sparse[task]; !ok {
			t.sparse[task] = desc
		} else if prev != desc {
			t.sparse[task] = mixed
		}
		return
	}
	if int(task) >= len(t.dense) {
		n := min(max(int(task)+1, 2*len(t.dense)), denseTasks)
		t.dense = slices.Grow(t.dense, n-len(t.dense))[:n]
	}
	switch prev := t.dense[task]; {
	case prev == 0:
		t.dense[task] = desc
	case prev != desc:
		t.dense[task] = mixed
	}
}

// all yields every task with an entry, and its desc id (or mixed).
func (t *taskDescs) all(yield func(task, desc uint32) bool) {
	for task, desc := range t.dense {
		if desc != 0 && !yield(uint32(task), desc) {
			return
		}
	}
	for task, desc := range t.sparse {
		if !yield(task, desc) {
			return
		}
	}
}

// mixed marks a task whose records carry two family-stage candidates.
const mixed = ^uint32(0)

// Scan reads every record of d once for its desc ids and, per task, the
// id a family may name as the task's stage. It reads each core's records
// as they lie in the capture (no order is needed), a chunk at a time; its
// memory is the distinct ids plus one entry per task with such an id.
// Records a partial capture lacks are not read.
func Scan(d *decode.Decoded) (*Records, error) {
	// cand[id] says whether id may be a family's stage (stageCandidate,
	// asked once per distinct id); its keys are the distinct ids.
	cand := map[uint32]bool{}
	lastDesc, lastCand := uint32(0), false
	haveLast := false
	var tasks taskDescs
	buf := make([]byte, scanChunk*abi.ProfileRecordSize)
	err := d.WithSlots(func() error {
		for _, a := range d.Summary.Active {
			for i := 0; i < a.Count; i += scanChunk {
				n := min(scanChunk, a.Count-i)
				b := buf[:n*abi.ProfileRecordSize]
				got, err := d.Capture.ReadAt(b, int64(a.Slot.RecordOffset(uint32(i))))
				if err != nil && !errors.Is(err, io.EOF) {
					return err
				}
				for r := 0; r+abi.ProfileRecordSize <= got; r += abi.ProfileRecordSize {
					desc := binary.LittleEndian.Uint32(b[r+abi.ProfileRecordDescIDOffset:])
					task := binary.LittleEndian.Uint32(b[r+abi.ProfileRecordTaskIDOffset:])
					if !haveLast || desc != lastDesc {
						c, ok := cand[desc]
						if !ok {
							c = stageCandidate(desc)
							cand[desc] = c
						}
						lastDesc, lastCand, haveLast = desc, c, true
					}
					if lastCand {
						tasks.note(task, desc)
					}
				}
				if got < len(b) {
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Records{DescIDs: slices.Sorted(maps.Keys(cand)), taskDesc: tasks}, nil
}

// scanChunk is how many records Scan reads at once (128 KiB).
const scanChunk = 4096

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
	for task, id := range r.taskDesc.all {
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
