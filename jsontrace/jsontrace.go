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
// a core.
//
// Reading streams: one pass over the JSON (internal/jsonread's reader)
// appends each record to a spool file, a second pass over the spool puts
// the records in their slots. Memory is O(cores + distinct names), not
// O(events).
package jsontrace

import (
	"bytes"
	"compress/gzip"
	"io"

	"github.com/megakernel/cycleabi/internal/infile"
)

// sniffBytes is how much of a file Sniff looks at.
const sniffBytes = 512

// Sniff reports whether the file at path holds a Chrome JSON trace, plain
// or gzip-compressed, by its content (its name is not looked at): its
// first non-blank byte opens an object whose leading bytes name
// "traceEvents" or "megaKernelCycleTrace" (both writers put one of them
// first). A capture never passes: its bytes are a binary buffer.
func Sniff(path string) (bool, error) {
	// The one way an input is opened: a pipe or device is refused, named.
	f, _, err := infile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var head [sniffBytes]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	b := head[:n]
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, err
		}
		gz, err := gzip.NewReader(f)
		if err != nil {
			return false, nil // gzip of nothing readable: not a trace
		}
		n, _ = io.ReadFull(gz, head[:])
		b = head[:n]
	}
	return looksLikeTrace(b), nil
}

// looksLikeTrace is Sniff's test on the leading (decompressed) bytes.
func looksLikeTrace(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	return bytes.Contains(t, []byte(`"traceEvents"`)) || bytes.Contains(t, []byte(`"megaKernelCycleTrace"`))
}
