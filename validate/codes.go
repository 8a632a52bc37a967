package validate

import (
	"github.com/megakernel/cycleabi/capture"
)

// The warning codes: what decodes but deserves a look. Errors use the codes
// package capture defines (capture.CodeSlotIdentity, ...), which are exactly
// the conditions under which decode fails. Codes are stable: scripts match
// on them, and docs/validate.md lists them.
const (
	// CodeDroppedRecords: a slot's dropped_count is not 0; the core ran out
	// of room. Expected names the capacity that would have held every
	// record (RoundUpCapacity(record_count + dropped_count)).
	CodeDroppedRecords capture.Code = "dropped-records"
	// CodeDroppedTotal: records were dropped somewhere in the capture (one
	// finding per capture, with the total and the capacities per core type
	// that would have held them).
	CodeDroppedTotal capture.Code = "dropped-total"
	// CodeNonzeroPadding: a header's padding (a schema field marked
	// warn_nonzero) holds nonzero bytes; the decoder ignores them.
	CodeNonzeroPadding capture.Code = "nonzero-padding"
	// CodeBytesAfterLayout: the buffer is longer than its layout, or a .npy
	// file holds bytes after its array; the bytes after it are ignored.
	CodeBytesAfterLayout = capture.CodeBytesAfterLayout
	// CodeNPYByteOrder: a .npy file's dtype is big-endian; the buffer's
	// bytes are read as stored.
	CodeNPYByteOrder = capture.CodeNPYByteOrder
	// CodeUnsortedSlot: a slot's records are not in start_cycle order (one
	// finding per slot, at the first record that starts before its
	// predecessor).
	CodeUnsortedSlot capture.Code = "unsorted-slot"
	// CodeBeforeEntry: a record starts before its core's entry_cycle; it
	// may start before the trace's time 0, whose JSON timestamp decode
	// then shifts (Perfetto drops a negative one; --negative-ts keep).
	CodeBeforeEntry capture.Code = "before-entry"
	// CodeOverlap: a record starts before the end of an earlier record of
	// the same core, in start order; a core does one thing at a time.
	CodeOverlap capture.Code = "overlap"
	// CodeEntryCycleZero: a slot holds records but its entry_cycle is 0
	// (the core never stamped its entry).
	CodeEntryCycleZero capture.Code = "entry-cycle-zero"
	// CodeStaleSlot: a core's span (entry_cycle to its last record's
	// end) lies far outside the span of the other cores of the launch
	// (capture.StaleSlots): most likely an earlier launch's slot in a
	// buffer not zeroed between launches (one finding per such core).
	CodeStaleSlot capture.Code = "stale-slot"
	// CodeUnknownDesc: a record's desc_id is in no descriptor namespace.
	CodeUnknownDesc capture.Code = "unknown-desc"
	// CodeUnknownTaskType: a task-type desc_id names a task type the
	// TaskType enum does not have.
	CodeUnknownTaskType capture.Code = "unknown-task-type"
	// CodeUnknownCoreType: a live header's core_type is not a CoreType
	// (always also a slot-identity error).
	CodeUnknownCoreType capture.Code = "unknown-core-type"
	// CodePlanMismatch: the capture disagrees with the host plan given with
	// --plan: the cube slot count, or the record_capacity of live headers
	// (one finding per core type, at the first such header, with how many
	// more there are).
	CodePlanMismatch capture.Code = "plan-mismatch"
	// CodeIdleWorker: with --plan, a core the host plan gives tasks (a
	// worker) wrote no record and dropped none (one finding per core).
	CodeIdleWorker capture.Code = "idle-worker"
	// CodeMissingCapture: a JSON trace's megaKernelCycleTrace lists a rank
	// or an invocation, or a thread_name event names a core, that has not
	// one record event in the trace (one finding for each, naming it).
	CodeMissingCapture capture.Code = "missing-capture"
	// CodeNameCapped: a name a JSON trace gives (an event's name, a
	// task_stage, the metadata's kernelName, ownerLabel or socName) is
	// longer than a names file's cap and was cut to it (one finding per
	// name, up to eight per capture; the count is exact).
	CodeNameCapped capture.Code = "name-capped"
	// CodeStoppedInTask: a core's last record is a wait, or the compute of
	// a task type that writes a trigger record after it: the task never
	// finished, and the kernel looks stopped (hung or crashed); analyze
	// --plan follows its chain of waits (one finding per core; a core that
	// dropped records is left out).
	CodeStoppedInTask capture.Code = "stopped-in-task"
)

// CodeInfo documents one finding code.
type CodeInfo struct {
	Code     capture.Code
	Severity capture.Severity
	// Meaning is one line for the table in docs/validate.md.
	Meaning string
}

// Codes lists every code validate reports, errors first, in a stable order;
// the table in docs/validate.md is this list.
func Codes() []CodeInfo {
	return []CodeInfo{
		{capture.CodeNotACapture, capture.Error, "the file is something else, named by its first bytes (text, JSON, YAML, gzip, a zip archive, a PNG image, an ELF binary, a Perfetto trace, an empty file), not a profiling buffer; said before anything else"},
		{capture.CodeBadNPY, capture.Error, "a .npy header that cannot be read"},
		{capture.CodeTruncated, capture.Error, "the file is shorter than its layout (or its .npy header) says; the message says how many bytes are missing"},
		{capture.CodeShortBuffer, capture.Error, "fewer bytes than the 3*C core headers"},
		{capture.CodeBadCapacity, capture.Error, "a capacity the layout is read from (the first header of a region) is not a multiple of 16 or exceeds MaxRecordsPerCore"},
		{capture.CodeLayoutMismatch, capture.Error, "the cube slot count or capacities given (flags) contradict the layout the headers state; the message names both values"},
		{capture.CodeNoLayout, capture.Error, "no layout fits the headers and the file size; the message says why, per cube slot count tried"},
		{capture.CodeAmbiguousLayout, capture.Error, "several layouts fit the headers and the file size, or several come close and none fits; the message lists them and what each would need"},
		{capture.CodeSlotIdentity, capture.Error, "a live header's core_type/block_id differ from its slot's place"},
		{capture.CodeCapacityMismatch, capture.Error, "a live header's record_capacity differs from the layout's"},
		{capture.CodeReservedNonzero, capture.Error, "a live header's reserved field is not 0"},
		{capture.CodeCountOverCapacity, capture.Error, "record_count exceeds record_capacity"},
		{capture.CodeNegativeInterval, capture.Error, "a live record's end_cycle is before its start_cycle"},
		{capture.CodeNoRecords, capture.Error, "not one live record in the whole capture"},
		{CodeDroppedRecords, capture.Warning, "a slot dropped records; expected names the capacity that would have held them"},
		{CodeDroppedTotal, capture.Warning, "records were dropped; the total, and the capacities per core type that would have held them"},
		{CodeNonzeroPadding, capture.Warning, "a header's padding bytes are not zero"},
		{CodeBytesAfterLayout, capture.Warning, "the buffer is longer than its layout (or a .npy file longer than its array); the extra bytes are ignored"},
		{CodeNPYByteOrder, capture.Warning, "a .npy dtype is big-endian (>u8); the bytes are read as stored, little-endian"},
		{CodeUnsortedSlot, capture.Warning, "a slot's records are not in start_cycle order (first offending record)"},
		{CodeBeforeEntry, capture.Warning, "a record starts before its core's entry_cycle (it may start before the trace's time 0: decode then shifts every timestamp)"},
		{CodeOverlap, capture.Warning, "a record starts before the end of an earlier record of the same core, in start order"},
		{CodeEntryCycleZero, capture.Warning, "a slot holds records but its entry_cycle is 0"},
		{CodeStaleSlot, capture.Warning, "a core entered far outside the other cores' span (more than 4 times that span away): likely an earlier launch's slot, the buffer not zeroed between launches; one finding per core, naming the launch's span"},
		{CodeUnknownDesc, capture.Warning, "a desc_id in no descriptor namespace"},
		{CodeUnknownTaskType, capture.Warning, "a task-type desc_id whose task type is not in the TaskType enum"},
		{CodeUnknownCoreType, capture.Warning, "a live header's core_type is not in the CoreType enum"},
		{CodePlanMismatch, capture.Warning, "with --plan: live headers' record_capacity (one finding per core type, with how many), or the cube slot count, differ from the host plan"},
		{CodeIdleWorker, capture.Warning, "with --plan: a core the host plan gives tasks (a worker) wrote no record and dropped none; one finding per core, naming it"},
		{CodeMissingCapture, capture.Warning, "a JSON trace's megaKernelCycleTrace lists a rank or invocation, or a thread_name event names a core, with not one record event in the trace; one finding for each, naming it (said on the first capture of the trace)"},
		{CodeStoppedInTask, capture.Warning, "a core's last record is a wait, or a task type's compute with no trigger after it: the task never finished and the kernel looks stopped (hung or crashed); `cycleabi analyze --plan` names the root"},
		{CodeNameCapped, capture.Warning, "a name a JSON trace gives (an event's name, a task_stage, the metadata's kernelName, ownerLabel or socName) is longer than 4,096 bytes, a names file's cap, and was cut to it; one finding per name, at its event, the first eight of a capture shown"},
	}
}
