package jsontrace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/jsonread"
)

// maxNameWarnings bounds the warnings about cut names kept per capture;
// the rest are counted in one more.
const maxNameWarnings = 8

// cutName is a name cut to the cap on a name: where its event (or the
// metadata) starts, and the warning that says so.
type cutName struct {
	at  jsonread.Pos
	msg string
}

// cappedName returns the name a raw JSON string holds, cut to
// kernelnames.MaxNameBytes as a names file's name is capped, with a
// warning naming the event when it was cut. what names the value in the
// warning ("the event's name"). It reports false when v is not a string.
func (r *reader) cappedName(s *Source, v []byte, what string, at jsonread.Pos) (string, bool) {
	name, full, ok := jsonread.StringCapped(v, kernelnames.MaxNameBytes)
	if ok && full > 0 {
		s.warnCut(at, fmt.Sprintf("line %d, byte %d: %s is %s bytes long: kept its first %s bytes, the cap on a name (as in a names file)",
			at.Line, at.Offset, what, groupDigits(uint64(full)), groupDigits(kernelnames.MaxNameBytes)))
	}
	return name, ok
}

// warnCut keeps a warning about a cut name, the first maxNameWarnings of
// them (validate's name-capped findings); all are counted.
func (s *Source) warnCut(at jsonread.Pos, msg string) {
	if s.cutNames++; s.cutNames <= maxNameWarnings {
		s.Warnings = append(s.Warnings, msg)
		s.cuts = append(s.cuts, cutName{at: at, msg: msg})
	}
}

// capMetaNames cuts the names the metadata gives a capture (kernelName,
// ownerLabel, socName, kernelFamily and kernelFamilyFrom, an invocation's
// direction) to the cap on a name.
func (r *reader) capMetaNames(s *Source) {
	for _, f := range []struct {
		p    *string
		what string
	}{{&s.KernelName, "kernelName"}, {&s.OwnerLabel, "ownerLabel"}, {&s.SoCName, "socName"}, {&s.KernelFamily, "kernelFamily"}, {&s.KernelFamilyFrom, "kernelFamilyFrom"}} {
		if len(*f.p) > kernelnames.MaxNameBytes {
			full := len(*f.p)
			*f.p = string(cutString(*f.p, kernelnames.MaxNameBytes))
			s.warnCut(r.metaAt, fmt.Sprintf("line %d, byte %d: megaKernelCycleTrace's %s is %s bytes long: kept its first %s bytes, the cap on a name (as in a names file)",
				r.metaAt.Line, r.metaAt.Offset, f.what, groupDigits(uint64(full)), groupDigits(kernelnames.MaxNameBytes)))
		}
	}
	if s.cutNames > maxNameWarnings {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d more names were cut to %d bytes", s.cutNames-maxNameWarnings, kernelnames.MaxNameBytes))
	}
}

// CutNames is how many names of the capture were cut to the cap on a
// name (kernelnames.MaxNameBytes); Warnings say the first few.
func (s *Source) CutNames() int { return s.cutNames }

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

// maxThreadNames bounds the thread_name events kept to check against the
// record events (more than any trace's cores).
const maxThreadNames = 1 << 16

// namedThread is a core a thread_name event names: "AIC/5" of pid 0.
type namedThread struct {
	pid   uint32
	t     abi.CoreType
	block uint32
	at    jsonread.Pos
}

// threadName keeps the core a thread_name metadata event names (ph M,
// name thread_name, args.name "AIC/5", as both writers name a core's
// thread), to be found among the cores with record events; any other
// event is no concern of it.
func (r *reader) threadName(at jsonread.Pos) {
	if len(r.threads) >= maxThreadNames || !jsonread.IsString(jsonread.Lookup(r.fields, "ph"), "M") ||
		!jsonread.IsString(jsonread.Lookup(r.fields, "name"), "thread_name") {
		return
	}
	pid, ok := uintArg(jsonread.Lookup(r.fields, "pid"))
	if !ok || pid > 1<<32-1 {
		return
	}
	var args []jsonread.Field
	args, ok = jsonread.Fields(jsonread.Lookup(r.fields, "args"), nil)
	if !ok {
		return
	}
	name, _, _ := jsonread.StringCapped(jsonread.Lookup(args, "name"), 64)
	typ, block, ok := strings.Cut(name, "/")
	t, tok := abi.ParseCoreType(typ)
	b, err := strconv.ParseUint(block, 10, 32)
	if !ok || !tok || err != nil {
		return
	}
	r.threads = append(r.threads, namedThread{pid: uint32(pid), t: t, block: uint32(b), at: at})
}

// threadsWithoutEvents names the cores a thread_name event names that
// have no record event of the same pid: their events are gone (a trace
// lists the threads of the cores with records only).
func (r *reader) threadsWithoutEvents() []string {
	var out []string
	for _, th := range r.threads {
		found := false
		for _, s := range r.order {
			if ci, ok := s.byKey[slotKey(th.t, th.block)]; ok && s.cores[ci].pid == th.pid {
				found = true
				break
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("core %s/%d of rank %d has a thread_name event (line %d, byte %d) and no record events: its records are missing (an edited or truncated trace?)",
				th.t, th.block, th.pid, th.at.Line, th.at.Offset))
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
