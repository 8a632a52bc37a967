package abi

// This file is hand-written: display choices over record fields that every
// view of a record (decode's trace, dump) shares.

// TaskNumber returns the record's task number as traces and dumps show it:
// stage_task_index + 1, the task's 1-based place in its stage.
func (r *ProfileRecord) TaskNumber() uint64 {
	return uint64(r.StageTaskIndex) + 1
}
