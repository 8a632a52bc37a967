// Package tracemerge places a MegaKernel's per-core timeline (a trace
// cycleabi decode wrote) inside the framework's own Chrome trace (torch
// profiler / Kineto, or CANN msprof's trace.json), under the outer device
// kernel that ran it, so the MegaKernel's inside shows next to the rest of
// the step.
//
// The framework trace is streamed: its events are copied through byte for
// byte, and memory does not grow with its size beyond the outer-kernel
// candidates kept (the kernels whose name matches, and for the fallback a
// few per invocation). The MegaKernel trace is read twice, once to learn
// its invocations' spans and cores, once to write its events, so it is
// never held in memory either.
package tracemerge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// Options say what to merge and how to pick the outer kernels.
type Options struct {
	// Framework is the framework trace (.json or .json.gz; an object with
	// traceEvents or a bare array of events); MegaKernel the trace
	// cycleabi decode wrote.
	Framework, MegaKernel string
	// KernelPattern, when not "", is the regular expression outer kernel
	// names must match (it must match something: no fallback). "" builds
	// upstream's pattern from the MegaKernel trace's kernel names: their
	// CamelCase words joined by [_]?, case ignored.
	KernelPattern string
	// KernelPatternSet says KernelPattern was given (an empty one is then
	// an error).
	KernelPatternSet bool
	// KernelIndex is the candidate paired with the first invocation (in
	// the fallback, the first device kernel considered).
	KernelIndex int
	// AllowHostWrapper lets host-only events (cpu_op, user_annotation,
	// ...) stand in as outer kernels when they are what selection picks.
	AllowHostWrapper bool
	// OuterPID, when not nil, keeps only the candidates whose pid reads
	// so (Python's str() of it: "7" for 7 and "7", "None" for none).
	OuterPID *string
	// Rank selects one rank of a multi-rank MegaKernel trace; -1: the only one.
	Rank int64
	// Upstream writes what upstream's merger writes (docs/merge.md,
	// "--upstream-compat"): times placed in float64 arithmetic, threads
	// of their own per invocation with upstream's tids and sort indexes,
	// and megaKernelTraceMerge with upstream's keys only.
	Upstream bool
}

// Alignment says where one invocation was placed, with upstream's keys
// (and step, which upstream does not record).
type Alignment struct {
	// InvocationID, Step and Direction name the invocation (Step and
	// Direction are null when the MegaKernel trace does not say).
	InvocationID int64           `json:"invocationId"`
	Step         json.RawMessage `json:"step"`
	Direction    *string         `json:"direction"`
	// KernelName, Rank and DeviceID are the invocation's.
	KernelName string `json:"kernelName"`
	Rank       int64  `json:"rank"`
	DeviceID   int64  `json:"deviceId"`
	// OuterKernelName, Pid, Tid, Ts and Dur are the outer kernel's, as the
	// framework trace has them (times as exact decimals).
	OuterKernelName string          `json:"outerKernelName"`
	OuterKernelPid  json.RawMessage `json:"outerKernelPid"`
	OuterKernelTid  json.RawMessage `json:"outerKernelTid"`
	OuterKernelTs   json.Number     `json:"outerKernelTs"`
	OuterKernelDur  json.Number     `json:"outerKernelDur"`
	// OuterKernelScore is upstream's score of the outer kernel.
	OuterKernelScore int `json:"outerKernelScore"`
	// OuterKernelIsDevice is false for a host wrapper (--allow-host-wrapper).
	OuterKernelIsDevice bool `json:"outerKernelIsDevice"`
	// InternalEventCount is the number of the invocation's events merged.
	InternalEventCount int `json:"internalEventCount"`
	// InternalSpanUs is from the invocation's earliest event start to its
	// latest end.
	InternalSpanUs json.Number `json:"internalSpanUs"`
	// ExceedsOuterKernelUs is how far the invocation's span overruns its
	// outer kernel (0 when it fits).
	ExceedsOuterKernelUs json.Number `json:"exceedsOuterKernelUs"`
}

// Result is the merge's diagnostics, written into the merged trace as
// megaKernelTraceMerge: upstream's keys, and a few of cycleabi's.
type Result struct {
	// SchemaVersion is ResultSchemaVersion.
	SchemaVersion int `json:"schemaVersion"`
	// MegaKernelTrace is the merged MegaKernel trace's path, Rank and
	// DeviceID the rank merged from it.
	MegaKernelTrace string `json:"megaKernelTrace"`
	Rank            int64  `json:"rank"`
	DeviceID        int64  `json:"deviceId"`
	// KernelPattern is the pattern outer kernel names were matched with,
	// KernelIndex the first candidate used.
	KernelPattern string `json:"kernelPattern"`
	KernelIndex   int    `json:"kernelIndex"`
	// OuterPid is --outer-pid (null without).
	OuterPid *string `json:"outerPid"`
	// UsedFallbackKernelSelection says no name matched, and outer
	// kernels were chosen by duration.
	UsedFallbackKernelSelection bool `json:"usedFallbackKernelSelection"`
	// AllowHostWrapperAlignment is --allow-host-wrapper.
	AllowHostWrapperAlignment bool `json:"allowHostWrapperAlignment"`
	// MergedInvocationCount, MergedEventCount and MergedFlowEventCount
	// count what was merged (flow events: the dependency arrows' ends).
	MergedInvocationCount int `json:"mergedInvocationCount"`
	MergedEventCount      int `json:"mergedEventCount"`
	MergedFlowEventCount  int `json:"mergedFlowEventCount"`
	// Alignments has one entry per invocation, in time order.
	Alignments []Alignment `json:"alignments"`
	// ExceedsOuterKernelUs is the largest of the alignments' overruns.
	ExceedsOuterKernelUs json.Number `json:"exceedsOuterKernelUs"`
	// Warnings are also printed on stderr, one per line.
	Warnings []string `json:"warnings"`
	// Previous is the framework trace's own megaKernelTraceMerge, when it
	// was merged before.
	Previous json.RawMessage `json:"previousMerge,omitempty"`
}

// ResultSchemaVersion is the version of the megaKernelTraceMerge object
// (upstream's MERGE_SCHEMA_VERSION).
const ResultSchemaVersion = 1

// SelectionError is a merge that found no outer kernel to use (a pattern
// matching nothing, too few kernels): the inputs are valid but do not fit.
type SelectionError struct{ Msg string }

// Error returns the message.
func (e *SelectionError) Error() string { return e.Msg }

// Merge writes the framework trace with the MegaKernel trace's events
// placed under their outer kernels to w. On error w holds a partial
// trace: write to a temporary file and discard it.
func Merge(w io.Writer, o Options) (*Result, error) {
	if o.KernelIndex < 0 {
		return nil, fmt.Errorf("--kernel-index must be >= 0, got %d", o.KernelIndex)
	}
	if o.KernelPatternSet && o.KernelPattern == "" {
		return nil, errors.New("--kernel-pattern is empty")
	}
	if err := sniffJSON(o.Framework, "a framework trace"); err != nil {
		return nil, err
	}
	if err := sniffJSON(o.MegaKernel, "a MegaKernel trace"); err != nil {
		return nil, err
	}
	mk, err := readMegaKernel(o.MegaKernel, o.Rank)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.File == o.MegaKernel && strings.HasPrefix(ie.Msg, "no megaKernelCycleTrace") && hasTopKey(o.Framework, "megaKernelCycleTrace") {
			return nil, &InputError{File: o.MegaKernel, Msg: fmt.Sprintf("no megaKernelCycleTrace object, and %s, given as the framework trace, has one: the arguments are swapped? (cycleabi merge FRAMEWORK MEGAKERNEL)", o.Framework)}
		}
		return nil, err
	}
	if o.KernelIndex > math.MaxInt32 {
		// More candidates than any trace holds; and KernelIndex+n must not
		// overflow.
		return nil, &SelectionError{fmt.Sprintf("--kernel-index %d: no trace has that many outer kernels", o.KernelIndex)}
	}
	pattern := o.KernelPattern
	if !o.KernelPatternSet {
		// From each kernelName cut to the cap on a name first (capNames
		// warns of it): an 8 MB kernelName made a pattern of 1.7 GiB.
		var names []string
		for _, inv := range mk.inv {
			names = append(names, cutName(inv.kernelName))
		}
		pattern = defaultPatternOf(names)
	}
	re, err := regexp.Compile(pattern)
	if err != nil && !o.KernelPatternSet {
		why := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			why = se.Code.String() // not the pattern, which may be long
		}
		return nil, &InputError{File: o.MegaKernel, Msg: fmt.Sprintf("the outer-kernel pattern made from its kernelName does not compile (%s): give --kernel-pattern", why)}
	}
	if err != nil {
		return nil, fmt.Errorf("--kernel-pattern: %w", err)
	}
	m := &merger{o: o, mk: mk, re: re, res: &Result{
		SchemaVersion: ResultSchemaVersion, MegaKernelTrace: o.MegaKernel, Rank: mk.rank, DeviceID: mk.deviceID,
		KernelPattern: pattern, KernelIndex: o.KernelIndex, OuterPid: o.OuterPID, AllowHostWrapperAlignment: o.AllowHostWrapper,
		Alignments: []Alignment{}, Warnings: []string{},
	}, sortIndex: map[string]int64{}, maxTid: math.MinInt64,
		pidMaxTid: map[string]int64{}, pidMinSort: map[string]int64{}}
	m.best.limit = o.KernelIndex + len(mk.inv)
	m.devices.limit = fallbackChunk
	m.inOrder = newRuns(mk.inv, o.KernelIndex)
	fr, err := openReader(o.Framework)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	m.fr = fr
	if err := m.run(w); err != nil {
		return nil, err
	}
	return m.res, nil
}

type merger struct {
	o      Options
	fwMeta bool // the framework trace has a megaKernelCycleTrace member
	// mkRecords counts the framework trace's events that are a
	// MegaKernel's own records (candidate), for the error of a
	// MegaKernel trace given as the framework trace.
	mkRecords int
	mk        *megaKernel
	re        *regexp.Regexp
	fr        *jsonread.Reader
	res       *Result

	// best keeps the earliest KernelIndex+n of the name-matching
	// candidates with the best score seen (bestScore; bestCount of them);
	// matched counts all name-matching candidates.
	best      bounded
	bestScore int
	bestCount int
	matched   int
	// devices keeps the earliest fallbackChunk device kernels (of
	// deviceCount) for the fallback, while no name has matched.
	devices     devHeap
	deviceCount int
	// inOrder runs the fallback's window over the device kernels as they
	// come, while they come in ts order (nil once one does not).
	inOrder   *runs
	lastDev   float64
	rej       rejects
	seq       int64
	sortIndex map[string]int64 // pid "\x00" tid -> thread_sort_index
	maxTid    int64
	minTid    int64
	// pidMaxTid and pidMinSort are, per pid (raw JSON), the largest
	// integer tid and the smallest thread_sort_index: upstream's merger
	// numbers and sorts new threads per pid from them.
	pidMaxTid  map[string]int64
	pidMinSort map[string]int64
	events     int // framework events copied
	ms, args   []member
}

func (m *merger) run(w io.Writer) error {
	m.minTid = math.MaxInt64
	r := m.fr
	switch r.Peek() {
	case '[':
		if _, err := io.WriteString(w, "{\"traceEvents\":[\n"); err != nil {
			return err
		}
		if err := m.traceEvents(w, true); err != nil {
			return err
		}
		if !r.AtEnd() {
			return r.Errorf("data after the array of trace events: %s", r.Found())
		}
		if err := r.IOErr(); err != nil {
			return err
		}
		return m.finish(w, ",\n")
	case '{':
		r.Advance()
		if _, err := io.WriteString(w, "{"); err != nil {
			return err
		}
		sawEvents := false
		first := true // nothing written yet
		for inFirst := true; ; inFirst = false {
			if r.Peek() == '}' {
				r.Advance()
				break
			}
			if !inFirst {
				if err := r.Expect(',', "',' or '}'"); err != nil {
					return err
				}
			}
			key, raw, err := r.Key()
			if err != nil {
				return err
			}
			switch string(key) {
			case "traceEvents":
				if sawEvents {
					return r.Errorf("a second traceEvents key")
				}
				sawEvents = true
				if err := writeSep(w, first, raw); err != nil {
					return err
				}
				if r.Peek() != '[' {
					return r.Errorf("traceEvents is not an array")
				}
				if _, err := io.WriteString(w, "[\n"); err != nil {
					return err
				}
				if err := m.traceEvents(w, false); err != nil {
					return err
				}
			case "megaKernelTraceMerge":
				// Merged before: keep the earlier diagnostics under ours.
				s := jsonread.Sink{}
				if err := r.Value(&s); err != nil {
					return err
				}
				m.res.Previous = json.RawMessage(slices.Clone(s.B))
				continue
			case "megaKernelCycleTrace":
				// Merged before with a MegaKernel trace's object: that
				// object stays, and this merge adds none (one member of a
				// name).
				m.fwMeta = true
				fallthrough
			default:
				if err := writeSep(w, first, raw); err != nil {
					return err
				}
				uw := &utf8Writer{w: w}
				s := jsonread.Sink{W: uw}
				if err := r.Value(&s); err != nil {
					return err
				}
				if _, err := uw.Write(s.B); err != nil {
					return err
				}
				if err := uw.flush(); err != nil {
					return err
				}
			}
			first = false
		}
		if !r.AtEnd() {
			return r.Errorf("data after the trace object: %s", r.Found())
		}
		if err := r.IOErr(); err != nil {
			return err
		}
		if !sawEvents {
			return &InputError{File: m.o.Framework, Msg: "no traceEvents array: not a Chrome trace"}
		}
		sep := ",\n"
		if first {
			sep = "\n"
		}
		return m.finish(w, sep)
	default:
		return r.Errorf("a framework trace is a JSON object with traceEvents or an array of events, found %s", r.Found())
	}
}

func writeSep(w io.Writer, first bool, key []byte) error {
	if !first {
		if _, err := io.WriteString(w, ",\n"); err != nil {
			return err
		}
	}
	if _, err := w.Write(key); err != nil {
		return err
	}
	_, err := io.WriteString(w, ":")
	return err
}

// traceEvents copies the framework's events, gathering candidates, then
// selects the outer kernels and appends the MegaKernel's events and the
// closing bracket.
func (m *merger) traceEvents(w io.Writer, open bool) error {
	r := m.fr
	buf := make([]byte, 0, 256<<10)
	var fixed []byte
	err := r.Array(open, "a trace event", func(raw []byte, at jsonread.Pos) error {
		if !utf8.Valid(raw) {
			fixed = fixUTF8(fixed, raw)
			raw = fixed
		}
		if m.events > 0 {
			buf = append(buf, ",\n"...)
		}
		buf = append(buf, raw...)
		m.events++
		if len(buf) >= 192<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return m.scan(raw, at)
	})
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if err := m.selectKernels(); err != nil {
		return err
	}
	if err := m.writeMegaKernel(w); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n]")
	return err
}

// scan looks at one framework event: the tids in use, thread sort
// indices, and outer-kernel candidates.
func (m *merger) scan(raw []byte, at jsonread.Pos) error {
	var ok bool
	m.ms, ok = members(raw, m.ms)
	if !ok {
		return m.fr.ErrorAt(at, "a trace event is not an object")
	}
	seq := m.seq
	m.seq++
	ms := m.ms
	tidRaw := get(ms, "tid")
	if tid, ok := intValue(tidRaw); ok {
		m.maxTid = max(m.maxTid, tid)
		m.minTid = min(m.minTid, tid)
		if m.o.Upstream {
			pid := string(get(ms, "pid"))
			if t, seen := m.pidMaxTid[pid]; !seen || tid > t {
				m.pidMaxTid[pid] = tid
			}
		}
	}
	ph := get(ms, "ph")
	if jsonread.IsString(ph, "M") {
		if jsonread.IsString(get(ms, "name"), "thread_sort_index") {
			m.args, _ = members(get(ms, "args"), m.args)
			if idx, ok := intValue(get(m.args, "sort_index")); ok {
				m.sortIndex[threadKey(get(ms, "pid"), tidRaw)] = idx
				if pid := string(get(ms, "pid")); m.o.Upstream {
					if s, seen := m.pidMinSort[pid]; !seen || idx < s {
						m.pidMinSort[pid] = idx
					}
				}
			}
		}
	}
	match := matchName(m.re, get(ms, "name"))
	fallback := m.matched == 0 && !m.o.KernelPatternSet
	if !match && !fallback {
		return nil
	}
	k, why := m.candidate(ms, &m.args, at, seq, match)
	if why != nil {
		if match {
			(*why)++
		}
		return nil
	}
	if !match {
		if k.device {
			d := devKey{tsF: k.tsF, durF: k.durF, seq: seq, score: int32(k.score)}
			m.deviceCount++
			m.devices.offer(d)
			if m.inOrder != nil && m.deviceCount > 1 && d.tsF < m.lastDev {
				m.inOrder = nil
			}
			if m.inOrder != nil {
				m.inOrder.push(d)
				m.lastDev = d.tsF
			}
		}
		return nil
	}
	if m.matched == 0 {
		m.devices, m.inOrder = devHeap{}, nil // a name matched: no fallback
	}
	m.matched++
	switch {
	case m.bestCount == 0 || k.score > m.bestScore:
		m.best.ks = m.best.ks[:0]
		m.bestScore, m.bestCount = k.score, 0
	case k.score < m.bestScore:
		return nil
	}
	m.bestCount++
	if m.best.wants(k.tsF, seq) {
		m.best.offer(k.keep())
	}
	return nil
}

// candidate reads a framework event as upstream's _complete_events does:
// ph X or absent, pid as --outer-pid says, ts and dur numbers (or strings
// of them), finite, ts >= 0, dur > 0. It returns the candidate (its byte
// slices still the event's) or the counter of the reason it is not one.
// The device test and score are made for named candidates (named) and
// device kernels.
func (m *merger) candidate(ms []member, args *[]member, at jsonread.Pos, seq int64, named bool) (*kernel, *int) {
	if ph := get(ms, "ph"); ph != nil && string(ph) != "null" {
		if s, ok := jsonread.String(ph); !ok || s != "X" {
			return nil, &m.rej.phase
		}
	}
	pid := get(ms, "pid")
	if m.o.OuterPID != nil && pyStr(pid) != *m.o.OuterPID {
		return nil, &m.rej.pid
	}
	cat, argsRaw := get(ms, "cat"), get(ms, "args")
	if jsonread.IsString(cat, "MegaKernelInternal") {
		// A MegaKernel's own record (a trace merged before, or a
		// MegaKernel trace given as the framework's) launched nothing:
		// its cat holds "kernel", which upstream's test takes for a
		// device kernel (merge X X chose a WaitDependency).
		m.mkRecords++
		return nil, &m.rej.megaKernel
	}
	*args = (*args)[:0]
	if len(argsRaw) > 0 && argsRaw[0] == '{' {
		*args, _ = members(argsRaw, *args)
	}
	device := isDeviceKernel(cat, *args)
	if !named && !device {
		// Of no use to the fallback: not worth reading its times.
		return nil, &m.rej.unnamed
	}
	tsRaw, durRaw := get(ms, "ts"), get(ms, "dur")
	tsText, tsF, ok := pyFloat(tsRaw)
	switch {
	case !ok:
		return nil, &m.rej.tsNotNumber
	case math.IsInf(tsF, 0) || math.IsNaN(tsF):
		return nil, &m.rej.tsNonFinite
	}
	durText, durF, ok := pyFloat(durRaw)
	switch {
	case !ok:
		return nil, &m.rej.durNotNumber
	case math.IsInf(durF, 0) || math.IsNaN(durF):
		return nil, &m.rej.durNonFinite
	case !(tsF >= 0):
		return nil, &m.rej.tsNegative
	case !(durF > 0):
		return nil, &m.rej.durNotPositive
	}
	k := &kernel{pid: pid, tid: get(ms, "tid"), tsText: tsText, durText: durText, tsF: tsF, durF: durF, seq: seq, at: at, device: device}
	k.deviceKey, k.deviceID, k.hasDevice = deviceArg(*args)
	k.quoted = len(tsRaw) > 0 && tsRaw[0] == '"'
	if name := get(ms, "name"); name != nil {
		k.name = pyStr(name)
	}
	k.score = kernelScore(k.name, cat, argsRaw, k.device)
	return k, nil
}

// keep detaches a candidate from the event's bytes.
func (k *kernel) keep() *kernel {
	k.pid = slices.Clone(k.pid)
	if k.pid == nil {
		k.pid = []byte("0") // upstream's outer_event.get("pid", 0)
	}
	k.tid = slices.Clone(k.tid)
	if k.tid == nil {
		k.tid = []byte("null")
	}
	k.name = strings.Clone(k.name)
	return k
}

// matchName matches a name against re as upstream's re.search on
// str(name) does: a string as itself, an absent name as "".
func matchName(re *regexp.Regexp, v []byte) bool {
	if v == nil {
		return re.MatchString("")
	}
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return re.Match(v[1 : len(v)-1])
	}
	return re.MatchString(pyStr(v))
}

func threadKey(pid, tid []byte) string { return string(pid) + "\x00" + string(tid) }

// deviceArg returns the device an outer event's args name: the first
// arg whose key, trimmed, lower-cased and with '_' as ' ', is "device" or
// "device id" (Kineto's args.device, CANN's "Device Id") and whose value
// is an integer, or a string of one.
func deviceArg(args []member) (string, int64, bool) {
	for _, a := range args {
		if len(a.Key) > len(" device id ") {
			continue
		}
		key := string(a.Key)
		k := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(key), "_", " "))
		if k != "device" && k != "device id" {
			continue
		}
		v := a.Value
		if str, ok := jsonread.String(v); ok {
			v = []byte(strings.TrimSpace(str))
		}
		if n, ok := intValue(v); ok {
			return key, n, true
		}
	}
	return "", 0, false
}

func (m *merger) warn(format string, args ...any) {
	m.res.Warnings = append(m.res.Warnings, fmt.Sprintf(format, args...))
}
