package jsontrace

import (
	"fmt"
	"strconv"

	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/internal/jsonread"
)

// maxNameNotes bounds the notes about cut names kept per capture; the
// rest are counted in one more.
const maxNameNotes = 8

// cappedName returns the name a raw JSON string holds, cut to
// kernelnames.MaxNameBytes as a names file's name is capped, with a note
// naming the event when it was cut. what names the value in the note
// ("the event's name"). It reports false when v is not a string.
func (r *reader) cappedName(s *Source, v []byte, what string, at jsonread.Pos) (string, bool) {
	name, full, ok := jsonread.StringCapped(v, kernelnames.MaxNameBytes)
	if ok && full > 0 {
		s.noteCut(fmt.Sprintf("line %d, byte %d: %s is %s bytes long: kept its first %s bytes, the cap on a name (as in a names file)",
			at.Line, at.Offset, what, groupDigits(uint64(full)), groupDigits(kernelnames.MaxNameBytes)))
	}
	return name, ok
}

// noteCut keeps a note about a cut name, the first maxNameNotes of them.
func (s *Source) noteCut(note string) {
	if s.cutNames++; s.cutNames <= maxNameNotes {
		s.Notes = append(s.Notes, note)
	}
}

// capMetaNames cuts the names the metadata gives a capture (kernelName,
// ownerLabel, socName, an invocation's direction) to the cap on a name.
func (r *reader) capMetaNames(s *Source) {
	for _, f := range []struct {
		p    *string
		what string
	}{{&s.KernelName, "kernelName"}, {&s.OwnerLabel, "ownerLabel"}, {&s.SoCName, "socName"}} {
		if len(*f.p) > kernelnames.MaxNameBytes {
			full := len(*f.p)
			*f.p = string(cutString(*f.p, kernelnames.MaxNameBytes))
			s.noteCut(fmt.Sprintf("line %d, byte %d: megaKernelCycleTrace's %s is %s bytes long: kept its first %s bytes, the cap on a name (as in a names file)",
				r.metaAt.Line, r.metaAt.Offset, f.what, groupDigits(uint64(full)), groupDigits(kernelnames.MaxNameBytes)))
		}
	}
	if s.cutNames > maxNameNotes {
		s.Notes = append(s.Notes, fmt.Sprintf("%d more names were cut to %d bytes", s.cutNames-maxNameNotes, kernelnames.MaxNameBytes))
	}
}

// cutString cuts s to at most max bytes at the start of a character.
func cutString(s string, max int) string {
	for max > 0 && max < len(s) && s[max]&0xC0 == 0x80 {
		max--
	}
	return s[:min(max, len(s))]
}

// groupDigits writes n with a comma every three digits.
func groupDigits(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// unaccounted lists what the metadata describes and the events do not
// hold at all: a rank of megaKernelCycleTrace.ranks, or an invocation of
// megaKernelCycleTrace.invocations, without one event. (A capture with
// some of its events missing is an error already: its recordCount
// disagrees.) Each is a sentence naming it.
func (r *reader) unaccounted() []string {
	m := r.meta
	var out []string
	if len(m.Invocations) > 0 {
		for i, e := range m.Invocations {
			found := false
			for k := range r.sources {
				if k.hasInv && k.inv == e.InvocationID && (e.Rank == nil || *e.Rank == k.rank) {
					found = true
					break
				}
			}
			if !found {
				who := fmt.Sprintf("invocation %d", e.InvocationID)
				if e.Rank != nil {
					who += fmt.Sprintf(" of rank %d", *e.Rank)
				}
				out = append(out, missingSentence(fmt.Sprintf("megaKernelCycleTrace.invocations[%d] (%s)", i, who), e.RecordCount))
			}
		}
		return out
	}
	for i, e := range m.Ranks {
		if e.Rank == nil {
			continue
		}
		if _, ok := r.sources[sourceKey{rank: *e.Rank}]; !ok {
			out = append(out, missingSentence(fmt.Sprintf("megaKernelCycleTrace.ranks[%d] (rank %d)", i, *e.Rank), e.RecordCount))
		}
	}
	return out
}

func missingSentence(who string, count *uint64) string {
	switch {
	case count == nil:
		return who + " has no events in the trace: its records, if it wrote any, are missing (an edited or truncated trace?)"
	case *count == 0:
		return who + " wrote no records (recordCount 0): it has no events in the trace"
	}
	return fmt.Sprintf("%s has no events in the trace, where its recordCount says %s records: they are missing (an edited or truncated trace?)", who, groupDigits(*count))
}
