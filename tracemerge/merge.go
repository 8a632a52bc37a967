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
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Options say what to merge and how to pick the outer kernels.
type Options struct {
	// Framework is the framework trace (.json or .json.gz; an object with
	// traceEvents or a bare array of events); MegaKernel the trace
	// cycleabi decode wrote.
	Framework, MegaKernel string
	// KernelPattern, when not "", is the regular expression outer kernel
	// names must match (it must match something: no fallback). "" builds a
	// case-insensitive pattern from the MegaKernel trace's kernelName.
	KernelPattern string
	// KernelPatternSet says KernelPattern was given (an empty one is then
	// an error).
	KernelPatternSet bool
	// KernelIndex is the candidate paired with the first invocation.
	KernelIndex int
	// AllowHostWrapper lets host-side events (cpu_op, user_annotation, ...)
	// stand in as outer kernels when no device kernel matches.
	AllowHostWrapper bool
	// OuterPID, when not nil, is the pid the MegaKernel threads go to
	// instead of the outer kernel's.
	OuterPID *int64
	// Rank selects one rank of a multi-rank MegaKernel trace; -1: the only one.
	Rank int64
}

// Alignment says where one invocation was placed.
type Alignment struct {
	// InvocationID, Step and Direction name the invocation (Step is null
	// and Direction empty when the MegaKernel trace does not say).
	InvocationID int64           `json:"invocationId"`
	Step         json.RawMessage `json:"step"`
	Direction    string          `json:"direction,omitempty"`
	// OuterKernelName, Pid, Tid, Ts and Dur are the outer kernel's, as the
	// framework trace has them (times as exact decimals).
	OuterKernelName string          `json:"outerKernelName"`
	OuterKernelPid  json.RawMessage `json:"outerKernelPid"`
	OuterKernelTid  json.RawMessage `json:"outerKernelTid"`
	OuterKernelTs   json.Number     `json:"outerKernelTs"`
	OuterKernelDur  json.Number     `json:"outerKernelDur"`
	// OuterKernelIsDevice is false for a host wrapper (--allow-host-wrapper).
	OuterKernelIsDevice bool `json:"outerKernelIsDevice"`
	// SpanUs is from the invocation's earliest event start to its latest end.
	SpanUs json.Number `json:"spanUs"`
	// ExceedsOuterKernelUs is how far the invocation's span overruns its
	// outer kernel (0 when it fits).
	ExceedsOuterKernelUs json.Number `json:"exceedsOuterKernelUs"`
	// EventCount is the number of the invocation's events merged.
	EventCount int `json:"eventCount"`
}

// Result is the merge's diagnostics, written into the merged trace as
// megaKernelTraceMerge.
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
	// MergedInvocationCount and MergedEventCount count what was merged.
	MergedInvocationCount int `json:"mergedInvocationCount"`
	MergedEventCount      int `json:"mergedEventCount"`
	// UsedFallbackKernelSelection says no name matched, and outer
	// kernels were chosen by duration.
	UsedFallbackKernelSelection bool `json:"usedFallbackKernelSelection"`
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

// ResultSchemaVersion is the version of the megaKernelTraceMerge object.
const ResultSchemaVersion = 1

// SelectionError is a merge that found no outer kernel to use (a pattern
// matching nothing, too few kernels): the inputs are valid but do not fit.
type SelectionError struct{ Msg string }

// Error returns the message.
func (e *SelectionError) Error() string { return e.Msg }

// kernel is an outer-kernel candidate.
type kernel struct {
	name     string
	pid, tid []byte // raw JSON values
	ts, dur  decimal
	quoted   bool // ts was written as a string (CANN): write ours the same way
	device   bool
	seq      int // order in the file
	durF     float64
}

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
	mk, err := readMegaKernel(o.MegaKernel, o.Rank)
	if err != nil {
		return nil, err
	}
	pattern := o.KernelPattern
	if !o.KernelPatternSet {
		pattern, err = defaultPattern(mk)
		if err != nil {
			return nil, err
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("--kernel-pattern: %w", err)
	}
	m := &merger{o: o, mk: mk, re: re, res: &Result{
		SchemaVersion: ResultSchemaVersion, MegaKernelTrace: o.MegaKernel, Rank: mk.rank, DeviceID: mk.deviceID,
		KernelPattern: pattern, KernelIndex: o.KernelIndex, Alignments: []Alignment{}, Warnings: []string{},
	}, sortIndex: map[string]int64{}, maxTid: math.MinInt64}
	m.best = make([][]*kernel, len(mk.inv))
	fr, err := openReader(o.Framework)
	if err != nil {
		return nil, err
	}
	defer fr.close()
	m.fr = fr
	if err := m.run(w); err != nil {
		return nil, err
	}
	return m.res, nil
}

// defaultPattern matches the kernel names of the invocations anywhere in
// a name, ignoring case: "HyperMegaMoe" matches HyperMegaMoe_abc123 and
// aclnnHyperMegaMoe_HyperMegaMoe_HyperMegaMoe.
func defaultPattern(mk *megaKernel) (string, error) {
	var names []string
	for _, inv := range mk.inv {
		if n := regexp.QuoteMeta(inv.kernelName); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", &InputError{File: mk.path, Msg: "the MegaKernel trace names no kernel (kernelName is empty): give --kernel-pattern"}
	}
	return "(?i)" + strings.Join(names, "|"), nil
}

type merger struct {
	o   Options
	mk  *megaKernel
	re  *regexp.Regexp
	fr  *reader
	res *Result

	device, host []*kernel
	// best holds, per invocation, the device kernels closest in duration
	// to its span (at most len(invocations)), for the fallback.
	best      [][]*kernel
	spans     []float64
	deviceN   int
	seq       int
	sortIndex map[string]int64 // pid "\x00" tid -> thread_sort_index
	maxTid    int64
	minTid    int64
	events    int // framework events copied
	ms, args  []member
}

func (m *merger) run(w io.Writer) error {
	for _, inv := range m.mk.inv {
		s := inv.span()
		m.spans = append(m.spans, s.float())
	}
	m.minTid = math.MaxInt64
	r := m.fr
	switch r.peek() {
	case '[':
		if _, err := io.WriteString(w, "{\"traceEvents\":[\n"); err != nil {
			return err
		}
		if err := m.traceEvents(w, true); err != nil {
			return err
		}
		if c := r.peek(); c != 0 {
			return r.errorf("data after the array of trace events: %s", describe(c))
		}
		if err := r.ioErr(); err != nil {
			return err
		}
		return m.finish(w, ",\n")
	case '{':
		r.i++
		if _, err := io.WriteString(w, "{"); err != nil {
			return err
		}
		sawEvents := false
		first := true // nothing written yet
		for inFirst := true; ; inFirst = false {
			if r.peek() == '}' {
				r.i++
				break
			}
			if !inFirst {
				if err := r.expect(',', "',' or '}'"); err != nil {
					return err
				}
			}
			key, raw, err := r.key()
			if err != nil {
				return err
			}
			switch key {
			case "traceEvents":
				if sawEvents {
					return r.errorf("a second traceEvents key")
				}
				sawEvents = true
				if err := writeSep(w, first, raw); err != nil {
					return err
				}
				if r.peek() != '[' {
					return r.errorf("traceEvents is not an array")
				}
				if _, err := io.WriteString(w, "[\n"); err != nil {
					return err
				}
				if err := m.traceEvents(w, false); err != nil {
					return err
				}
			case "megaKernelTraceMerge":
				// Merged before: keep the earlier diagnostics under ours.
				s := sink{}
				if err := r.value(&s); err != nil {
					return err
				}
				m.res.Previous = json.RawMessage(slices.Clone(s.b))
				continue
			default:
				if err := writeSep(w, first, raw); err != nil {
					return err
				}
				s := sink{w: w}
				if err := r.value(&s); err != nil {
					return err
				}
				if _, err := w.Write(s.b); err != nil {
					return err
				}
			}
			first = false
		}
		if c := r.peek(); c != 0 {
			return r.errorf("data after the trace object: %s", describe(c))
		}
		if err := r.ioErr(); err != nil {
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
		return r.errorf("a framework trace is a JSON object with traceEvents or an array of events, found %s", describe(r.cur()))
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
	err := r.array(open, func(raw []byte, at eventAt) error {
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

var (
	phX = []byte(`"X"`)
	phM = []byte(`"M"`)
)

// scan looks at one framework event: the tids in use, thread sort
// indices, and outer-kernel candidates.
func (m *merger) scan(raw []byte, at eventAt) error {
	var ok bool
	m.ms, ok = members(raw, m.ms)
	if !ok {
		return m.fr.errorAt(at, "a trace event is not an object")
	}
	ms := m.ms
	tidRaw := get(ms, "tid")
	if tid, ok := intValue(tidRaw); ok {
		m.maxTid = max(m.maxTid, tid)
		m.minTid = min(m.minTid, tid)
	}
	ph := get(ms, "ph")
	switch {
	case string(ph) == string(phM):
		if string(get(ms, "name")) == `"thread_sort_index"` {
			m.args, _ = members(get(ms, "args"), m.args)
			if idx, ok := intValue(get(m.args, "sort_index")); ok {
				m.sortIndex[threadKey(get(ms, "pid"), tidRaw)] = idx
			}
		}
		return nil
	case string(ph) != string(phX):
		return nil
	}
	tsRaw, durRaw := get(ms, "ts"), get(ms, "dur")
	_, st := quickTime(tsRaw)
	if st == timeNonFinite {
		return m.fr.errorAt(at, "ts %s is not finite", tsRaw)
	}
	dur, sd := quickTime(durRaw)
	if sd == timeNonFinite {
		return m.fr.errorAt(at, "dur %s is not finite", durRaw)
	}
	if st != timeOK || sd != timeOK || !(dur > 0) || !isID(get(ms, "pid")) || !isID(tidRaw) {
		return nil
	}
	nameRaw := get(ms, "name")
	device := false
	if c, ok := str(get(ms, "cat")); ok && strings.EqualFold(c, "kernel") {
		device = true
	}
	argsRaw := get(ms, "args")
	if !device && len(argsRaw) > 0 && argsRaw[0] == '{' {
		m.args, _ = members(argsRaw, m.args)
		if tt, ok := str(get(m.args, "Task Type")); ok && (tt == "MIX_AIC" || tt == "MIX_AIV") {
			device = true
		}
	}
	if device {
		m.deviceN++
	}
	match := matchName(m.re, nameRaw)
	if !match && !device {
		return nil
	}
	name, _ := str(nameRaw)
	m.seq++
	mkKernel := func() (*kernel, error) {
		k := &kernel{name: name, pid: slices.Clone(get(ms, "pid")), tid: slices.Clone(tidRaw), device: device, seq: m.seq, durF: dur}
		k.quoted = len(tsRaw) > 0 && tsRaw[0] == '"'
		if parseTime(tsRaw, &k.ts) != timeOK || parseTime(durRaw, &k.dur) != timeOK {
			return nil, m.fr.errorAt(at, "ts %s or dur %s is not an exact decimal this merge can place events at", tsRaw, durRaw)
		}
		return k, nil
	}
	if match {
		k, err := mkKernel()
		if err != nil {
			return err
		}
		if device {
			m.device = append(m.device, k)
		} else {
			m.host = append(m.host, k)
		}
		return nil
	}
	// A device kernel whose name does not match: keep it only when it is
	// among the closest in duration to some invocation, for the fallback.
	var k *kernel
	limit := len(m.mk.inv)
	for i, span := range m.spans {
		b := m.best[i]
		if len(b) == limit && math.Abs(b[len(b)-1].durF-span) <= math.Abs(dur-span) {
			continue
		}
		if k == nil {
			var err error
			if k, err = mkKernel(); err != nil {
				return err
			}
		}
		j, _ := slices.BinarySearchFunc(b, k, func(x, y *kernel) int {
			return cmp.Or(cmp.Compare(math.Abs(x.durF-span), math.Abs(y.durF-span)), cmp.Compare(x.seq, y.seq))
		})
		b = slices.Insert(b, j, k)
		if len(b) > limit {
			b = b[:limit]
		}
		m.best[i] = b
	}
	return nil
}

// matchName matches a name's JSON string against re, without unescaping
// (or allocating) when it has no escapes.
func matchName(re *regexp.Regexp, v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return re.Match(v[1 : len(v)-1])
	}
	s, ok := unquote(v)
	return ok && re.MatchString(s)
}

// isID reports whether a pid or tid is one merge can place threads by: a
// number or a string.
func isID(v []byte) bool {
	return len(v) > 0 && (v[0] == '"' || v[0] == '-' || '0' <= v[0] && v[0] <= '9')
}

func threadKey(pid, tid []byte) string { return string(pid) + "\x00" + string(tid) }

// quickTime reads a time as a float64 only to check it and to compare
// durations; exact values are parsed for the candidates kept.
func quickTime(v []byte) (float64, timeStatus) {
	if v == nil {
		return 0, timeNotNumber
	}
	s := v
	if v[0] == '"' {
		u, ok := unquote(v)
		if !ok {
			return 0, timeNotNumber
		}
		s = []byte(strings.TrimSpace(u))
		switch strings.ToLower(strings.TrimLeft(string(s), "+-")) {
		case "nan", "inf", "infinity":
			return 0, timeNonFinite
		}
		if len(s) > 0 && s[0] == '+' {
			s = s[1:]
		}
		if !isJSONNumber(s) && !isLooseDecimal(s) {
			return 0, timeNotNumber
		}
	} else {
		switch string(v) {
		case "NaN", "Infinity", "-Infinity":
			return 0, timeNonFinite
		}
		if !isJSONNumber(v) {
			return 0, timeNotNumber
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		if math.IsInf(f, 0) {
			return 0, timeNonFinite
		}
		return 0, timeNotNumber
	}
	return f, timeOK
}

func (m *merger) warn(format string, args ...any) {
	m.res.Warnings = append(m.res.Warnings, fmt.Sprintf(format, args...))
}

// selectKernels pairs the invocations (in time order) with outer kernels.
func (m *merger) selectKernels() error {
	n := len(m.mk.inv)
	pool := m.device
	hostUsed := false
	if len(pool) == 0 && len(m.host) > 0 {
		if m.o.AllowHostWrapper {
			pool, hostUsed = m.host, true
			m.warn("no device kernel matches %s; placing the MegaKernel under %d host wrapper event(s) (--allow-host-wrapper): their times are the host's, not the device's", m.re, len(m.host))
		} else if m.o.KernelPatternSet {
			return &SelectionError{fmt.Sprintf("--kernel-pattern %s matches no device kernel, only %d host wrapper event(s) (cpu_op, user_annotation, ...); --allow-host-wrapper places the MegaKernel under them", m.re, len(m.host))}
		}
	}
	if len(pool) == 0 {
		if m.o.KernelPatternSet {
			return &SelectionError{fmt.Sprintf("--kernel-pattern %s matches no outer kernel in %s (%d device kernels seen)", m.re, m.o.Framework, m.deviceN)}
		}
		return m.fallback()
	}
	slices.SortStableFunc(pool, func(a, b *kernel) int {
		return cmp.Or(a.ts.cmp(&b.ts), cmp.Compare(a.seq, b.seq))
	})
	if m.o.KernelIndex+n > len(pool) {
		what := "device kernels"
		if hostUsed {
			what = "host wrappers"
		}
		return &SelectionError{fmt.Sprintf("too few outer kernels: %d invocation(s) need %d %s matching %s from --kernel-index %d, but %s has %d", n, n, what, m.re, m.o.KernelIndex, m.o.Framework, len(pool))}
	}
	for i, inv := range m.mk.inv {
		inv.outer = pool[m.o.KernelIndex+i]
	}
	return nil
}

// fallback places each invocation under the unused device kernel whose
// duration is closest to its span.
func (m *merger) fallback() error {
	if m.deviceN == 0 {
		msg := fmt.Sprintf("no outer kernel: nothing in %s matches %s, and it has no device kernel (cat \"kernel\", or args \"Task Type\" MIX_AIC/MIX_AIV) to fall back to", m.o.Framework, m.re)
		if len(m.host) > 0 {
			msg += fmt.Sprintf("; %d host wrapper event(s) match: --allow-host-wrapper places the MegaKernel under them", len(m.host))
		}
		return &SelectionError{msg}
	}
	used := map[*kernel]bool{}
	for i, inv := range m.mk.inv {
		for _, k := range m.best[i] {
			if !used[k] {
				inv.outer, used[k] = k, true
				break
			}
		}
		if inv.outer == nil {
			return &SelectionError{fmt.Sprintf("too few outer kernels: %d invocation(s), but %s has %d device kernel(s) to fall back to", len(m.mk.inv), m.o.Framework, m.deviceN)}
		}
	}
	m.res.UsedFallbackKernelSelection = true
	m.warn("no outer kernel name matches %s; chose the device kernel(s) closest in duration to each invocation's span (--kernel-pattern picks them by name)", m.re)
	if len(m.host) > 0 && !m.o.AllowHostWrapper {
		m.warn("%d host wrapper event(s) match %s but are not device kernels; --allow-host-wrapper would use them", len(m.host), m.re)
	}
	return nil
}
