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
		e = fmt.Appendf(e, `,"parent_kernel_ts":%s,"parent_kernel_dur":%s,"cycle_trace_rank":%d,"cycle_trace_device_id":%d`,
			inv.outer.ts.String(), inv.outer.dur.String(), m.mk.rank, m.mk.deviceID)
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
	if err := mw.rewrite(raw, at, inv, mw.byID[threadID{string(inv.outer.pid), inv.kernelName, tid}], id, flow); err != nil {
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
			mw.nts.add(&mw.ts, &inv.delta)
			repl = m.appendTime(nil, inv, mw.nts.append(nil))
		case "dur":
			if inv.outer.quoted && mem.Value[0] != '"' {
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
			id := threadID{string(pid), inv.kernelName, c}
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

// finish records the alignments and writes megaKernelTraceMerge and the
// closing brace.
func (m *merger) finish(w io.Writer, sep string) error {
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
