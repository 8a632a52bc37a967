package decode

import (
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/capture"
)

// Warning is the trace's warning for a capture whose cores dropped
// records, "" when none were dropped.
func Warning(dropped uint64) string {
	if dropped == 0 {
		return ""
	}
	return "Device dropped " + strconv.FormatUint(dropped, 10) + " cycle trace records"
}

// Warnings counts what a viewer will show differently from what the
// device wrote, one kind per field. Decode sets UnsortedSlots and
// Dropped; the trace writers' pipeline (decode/render) counts the rest
// as it writes the records.
type Warnings struct {
	// Dropped is the records the cores dropped (full slots).
	Dropped uint64
	// UnsortedSlots is the slots whose records are not in start_cycle
	// order (the trace shows them sorted).
	UnsortedSlots int
	// Overlapping is the records that start before the end of an earlier
	// record of their core, in start order (Perfetto moves them to
	// another track); validate's overlap findings.
	Overlapping uint64
	// BeforeEntry is the records that start before their core's
	// entry_cycle (validate's before-entry findings); NegativeTS of all
	// records, those before the trace's anchor, whose ts is negative
	// (Perfetto drops them).
	BeforeEntry uint64
	NegativeTS  uint64
	// Shifted says that the writer moves timestamps later so that none
	// is negative (the records of NegativeTS are then at or after 0);
	// ShiftCycles is by how many of this capture's cycles the JSON
	// writer moved them (WriteOptions.ShiftNegativeTS).
	Shifted     bool
	ShiftCycles uint64
	// Truncated is the bytes of its layout a capture decoded partially
	// (capture.Request.Partial) lacks; Missing names the parts they hold
	// (missingText).
	Truncated uint64
	Missing   string
}

// maxMissingListed bounds the missing parts the trace's warning names.
const maxMissingListed = 4

// missingText names the missing parts of a partial decode for its
// warning: the first few, and how many more.
func missingText(parts []capture.Missing) string {
	var b strings.Builder
	for i, m := range parts {
		if i == maxMissingListed {
			b.WriteString("; and " + strconv.Itoa(len(parts)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.String())
	}
	return b.String()
}

// Lines renders w for the trace's "warnings" and decode's summary: one
// line per kind found, with its count, never one per record. The first
// is the reference decoder's dropped-records warning, as it writes it.
func (w Warnings) Lines() []string {
	var lines []string
	if d := Warning(w.Dropped); d != "" {
		lines = append(lines, d)
	}
	if w.Truncated > 0 {
		lines = append(lines, "the capture is truncated, "+strconv.FormatUint(w.Truncated, 10)+" bytes short of its layout: decoded without "+w.Missing)
	}
	const validate = "; run validate for offsets"
	if w.Overlapping > 0 {
		lines = append(lines, count(w.Overlapping, "record overlaps", "records overlap")+" an earlier record of their core (viewers move them to another track)"+validate)
	}
	if w.BeforeEntry > 0 {
		lines = append(lines, count(w.BeforeEntry, "record starts", "records start")+" before their core's entry_cycle"+validate)
	}
	if w.NegativeTS > 0 {
		what := tsNegative
		if w.Shifted {
			what = tsShifted
		}
		lines = append(lines, count(w.NegativeTS, "record starts", "records start")+" before the trace's anchor cycle"+what+validate)
	}
	if w.UnsortedSlots > 0 {
		lines = append(lines, count(uint64(w.UnsortedSlots), "slot holds", "slots hold")+" records out of start_cycle order (shown sorted)"+validate)
	}
	return lines
}

// What the warning of records before the anchor says of their
// timestamps: negative, or every one shifted (Warnings.Shifted).
const (
	tsNegative = ", so their ts is negative (Perfetto drops them)"
	tsShifted  = "; every timestamp is moved later by the same time, so that none is negative"
)

// count renders "1 record overlaps", "2 records overlap".
func count(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatUint(n, 10) + " " + many
}
