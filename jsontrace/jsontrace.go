// Package jsontrace reads a MegaKernel Chrome JSON trace back into the
// captures it was decoded from, for users who kept only the trace: what
// upstream's profiler export writes (one kernel launch, or a window of
// them: megaKernelCycleTrace.invocations, events with invocation_id) and
// what `cycleabi decode` writes (one rank, several, or invocations), plain
// or gzip-compressed.
//
// Every record is rebuilt from its event's args (start_cycle, end_cycle,
// desc_id, task_id, stage_task_index, owner_id, core_type, block_id,
// core_entry_cycle, rank, device_id, invocation_id); names come from the
// events' names and task_stage args, the dropped count and capacities from
// the trace's metadata. Each capture (one rank, or one invocation of a
// window) is written in the ABI's layout to a scratch file, so that
// everything that reads captures (decode, analyze, validate) reads it
// unchanged. What a trace cannot carry is said in Source.Notes, never
// made up: cores that entered the kernel but wrote nothing, each core's
// dropped count, the header fields, and the device's record order within
// a core. What of a trace was not taken as it stands (a name cut to the
// cap on a name, a rank the metadata lists without events) is said in
// Source.Warnings.
//
// Reading streams: one pass over the JSON (internal/jsonread's reader)
// appends each record to a spool file, a second pass over the spool puts
// the records in their slots. Memory is O(cores + distinct names), not
// O(events).
//
// Whether a file is a trace is package sniff's to say (sniff.File: JSON
// whose object names traceEvents or megaKernelCycleTrace among its first
// bytes, plain or gzip-compressed, after a byte-order mark and
// whitespace); every command asks it before reading one.
package jsontrace
