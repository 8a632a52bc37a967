package tracemerge

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/chrome"
	"github.com/megakernel/cycleabi/internal/jsonread"
)

// thread is one new framework thread: a MegaKernel core under the pid its
// invocations were placed in.
type thread struct {
	pid        []byte
	kernelName string
	core       int64
	tid        int64
	sortIndex  int64
}

type threadID struct {
	pid        string
	kernelName string
	core       int64
	inv        int64 // upstream mode: the invocation (threads of its own); else 0
}

// writeMegaKernel writes the new threads' metadata and the MegaKernel
// events, each after ",\n" (the framework's events come before).
func (m *merger) writeMegaKernel(w io.Writer) error {
	m.capNames()
	threads, byID, err := m.assignThreads()
	if err != nil {
		return err
	}
	mw := &mkWriter{m: m, w: w, byID: byID, byInv: map[int64]*invocation{}, extra: map[int64][]byte{}}
	for _, t := range threads {
		mw.sep()
		mw.b = chrome.AppendNameEvent(mw.b, "thread_name", string(t.pid), t.tid, appendJSON(nil, t.kernelName+"/"+m.mk.coreName(t.core)))
		mw.sep()
		mw.b = chrome.AppendSortIndexEvent(mw.b, string(t.pid), t.tid, t.sortIndex)
	}
	if err := mw.flush(); err != nil {
		return err
	}
	for _, inv := range m.mk.inv {
		inv.delta.sub(&inv.outer.ts, &inv.first)
		mw.byInv[inv.id] = inv
		// The outer kernel's name goes on every event: capped (capNames).
		e := []byte(`"parent_kernel":`)
		e = appendJSON(e, inv.outer.name)
		ts, dur := inv.outer.ts.String(), inv.outer.dur.String()
		if m.o.Upstream {
			// float(ts), float(dur), as upstream writes them.
			ts, dur = pyFloatRepr(inv.outer.tsF), pyFloatRepr(inv.outer.durF)
		}
		e = fmt.Appendf(e, `,"parent_kernel_ts":%s,"parent_kernel_dur":%s,"cycle_trace_rank":%d,"cycle_trace_device_id":%d`,
			ts, dur, m.mk.rank, m.mk.deviceID)
		mw.extra[inv.id] = e
	}
	r, err := openReader(m.mk.path)
	if err != nil {
		return err
	}
	defer r.Close()
	mw.r = r
	if err := eachEvent(r, mw.event); err != nil {
		return err
	}
	if err := mw.flush(); err != nil {
		return err
	}
	if mw.written != m.mk.events || mw.flows != m.mk.flows {
		return &InputError{File: m.mk.path, Msg: "the MegaKernel trace changed while it was merged"}
	}
	if mw.lost > 0 {
		m.warn("%d of the MegaKernel trace's %d flow events (dependency arrows' ends) lie in no invocation's span on their core and were left out", mw.lost, mw.flows)
	}
	m.res.MergedEventCount = mw.written
	return nil
}

// mkWriter is the state of the second pass over the MegaKernel trace,
// which writes its events into the framework's.
type mkWriter struct {
	m     *merger
	w     io.Writer
	r     *jsonread.Reader
	b     []byte // output not written yet
	byID  map[threadID]*thread
	byInv map[int64]*invocation
	// extra holds the args each invocation's events get.
	extra                map[int64][]byte
	ms, args             []member
	ts, nts              decimal
	fixed                []byte
	written, flows, lost int
}

// sep writes the separator before an event and counts it.
func (mw *mkWriter) sep() {
	if mw.m.events > 0 {
		mw.b = append(mw.b, ",\n"...)
	}
	mw.m.events++
}

func (mw *mkWriter) flush() error {
	_, err := mw.w.Write(mw.b)
	mw.b = mw.b[:0]
	return err
}

// event writes one event of the MegaKernel trace: an X event or a flow
// event of the rank merged, moved under its invocation's outer kernel;
// any other is left out.
func (mw *mkWriter) event(raw []byte, at jsonread.Pos) error {
	m, r := mw.m, mw.r
	if !utf8.Valid(raw) {
		mw.fixed = fixUTF8(mw.fixed, raw)
		raw = mw.fixed
	}
	var ok bool
	if mw.ms, ok = members(raw, mw.ms); !ok {
		return r.ErrorAt(at, "a trace event is not an object")
	}
	ph, _ := jsonread.String(get(mw.ms, "ph")) // escapes decoded, as the first pass reads it
	flow := ph == "s" || ph == "t" || ph == "f"
	if ph != "X" && !flow {
		return nil
	}
	pid, _ := intValue(get(mw.ms, "pid"))
	if pid != m.mk.pid {
		return nil
	}
	tid, _ := intValue(get(mw.ms, "tid"))
	var inv *invocation
	id := int64(0)
	argsRaw := get(mw.ms, "args")
	mw.args = mw.args[:0]
	if len(argsRaw) > 0 && argsRaw[0] == '{' {
		mw.args, _ = members(argsRaw, mw.args)
	}
	if flow && m.o.Upstream {
		// Upstream's merger takes only the X events.
		mw.flows++
		return nil
	}
	if !flow {
		// Another rank's events may share the pid (upstream's export
		// writes pid 0 for every rank): the rank is the key's.
		key, _ := keyOf(pid, mw.args)
		if !m.mk.keys[key] {
			return nil
		}
	}
	if flow {
		if parseTime(get(mw.ms, "ts"), &mw.ts) != timeOK {
			return r.ErrorAt(at, "the MegaKernel trace changed while it was merged")
		}
		inv = m.flowInvocation(tid, &mw.ts)
		mw.flows++
		if inv == nil {
			mw.lost++
			return nil
		}
	} else {
		if v := get(mw.args, "invocation_id"); v != nil {
			id, _ = intValue(v)
		}
		if inv = mw.byInv[id]; inv == nil {
			return r.ErrorAt(at, "the MegaKernel trace changed while it was merged")
		}
	}
	mw.sep()
	key := threadID{string(inv.outer.pid), inv.kernelName, tid, 0}
	if m.o.Upstream {
		key.inv = inv.id
	}
	if err := mw.rewrite(raw, at, inv, mw.byID[key], id, flow); err != nil {
		return err
	}
	if flow {
		m.res.MergedFlowEventCount++
	} else {
		mw.written++
	}
	if len(mw.b) >= 192<<10 {
		return mw.flush()
	}
	return nil
}

// rewrite appends event raw with its pid, tid and times moved under inv's
// outer kernel on thread t, and (an X event) the invocation's args.
func (mw *mkWriter) rewrite(raw []byte, at jsonread.Pos, inv *invocation, t *thread, id int64, flow bool) error {
	m, b := mw.m, mw.b
	last := 0
	hasArgs := false
	for _, mem := range mw.ms {
		var repl []byte
		switch string(mem.Key) {
		case "pid":
			repl = inv.outer.pid
		case "tid":
			repl = strconv.AppendInt(nil, t.tid, 10)
		case "ts":
			if parseTime(mem.Value, &mw.ts) != timeOK {
				return mw.r.ErrorAt(at, "ts %s is not a decimal number", mem.Value)
			}
			if m.o.Upstream {
				// outer_ts + ts - anchor, left to right in doubles.
				_, tsF, _ := pyFloat(mem.Value)
				placed := (inv.outer.tsF + tsF) - inv.firstF
				if !flow {
					_, durF, _ := pyFloat(get(mw.ms, "dur"))
					inv.placedEndF = max(inv.placedEndF, placed+durF)
				}
				repl = []byte(pyFloatRepr(placed))
				break
			}
			mw.nts.add(&mw.ts, &inv.delta)
			repl = m.appendTime(nil, inv, mw.nts.append(nil))
		case "dur":
			if !m.o.Upstream && inv.outer.quoted && mem.Value[0] != '"' {
				repl = m.appendTime(nil, inv, mem.Value)
			}
		case "args":
			if !flow && len(mem.Value) > 0 && mem.Value[0] == '{' {
				hasArgs = true
				closing := mem.End - 1
				b = append(b, raw[last:closing]...)
				if len(mw.args) > 0 {
					b = append(b, ',')
				}
				b = append(b, mw.extra[id]...)
				last = closing
			}
			continue
		default:
			continue
		}
		if repl != nil {
			b = append(b, raw[last:mem.Start]...)
			b = append(b, repl...)
			last = mem.End
		}
	}
	if !hasArgs && !flow {
		// Before the event's closing brace.
		closing := len(raw) - 1
		b = append(b, raw[last:closing]...)
		b = append(b, `,"args":{`...)
		b = append(b, mw.extra[id]...)
		b = append(b, '}')
		last = closing
	}
	mw.b = append(b, raw[last:]...)
	return nil
}

// flowInvocation returns the invocation a flow event at ts on core tid
// belongs to: the first (in time order) with events on that core whose
// span holds ts; nil when none does.
func (m *merger) flowInvocation(tid int64, ts *decimal) *invocation {
	for _, inv := range m.mk.inv {
		if inv.cores[tid] && ts.cmp(&inv.first) >= 0 && ts.cmp(&inv.end) <= 0 {
			return inv
		}
	}
	return nil
}

// appendTime appends a time as the outer kernel's ts is written: a number,
// or a string of one (CANN).
func (m *merger) appendTime(dst []byte, inv *invocation, text []byte) []byte {
	if inv.outer.quoted {
		dst = append(dst, '"')
		dst = append(dst, text...)
		return append(dst, '"')
	}
	return append(dst, text...)
}

// assignThreads gives each (pid, kernel name, core) a tid unused in the
// framework trace and a sort index just after its outer kernel's thread.
func (m *merger) assignThreads() ([]*thread, map[threadID]*thread, error) {
	if m.o.Upstream {
		return m.upstreamThreads()
	}
	byID := map[threadID]*thread{}
	var threads []*thread
	next := map[string]int64{} // per pid: the next sort index
	for _, inv := range m.mk.inv {
		pid := inv.outer.pid
		if _, ok := next[string(pid)]; !ok {
			base, ok := m.sortIndex[threadKey(inv.outer.pid, inv.outer.tid)]
			if !ok {
				// Without thread_sort_index, viewers order threads by tid.
				base, _ = intValue(inv.outer.tid)
			}
			next[string(pid)] = base + 1
		}
		cores := make([]int64, 0, len(inv.cores))
		for c := range inv.cores {
			cores = append(cores, c)
		}
		slices.Sort(cores)
		for _, c := range cores {
			id := threadID{string(pid), inv.kernelName, c, 0}
			if byID[id] != nil {
				continue
			}
			t := &thread{pid: pid, kernelName: inv.kernelName, core: c, sortIndex: next[string(pid)]}
			next[string(pid)]++
			byID[id] = t
			threads = append(threads, t)
		}
	}
	// New tids: above every numeric tid in the framework trace, or below
	// them all when that would overflow.
	n := int64(len(threads))
	switch {
	case m.maxTid == math.MinInt64: // no numeric tid at all
		for i, t := range threads {
			t.tid = int64(i) + 1
		}
	case m.maxTid <= math.MaxInt64-n:
		for i, t := range threads {
			t.tid = m.maxTid + 1 + int64(i)
		}
	case m.minTid >= math.MinInt64+n:
		for i, t := range threads {
			t.tid = m.minTid - 1 - int64(i)
		}
	default:
		return nil, nil, &SelectionError{"no free range of thread ids in the framework trace"}
	}
	return threads, byID, nil
}

// upstreamThreads assigns threads as upstream's merger does: each
// invocation its own, one per core in (core type, block) order, tids
// from one past the largest integer tid of the outer kernel's pid (1
// when it has none), sort indexes counting up from the pid's smallest
// thread_sort_index (0 when none) less the number of new threads, so
// that they sort before the pid's threads.
func (m *merger) upstreamThreads() ([]*thread, map[threadID]*thread, error) {
	byID := map[threadID]*thread{}
	var threads []*thread
	count := map[string]int64{}
	for _, inv := range m.mk.inv {
		count[string(inv.outer.pid)] += int64(len(inv.cores))
	}
	nextSort, nextTid := map[string]int64{}, map[string]int64{}
	for pid, n := range count {
		nextSort[pid] = m.pidMinSort[pid] - n
		nextTid[pid] = 1
		if t, ok := m.pidMaxTid[pid]; ok {
			if t > math.MaxInt64-n {
				return nil, nil, &SelectionError{"no free range of thread ids in the framework trace"}
			}
			nextTid[pid] = t + 1
		}
	}
	for _, inv := range m.mk.inv {
		pid := string(inv.outer.pid)
		cores := make([]int64, 0, len(inv.cores))
		for c := range inv.cores {
			cores = append(cores, c)
		}
		slices.Sort(cores)
		for _, c := range cores {
			t := &thread{pid: inv.outer.pid, kernelName: inv.kernelName, core: c, tid: nextTid[pid], sortIndex: nextSort[pid]}
			nextTid[pid]++
			nextSort[pid]++
			byID[threadID{pid, inv.kernelName, c, inv.id}] = t
			threads = append(threads, t)
		}
	}
	return threads, byID, nil
}

// finish records the alignments and writes megaKernelTraceMerge and the
// closing brace.
func (m *merger) finish(w io.Writer, sep string) error {
	if m.o.Upstream {
		return m.finishUpstream(w, sep)
	}
	res := m.res
	var maxExceed decimal
	for _, inv := range m.mk.inv {
		k := inv.outer
		span := inv.span()
		var exceed decimal
		exceed.sub(&span, &k.dur)
		if exceed.sign() < 0 {
			exceed = decimal{}
		}
		if exceed.sign() > 0 {
			m.warn("invocation %d runs %s us past its outer kernel %q (span %s us, kernel %s us)", inv.id, exceed.String(), k.name, span.String(), k.dur.String())
		}
		if k.hasDevice && m.mk.deviceStated && k.deviceID != m.mk.deviceID {
			m.warn("invocation %d: the MegaKernel trace is of device %d, its outer kernel %q of device %d (args.%s): a trace of another device?", inv.id, m.mk.deviceID, k.name, k.deviceID, k.deviceKey)
		}
		if exceed.cmp(&maxExceed) > 0 {
			maxExceed.set(&exceed)
		}
		res.Alignments = append(res.Alignments, Alignment{
			InvocationID: inv.id, Step: inv.step, Direction: inv.direction,
			KernelName: inv.kernelName, Rank: m.mk.rank, DeviceID: m.mk.deviceID,
			OuterKernelName: k.name, OuterKernelPid: json.RawMessage(k.pid), OuterKernelTid: json.RawMessage(k.tid),
			OuterKernelTs: json.Number(k.ts.String()), OuterKernelDur: json.Number(k.dur.String()),
			OuterKernelScore: k.score, OuterKernelIsDevice: k.device,
			InternalEventCount: inv.events, InternalSpanUs: json.Number(span.String()),
			ExceedsOuterKernelUs: json.Number(exceed.String()),
		})
	}
	res.MergedInvocationCount = len(m.mk.inv)
	res.ExceedsOuterKernelUs = json.Number(maxExceed.String())
	if len(res.Previous) == 0 {
		res.Previous = nil
	}
	js, err := json.Marshal(res)
	if err != nil {
		return err
	}
	b := append([]byte(sep), `"megaKernelTraceMerge":`...)
	b = append(b, js...)
	if m.mk.meta != nil && !m.fwMeta {
		// The merged MegaKernel trace's own object: the merged trace is
		// then read back as that trace wherever a trace is an input.
		b = append(b, `,"megaKernelCycleTrace":`...)
		b = append(b, m.mk.meta...)
	}
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}

func appendJSON(b []byte, s string) []byte {
	js, _ := json.Marshal(s)
	return append(b, js...)
}

// upstreamAlignment is an alignment as upstream's merger reports it: its
// keys only, times as float64 (float(ts), and its arithmetic).
type upstreamAlignment struct {
	InvocationID         *int64          `json:"invocationId"`
	Direction            *string         `json:"direction"`
	KernelName           string          `json:"kernelName"`
	Rank                 int64           `json:"rank"`
	DeviceID             int64           `json:"deviceId"`
	OuterKernelName      string          `json:"outerKernelName"`
	OuterKernelPid       json.RawMessage `json:"outerKernelPid"`
	OuterKernelTid       json.RawMessage `json:"outerKernelTid"`
	OuterKernelTs        json.RawMessage `json:"outerKernelTs"`
	OuterKernelDur       json.RawMessage `json:"outerKernelDur"`
	OuterKernelScore     int             `json:"outerKernelScore"`
	OuterKernelIsDevice  bool            `json:"outerKernelIsDevice"`
	InternalEventCount   int             `json:"internalEventCount"`
	InternalSpanUs       json.RawMessage `json:"internalSpanUs"`
	ExceedsOuterKernelUs json.RawMessage `json:"exceedsOuterKernelUs"`
}

// upstreamResult is megaKernelTraceMerge with upstream's keys only.
type upstreamResult struct {
	SchemaVersion               int                 `json:"schemaVersion"`
	KernelPattern               string              `json:"kernelPattern"`
	KernelIndex                 int                 `json:"kernelIndex"`
	UsedFallbackKernelSelection bool                `json:"usedFallbackKernelSelection"`
	AllowHostWrapperAlignment   bool                `json:"allowHostWrapperAlignment"`
	MergedInvocationCount       int                 `json:"mergedInvocationCount"`
	MergedEventCount            int                 `json:"mergedEventCount"`
	Alignments                  []upstreamAlignment `json:"alignments"`
	Warnings                    []string            `json:"warnings"`
}

// finishUpstream writes megaKernelTraceMerge as upstream's merger does
// (its keys, its float64 figures; the warnings are cycleabi's words) and
// the closing brace; the MegaKernel trace's own object is not carried.
func (m *merger) finishUpstream(w io.Writer, sep string) error {
	res := m.res
	out := upstreamResult{
		SchemaVersion: res.SchemaVersion, KernelPattern: res.KernelPattern, KernelIndex: res.KernelIndex,
		UsedFallbackKernelSelection: res.UsedFallbackKernelSelection, AllowHostWrapperAlignment: res.AllowHostWrapperAlignment,
		MergedInvocationCount: len(m.mk.inv), MergedEventCount: res.MergedEventCount,
		Alignments: []upstreamAlignment{}, Warnings: res.Warnings,
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	num := func(f float64) json.RawMessage { return json.RawMessage(pyFloatRepr(f)) }
	for _, inv := range m.mk.inv {
		k := inv.outer
		exceed := max((inv.placedEndF-k.tsF)-k.durF, 0)
		if exceed > 0 {
			m.warn("invocation %d runs %s us past its outer kernel %q", inv.id, pyFloatRepr(exceed), k.name)
			out.Warnings = m.res.Warnings
		}
		a := upstreamAlignment{
			Direction: inv.direction, KernelName: inv.kernelName, Rank: m.mk.rank, DeviceID: m.mk.deviceID,
			OuterKernelName: k.name, OuterKernelPid: json.RawMessage(k.pid), OuterKernelTid: json.RawMessage(k.tid),
			OuterKernelTs: num(k.tsF), OuterKernelDur: num(k.durF), OuterKernelScore: k.score, OuterKernelIsDevice: k.device,
			InternalEventCount: inv.events, InternalSpanUs: num(inv.spanF), ExceedsOuterKernelUs: num(exceed),
		}
		if !inv.noID {
			id := inv.id
			a.InvocationID = &id
		}
		out.Alignments = append(out.Alignments, a)
	}
	js, err := json.Marshal(out)
	if err != nil {
		return err
	}
	b := append([]byte(sep), `"megaKernelTraceMerge":`...)
	b = append(b, js...)
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}
