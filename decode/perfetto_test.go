package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	pb "github.com/megakernel/cycleabi/decode/internal/perfettopb"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"
)

// perfettoOf writes the Perfetto trace of inputs to memory.
func perfettoOf(inputs ...Input) ([]byte, error) {
	var out bytes.Buffer
	err := WritePerfetto(&out, inputs, WriteOptions{})
	return out.Bytes(), err
}

// checkPerfettoTrace writes both traces of inputs, checks the Perfetto one
// (parsePerfettoTrace, then the track tree) and that it holds the JSON's
// slices: name, category, rank, core, start and duration in nanoseconds,
// and args, record by record; and the JSON's metadata.
func checkPerfettoTrace(inputs ...Input) (*pfModel, error) {
	return checkPerfettoTraceWith(WriteOptions{}, nil, inputs...)
}

// shiftedWarnings rewrites, in a megaKernelCycleTrace object (and its
// ranks), the JSON's warning of negative timestamps as the Perfetto
// writer, which shifted them, words it.
func shiftedWarnings(meta any) {
	m, _ := meta.(map[string]any)
	if ws, ok := m["warnings"].([]any); ok {
		for i, w := range ws {
			if s, ok := w.(string); ok {
				ws[i] = strings.Replace(s, tsNegative, tsShifted, 1)
			}
		}
	}
	if ranks, ok := m["ranks"].([]any); ok {
		for _, r := range ranks {
			shiftedWarnings(r)
		}
	}
}

// checkPerfettoTraceWith is checkPerfettoTrace with write options (for
// both writers) and, for the Perfetto writer, arrows given per input.
// Without those, the flows must be the JSON's arrows too
// (compareFlowsWithJSON).
func checkPerfettoTraceWith(o WriteOptions, flows []flowLookup, inputs ...Input) (*pfModel, error) {
	var jsb, pfb bytes.Buffer
	if err := WriteTrace(&jsb, inputs, o); err != nil {
		return nil, err
	}
	if err := writePerfetto(&pfb, inputs, o, flows); err != nil {
		return nil, err
	}
	js, pf := jsb.Bytes(), pfb.Bytes()
	m, err := parsePerfettoTrace(pf)
	if err != nil {
		return nil, err
	}
	if err := assignInputs(m, inputs); err != nil {
		return nil, err
	}
	if err := checkTrackTree(m, inputs); err != nil {
		return nil, err
	}
	// Flow events carry fields parseTrace refuses (id, bp); the slices
	// are the X events either way.
	var f traceFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if err := compareWithJSON(m, &f, inputs); err != nil {
		return nil, err
	}
	if err := checkExactTimes(m, inputs, o); err != nil {
		return nil, err
	}
	if flows != nil {
		return m, nil // arrows made up for the Perfetto writer alone
	}
	return m, compareFlowsWithJSON(m, js, &f)
}

// assignInputs sets each slice's and instant's input from its sequence,
// numbered as WritePerfetto documents: input i's own sequence is i + 1,
// then come the inputs' cores with records, input by input, in
// Summary.Active order. A core's slices must be on its track (or an
// overlap track under it) and on no other input's sequence.
func assignInputs(m *pfModel, inputs []Input) error {
	type core struct {
		input int
		slot  string
	}
	bySeq := map[uint32]core{}
	next := uint32(len(inputs)) + 1
	for i, in := range inputs {
		bySeq[uint32(i)+1] = core{input: i}
		for _, a := range in.Decoded.Summary.Active {
			bySeq[next] = core{i, a.Slot.String()}
			next++
		}
	}
	for _, list := range [][]*pfModelSlice{m.slices, m.instants} {
		for _, s := range list {
			c, ok := bySeq[s.seq]
			if !ok {
				return fmt.Errorf("%q on sequence %d, which no input has", s.name, s.seq)
			}
			s.input = c.input
			if c.slot != "" && s.core().desc.GetName() != c.slot {
				return fmt.Errorf("%q on track %q from the sequence of core %s", s.name, s.core().desc.GetName(), c.slot)
			}
		}
	}
	return nil
}

// checkExactTimes checks, unless the inputs are invocations laid end to
// end (InvocationGapUs), that every slice begins and ends at exactly
// timestampOffsetNs + round((cycle − time 0) × 1000 / MHz) ns, rounded
// once (half away from time 0), computed here with math/big from the
// record's start_cycle and end_cycle args: time 0 is the input's anchor,
// for invocations the smallest anchor of their rank's (upstream's window
// placement), or cycle 0 with AbsoluteTime.
func checkExactTimes(m *pfModel, inputs []Input, o WriteOptions) error {
	base := map[uint32]uint64{} // rank -> its invocations' smallest anchor
	for _, in := range inputs {
		if in.Config.Invocation == nil {
			continue
		}
		if o.InvocationGapUs != nil && !o.AbsoluteTime {
			return nil
		}
		a := in.Decoded.Summary.Anchor
		if b, ok := base[in.Config.Rank]; !ok || a < b {
			base[in.Config.Rank] = a
		}
	}
	var offset *big.Int
	for _, in := range m.instants {
		if in.name == "megaKernelCycleTrace" {
			offset, _ = new(big.Int).SetString(in.args["timestampOffsetNs"], 10)
		}
	}
	if offset == nil {
		return fmt.Errorf("no timestampOffsetNs")
	}
	at := func(arg string, in *Input) *big.Int {
		cycle, _ := new(big.Int).SetString(arg, 10)
		anchor := new(big.Int)
		switch {
		case o.AbsoluteTime:
		case in.Config.Invocation != nil:
			anchor.SetUint64(base[in.Config.Rank])
		default:
			anchor.SetUint64(in.Decoded.Summary.Anchor)
		}
		d := new(big.Int).Sub(cycle, anchor)
		neg := d.Sign() < 0
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(in.Config.FrequencyMHz, 'f', -1, 64))
		x := new(big.Rat).Quo(new(big.Rat).SetInt(new(big.Int).Mul(d.Abs(d), big.NewInt(1000))), r)
		x.Add(x, big.NewRat(1, 2))
		ns := new(big.Int).Quo(x.Num(), x.Denom())
		if neg {
			ns.Neg(ns)
		}
		return ns.Add(ns, offset)
	}
	for i, sl := range m.slices {
		in := &inputs[sl.input]
		start, end := at(sl.args["start_cycle"], in), at(sl.args["end_cycle"], in)
		if !start.IsUint64() || start.Uint64() != sl.start || !end.IsUint64() || end.Uint64() != sl.end {
			return fmt.Errorf("slice %d (%s): [%d, %d] ns, want [%s, %s]", i, sl.name, sl.start, sl.end, start, end)
		}
	}
	return nil
}

// jsonFlowEvent is a flow event of the JSON trace ("s" on the producer,
// "f" binding to the enclosing slice of the wait).
type jsonFlowEvent struct {
	Ph  string      `json:"ph"`
	ID  json.Number `json:"id"`
	Pid json.Number `json:"pid"`
	Tid json.Number `json:"tid"`
	Ts  json.Number `json:"ts"`
	Bp  string      `json:"bp"`
}

// compareFlowsWithJSON checks the Perfetto trace's flows are the JSON's
// arrows, read as a viewer reads them: each JSON flow event binds to the
// innermost X event of its pid and tid that holds its ts, and the
// Perfetto flow of the same id must start at that slice's BEGIN ("s") and
// end at that slice's END ("f"), the slices matched event by event as
// compareWithJSON matched them. The two writers leave out different
// arrows they cannot bind (the JSON at microsecond positions, Perfetto
// at nanoseconds), counted in their stats; an id only one of them draws
// must be one the other counts as unbound, which needs its stats:
// without unbound arrows on either side the id sets are equal.
func compareFlowsWithJSON(m *pfModel, js []byte, f *traceFile) error {
	var fe struct {
		TraceEvents []jsonFlowEvent `json:"traceEvents"`
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&fe); err != nil {
		return err
	}
	xs := xEvents(f)
	type thread struct{ pid, tid string }
	byThread := map[thread][]int{}
	for i, x := range xs {
		k := thread{x.Pid.String(), x.Tid.String()}
		byThread[k] = append(byThread[k], i)
	}
	// enclosing returns the index of the innermost X event of the thread
	// holding ts: the latest start, then the earliest end.
	enclosing := func(k thread, ts *big.Int) int {
		best := -1
		var bestStart, bestEnd *big.Int
		for _, i := range byThread[k] {
			start := jsonNs(xs[i].Ts)
			end := new(big.Int).Add(start, jsonNs(xs[i].Dur))
			if start.Cmp(ts) > 0 || end.Cmp(ts) < 0 {
				continue
			}
			if best < 0 || start.Cmp(bestStart) > 0 || start.Cmp(bestStart) == 0 && end.Cmp(bestEnd) < 0 {
				best, bestStart, bestEnd = i, start, end
			}
		}
		return best
	}
	starts, ends := map[uint64]int{}, map[uint64]int{}
	for _, e := range fe.TraceEvents {
		if e.Ph != "s" && e.Ph != "f" {
			continue
		}
		id, err := strconv.ParseUint(e.ID.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("JSON flow id %q: %v", e.ID, err)
		}
		i := enclosing(thread{e.Pid.String(), e.Tid.String()}, jsonNs(e.Ts))
		if i < 0 {
			return fmt.Errorf("JSON flow %d (%s) at %s us binds to no slice of pid %s tid %s", id, e.Ph, e.Ts, e.Pid, e.Tid)
		}
		side := starts
		if e.Ph == "f" {
			if e.Bp != "e" {
				return fmt.Errorf("JSON flow %d: f without bp e", id)
			}
			side = ends
		}
		if _, dup := side[id]; dup {
			return fmt.Errorf("JSON flow %d: two %q events", id, e.Ph)
		}
		side[id] = i
	}
	if len(starts) != len(ends) {
		return fmt.Errorf("JSON: %d flow starts, %d ends", len(starts), len(ends))
	}
	for id, i := range starts {
		j, ok := ends[id]
		if !ok {
			return fmt.Errorf("JSON flow %d never ends", id)
		}
		ps, pe := m.flowStarts[id], m.flowEnds[id]
		if ps == nil {
			// Perfetto must count it unbound: its producer does not
			// start before its wait ends.
			if m.slices[i].start < m.slices[j].end {
				return fmt.Errorf("flow %d: in the JSON (%s -> %s) but not in the Perfetto trace", id, xs[i].Name, xs[j].Name)
			}
			continue
		}
		if ps != m.slices[i] || pe != m.slices[j] {
			return fmt.Errorf("flow %d: Perfetto %s@%d -> %s@%d, JSON %s@%s -> %s@%s",
				id, ps.name, ps.start, pe.name, pe.end, xs[i].Name, xs[i].Ts, xs[j].Name, xs[j].Ts)
		}
	}
	for id, ps := range m.flowStarts {
		if _, ok := starts[id]; !ok {
			// The JSON must have counted it unbound; the JSON's ids
			// then shift, which compares only when it has none.
			return fmt.Errorf("flow %d (%s -> %s): in the Perfetto trace but not in the JSON", id, ps.name, m.flowEnds[id].name)
		}
	}
	return nil
}

// checkTrackTree checks the tracks form rank → region → core (→ overlap
// track): one process track per rank with its pid and the JSON's process
// name, its metadata track, regions AIC/AIV named after the core type
// and ordered explicitly, cores named <region>/<block> ranked by block.
func checkTrackTree(m *pfModel, inputs []Input) error {
	procs := map[int32]*pfModelTrack{}
	for _, t := range m.tracks {
		d := t.desc
		switch {
		case d.GetProcess() != nil:
			if t.parent != nil || d.GetProcess().GetProcessName() != d.GetName() || d.GetChildOrdering().String() != "EXPLICIT" {
				return fmt.Errorf("process track %q: parent, name or ordering %v", d.GetName(), d.GetChildOrdering())
			}
			procs[d.GetProcess().GetPid()] = t
		case t.parent == nil:
			return fmt.Errorf("track %q has no parent", d.GetName())
		case d.GetName() == "megaKernelCycleTrace":
			if t.parent.desc.GetProcess() == nil || d.SiblingOrderRank == nil || d.GetSiblingOrderRank() != 0 {
				return fmt.Errorf("metadata track not under a process track, or not ranked first")
			}
		case regionTrack(d.GetName()):
			// Ranked after the metadata track (0) by core type value:
			// AIC (1) before AIV (2).
			ct, _ := abi.ParseCoreType(d.GetName())
			want := int32(ct)
			if t.parent.desc.GetProcess() == nil || d.GetChildOrdering().String() != "EXPLICIT" || d.GetSiblingOrderRank() != want {
				return fmt.Errorf("region %q: parent %q, ordering %v, rank %d", d.GetName(), t.parent.desc.GetName(), d.GetChildOrdering(), d.GetSiblingOrderRank())
			}
		case strings.Contains(d.GetName(), " overlap "):
			core, n, _ := strings.Cut(d.GetName(), " overlap ")
			if t.parent.desc.GetName() != core || strconv.Itoa(int(d.GetSiblingOrderRank())) != n {
				return fmt.Errorf("overlap track %q under %q rank %d", d.GetName(), t.parent.desc.GetName(), d.GetSiblingOrderRank())
			}
		default:
			region, block, ok := strings.Cut(d.GetName(), "/")
			if !ok || t.parent.desc.GetName() != region || strconv.Itoa(int(d.GetSiblingOrderRank())) != block ||
				t.parent.parent == nil || t.parent.parent.desc.GetProcess() == nil {
				return fmt.Errorf("core track %q under %q rank %d", d.GetName(), t.parent.desc.GetName(), d.GetSiblingOrderRank())
			}
		}
	}
	slots := map[uint32]map[abi.Slot]bool{}
	for _, in := range inputs {
		if slots[in.Config.Rank] == nil {
			slots[in.Config.Rank] = map[abi.Slot]bool{}
		}
		for _, a := range in.Decoded.Summary.Active {
			slots[in.Config.Rank][a.Slot] = true
		}
	}
	if len(procs) != len(slots) {
		return fmt.Errorf("%d process tracks for %d ranks", len(procs), len(slots))
	}
	for rank, want := range slots {
		p := procs[int32(rank)]
		if p == nil {
			return fmt.Errorf("no process track for rank %d", rank)
		}
		cores := 0
		for _, t := range m.tracks {
			if t.parent != nil && t.parent.parent == p && t.seq == p.seq {
				cores++
			}
		}
		if cores != len(want) {
			return fmt.Errorf("rank %d: %d core tracks for %d cores with records", rank, cores, len(want))
		}
	}
	return nil
}

func compareWithJSON(m *pfModel, f *traceFile, inputs []Input) error {
	threads, procNames := map[string]string{}, map[string]string{}
	for _, e := range f.TraceEvents {
		switch e.Name {
		case "thread_name":
			threads[e.Pid.String()+"/"+e.Tid.String()] = e.Args["name"].(string)
		case "process_name":
			procNames[e.Pid.String()] = e.Args["name"].(string)
		}
	}
	xs := xEvents(f)
	if len(xs) != len(m.slices) {
		return fmt.Errorf("%d slices for %d JSON events", len(m.slices), len(xs))
	}
	// The offset: every timestamp is shifted so that the earliest JSON
	// ts (negative when a record starts before its core's entry) is 0.
	offset := new(big.Int)
	for _, x := range xs {
		if ts := jsonNs(x.Ts); ts.Sign() < 0 {
			if neg := new(big.Int).Neg(ts); neg.Cmp(offset) > 0 {
				offset = neg
			}
		}
	}
	type trackSeq struct {
		track *pfModelTrack
		seq   uint32
	}
	coreInfo := map[trackSeq]*pfModelSlice{}
	metas := 0
	for _, in := range m.instants {
		switch in.name {
		case coreInfoName:
			k := trackSeq{in.track, in.seq}
			if coreInfo[k] != nil {
				return fmt.Errorf("two core_info instants on %q from one input", in.track.desc.GetName())
			}
			coreInfo[k] = in
		case "megaKernelCycleTrace":
			metas++
			if in.args["timestampOffsetNs"] != offset.String() {
				return fmt.Errorf("timestampOffsetNs %s, want %s", in.args["timestampOffsetNs"], offset)
			}
			if err := compareMetaInstant(in, f, in.input); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unexpected instant %q", in.name)
		}
	}
	if metas != len(inputs) {
		return fmt.Errorf("%d metadata instants for %d ranks", metas, len(inputs))
	}
	// The JSON's ts is exact for a whole number of hertz, its dur too
	// when a cycle is a whole number of nanoseconds; else the JSON
	// rounds the duration on its own (off by 1 ns at most), or divides
	// in float64.
	startExact, durExact := true, true
	for _, in := range inputs {
		if _, whole := wholeHz(in.Config.FrequencyMHz); !whole {
			startExact = false
		}
		if c := newNsClock(in.Config.FrequencyMHz); c.nsPerCycle == 0 {
			durExact = false
		}
	}
	for i, x := range xs {
		s := m.slices[i]
		core := s.core()
		proc := core.parent.parent
		where := fmt.Sprintf("event %d (%s on %s)", i, x.Name, core.desc.GetName())
		if s.name != x.Name || s.cat != x.Cat {
			return fmt.Errorf("%s: name %q cat %q, want %q %q", where, s.name, s.cat, x.Name, x.Cat)
		}
		if core.desc.GetName() != threads[x.Pid.String()+"/"+x.Tid.String()] ||
			strconv.Itoa(int(proc.desc.GetProcess().GetPid())) != x.Pid.String() || proc.desc.GetName() != procNames[x.Pid.String()] {
			return fmt.Errorf("%s: track %q of %q, want thread %s of pid %s", where, core.desc.GetName(), proc.desc.GetName(), x.Tid, x.Pid)
		}
		start := new(big.Int).Sub(new(big.Int).SetUint64(s.start), offset)
		dur := new(big.Int).SetUint64(s.end - s.start)
		if !closeNs(start, jsonNs(x.Ts), startExact) || !closeDur(dur, jsonNs(x.Dur), startExact, durExact) {
			return fmt.Errorf("%s: start %s dur %s ns, JSON ts %s dur %s us", where, start, dur, x.Ts, x.Dur)
		}
		info := coreInfo[trackSeq{core, s.seq}]
		if info == nil || info.start > s.start {
			return fmt.Errorf("%s: no core_info instant on its core before it", where)
		}
		got := map[string]string{}
		for k, v := range s.args {
			got[k] = v
		}
		for k, v := range info.args {
			if _, dup := got[k]; dup {
				return fmt.Errorf("%s: arg %q both on the slice and its core", where, k)
			}
			got[k] = v
		}
		want := map[string]string{}
		for k, v := range x.Args {
			if v != nil { // an invocation's unknown step or direction
				want[k] = fmt.Sprint(v)
			}
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("%s: args %v, want %v", where, got, want)
		}
	}
	var gotMeta, wantMeta any
	d := json.NewDecoder(strings.NewReader(m.metadata["megaKernelCycleTrace"]))
	d.UseNumber()
	if err := d.Decode(&gotMeta); err != nil {
		return fmt.Errorf("metadata: %v", err)
	}
	wantJSON, _ := json.Marshal(f.MegaKernelCycleTrace)
	d = json.NewDecoder(bytes.NewReader(wantJSON))
	d.UseNumber()
	d.Decode(&wantMeta)
	// The arrows drawn may differ: each writer leaves out those it
	// cannot bind (the tests of arrows count them).
	dropKey(gotMeta, "dependencyArrows")
	dropKey(wantMeta, "dependencyArrows")
	if offset.Sign() > 0 {
		shiftedWarnings(wantMeta)
	}
	if !reflect.DeepEqual(gotMeta, wantMeta) {
		return fmt.Errorf("metadata %v, want %v", gotMeta, wantMeta)
	}
	return nil
}

// compareMetaInstant checks the metadata instant of input i holds the
// facts of the JSON's megaKernelCycleTrace object for that capture (the
// object itself, or with several captures its "ranks" entry): every
// scalar as an arg of the same name, capacities per core type as
// recordCapacityPerCore.<type>, warnings joined by "; ". The arrows
// drawn may differ (each writer leaves out those it cannot bind), and an
// invocation's facts are the slices' args.
func compareMetaInstant(in *pfModelSlice, f *traceFile, i int) error {
	obj := f.MegaKernelCycleTrace
	if ranks, ok := obj["ranks"].([]any); ok {
		if i >= len(ranks) {
			return fmt.Errorf("metadata instant of input %d: the JSON has %d ranks", i, len(ranks))
		}
		obj, _ = ranks[i].(map[string]any)
	}
	want := map[string]string{}
	for k, v := range obj {
		switch v := v.(type) {
		case json.Number:
			want[k] = v.String()
		case string:
			want[k] = v
		case bool:
			want[k] = strconv.FormatBool(v)
		case map[string]any:
			if k == "recordCapacityPerCore" {
				for t, c := range v {
					want[k+"."+t] = fmt.Sprint(c)
				}
			}
		case []any:
			if k == "warnings" && len(v) > 0 {
				ws := make([]string, len(v))
				for j, w := range v {
					ws[j] = fmt.Sprint(w)
				}
				want[k] = strings.Join(ws, "; ")
			}
		}
	}
	delete(want, "dependencyArrows")
	// The Perfetto writer shifts timestamps that the JSON writer may
	// keep negative (by the cycles of the JSON's own shift, when it
	// shifts too); its warning says which.
	delete(want, "timestampShiftCycles")
	if in.args["timestampOffsetNs"] != "0" {
		want["warnings"] = strings.Replace(want["warnings"], tsNegative, tsShifted, 1)
	}
	for _, k := range []string{"invocationId", "step", "direction", "capture"} {
		delete(want, k)
	}
	// A JSON number with a fraction or exponent ("50.0") is compared as a
	// float64; any other fact by its text.
	same := func(got, v string) bool {
		if got == v {
			return true
		}
		if !strings.ContainsAny(v, ".eE") {
			return false
		}
		g, err1 := strconv.ParseFloat(got, 64)
		w, err2 := strconv.ParseFloat(v, 64)
		return err1 == nil && err2 == nil && g == w
	}
	for k, v := range want {
		if got, ok := in.args[k]; !ok || !same(got, v) {
			return fmt.Errorf("metadata instant of input %d: %s = %q (present %v), JSON %q", i, k, got, ok, v)
		}
	}
	return nil
}

// dropKey deletes key from every object in v.
func dropKey(v any, key string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, key)
		for _, e := range v {
			dropKey(e, key)
		}
	case []any:
		for _, e := range v {
			dropKey(e, key)
		}
	}
}

// jsonNs reads a JSON ts or dur (decimal microseconds, at most three
// fractional digits) as exact nanoseconds.
func jsonNs(n json.Number) *big.Int {
	s := n.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	v, _ := new(big.Int).SetString(whole+(frac + "000")[:3], 10)
	if neg {
		v.Neg(v)
	}
	return v
}

// closeDur compares a Perfetto duration (END − BEGIN, each end rounded
// on its own) with the JSON's dur, which is the duration rounded on its
// own, made up to 2 ns shorter so that ts + dur does not pass the end's
// timestamp in a viewer's floating point: 0 to 2 ns shorter when a cycle
// is a whole number of nanoseconds, one more either way otherwise.
func closeDur(got, want *big.Int, startExact, durExact bool) bool {
	if !startExact {
		return closeNs(got, want, false)
	}
	d := new(big.Int).Sub(got, want).Int64()
	if durExact {
		return d >= 0 && d <= 2
	}
	return d >= -1 && d <= 3
}

// closeNs: equal when exact, else within 1 ns, or a 2^-50 relative error
// for a frequency the JSON writer divides in float64.
func closeNs(got, want *big.Int, exact bool) bool {
	d := new(big.Int).Sub(got, want)
	if exact || d.Sign() == 0 {
		return d.Sign() == 0
	}
	d.Abs(d)
	tol := new(big.Int).Rsh(new(big.Int).Abs(want), 50)
	return d.Cmp(big.NewInt(1)) <= 0 || d.Cmp(tol) <= 0
}

// The shipped examples: the Perfetto trace holds the JSON's slices, alone
// and as two ranks of one trace.
func TestPerfettoExamples(t *testing.T) {
	names, err := LoadNames("../examples/moe_layer.names.yaml")
	if err != nil {
		t.Fatal(err)
	}
	open := func(path string) *Decoded {
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		d, err := Decode(c, capture.Request{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	moe, aiv := defaultConfig(), defaultConfig()
	moe.Names = names
	aiv.Rank, aiv.DeviceID = 1, 5
	inputs := []Input{{Decoded: open("../examples/moe_layer.bin"), Config: moe}, {Decoded: open("../examples/aiv_pipeline.npy"), Config: aiv}}
	for _, in := range [][]Input{inputs[:1], inputs[1:], inputs} {
		m, err := checkPerfettoTrace(in...)
		if err != nil {
			t.Fatalf("%d input(s), first %s: %v", len(in), in[0].Decoded.Capture.Name, err)
		}
		records := 0
		for _, i := range in {
			records += int(i.Decoded.Summary.Records)
		}
		if len(m.slices) != records {
			t.Fatalf("%d slices for %d records", len(m.slices), records)
		}
	}
}

// With the interning tables full after two entries, later event names and
// task_stage values are written in full: the trace still holds the JSON's
// slices, names and args, on the example with its names file, detailed
// names or not.
func TestPerfettoInternedTablesFull(t *testing.T) {
	names, err := LoadNames("../examples/moe_layer.names.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := capture.Open("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := Decode(c, capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { maxInternedNames = n }(maxInternedNames)
	for _, limit := range []int{2, 1 << 16} {
		maxInternedNames = limit
		for _, detailed := range []bool{false, true} {
			cfg := defaultConfig()
			cfg.Names, cfg.DetailedNames = names, detailed
			pf, err := perfettoOf(Input{Decoded: d, Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := checkPerfettoTrace(Input{Decoded: d, Config: cfg}); err != nil {
				t.Fatalf("limit %d, detailed %v: %v", limit, detailed, err)
			}
			// Full tables write names and stages in full: a bigger trace.
			t.Logf("limit %d, detailed %v: %d bytes", limit, detailed, len(pf))
		}
	}
}

// propPerfetto: for any valid capture, at any of the test frequencies,
// the Perfetto trace passes every check and holds the JSON's slices; or,
// when a timestamp is past 2^63-1 ns, it is refused.
func propPerfetto(t *rapid.T) {
	g := drawCapture(t)
	cfg := defaultConfig()
	cfg.Names = g.names
	cfg.DetailedNames = rapid.Bool().Draw(t, "detailed")
	cfg.FrequencyMHz = rapid.SampledFrom([]float64{50, 1000, 3, 0.0000003}).Draw(t, "mhz")
	cfg.Rank = rapid.Uint32Range(0, 7).Draw(t, "rank")
	cfg.DeviceID = rapid.Uint32Range(0, 7).Draw(t, "device")
	d, err := mustDecode("gen.bin", g.b.Bytes(), g.opts)
	if err != nil {
		t.Fatalf("valid capture refused: %v", err)
	}
	in := Input{Decoded: d, Config: cfg}
	if _, err := checkPerfettoTrace(in); err != nil {
		if !strings.Contains(err.Error(), "2^63-1 ns") {
			t.Fatal(err)
		}
		// Refused: some JSON timestamp must be that far from the anchor.
		js, _ := traceOf(in)
		f, _ := parseTrace(js)
		far := false
		for _, x := range xEvents(f) {
			end := new(big.Int).Add(new(big.Int).Abs(jsonNs(x.Ts)), jsonNs(x.Dur))
			far = far || end.Cmp(new(big.Int).Lsh(big.NewInt(1), 62)) > 0
		}
		if !far {
			t.Fatalf("refused, though every timestamp is within 2^62 ns: %v", err)
		}
	}
}

func TestPerfettoProperty(t *testing.T) { rapid.Check(t, propPerfetto) }

func FuzzPerfetto(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propPerfetto)) }

// propPerfettoFlows: arrows drawn between random records, fan-in and
// fan-out, each producer starting before its wait ends, come out as one
// flow_ids entry on the producer's BEGIN and one terminating_flow_ids
// entry on the wait's END, in that order.
func propPerfettoFlows(t *rapid.T) {
	g := drawCapture(t)
	d, err := mustDecode("gen.bin", g.b.Bytes(), g.opts)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := scanRecords(d)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		slot  abi.Slot
		index int
	}
	type arrow struct{ src, dst liveRecord }
	arrows := map[uint64]arrow{}
	outs, ins := map[key][]uint64{}, map[key][]uint64{}
	n := rapid.IntRange(0, 2*len(recs)).Draw(t, "arrows")
	for range n {
		src := recs[rapid.IntRange(0, len(recs)-1).Draw(t, "src")]
		// Fan-out and fan-in: often reuse an endpoint.
		dst := recs[rapid.IntRange(0, len(recs)-1).Draw(t, "dst")]
		if src.StartCycle >= dst.EndCycle {
			continue
		}
		id := rapid.Uint64().Draw(t, "id")
		if _, dup := arrows[id]; dup {
			continue
		}
		arrows[id] = arrow{src, dst}
		outs[key{src.Slot, src.Index}] = append(outs[key{src.Slot, src.Index}], id)
		ins[key{dst.Slot, dst.Index}] = append(ins[key{dst.Slot, dst.Index}], id)
	}
	cfg := defaultConfig()
	// 1 ns a cycle: the far-apart cycles drawCapture sometimes writes
	// still fit in int64 nanoseconds, and distinct cycles stay distinct.
	cfg.FrequencyMHz = 1000
	flows := []flowLookup{func(r *Record) (out, in []uint64) {
		k := key{d.Slot(r), r.Index}
		return outs[k], ins[k]
	}}
	m, err := checkPerfettoTraceWith(WriteOptions{}, flows, Input{Decoded: d, Config: cfg})
	if err != nil {
		if strings.Contains(err.Error(), "2^63-1 ns") {
			t.Skip("timestamps past 2^63-1 ns")
		}
		t.Fatal(err)
	}
	if len(m.flowStarts) != len(arrows) || len(m.flowEnds) != len(arrows) {
		t.Fatalf("%d flow starts, %d ends for %d arrows", len(m.flowStarts), len(m.flowEnds), len(arrows))
	}
	same := func(s *pfModelSlice, r liveRecord) bool {
		return s.core().desc.GetName() == r.Slot.String() && s.args["start_cycle"] == strconv.FormatUint(r.StartCycle, 10) &&
			s.args["end_cycle"] == strconv.FormatUint(r.EndCycle, 10) && s.args["task_id"] == strconv.FormatUint(uint64(r.TaskID), 10) &&
			s.args["stage_task_index"] == strconv.FormatUint(uint64(r.StageTaskIndex), 10)
	}
	for id, a := range arrows {
		if !same(m.flowStarts[id], a.src) || !same(m.flowEnds[id], a.dst) {
			t.Fatalf("flow %d joins %q and %q, want %s record %d and %s record %d", id,
				m.flowStarts[id].name, m.flowEnds[id].name, a.src.Slot, a.src.Index, a.dst.Slot, a.dst.Index)
		}
	}
}

func TestPerfettoFlows(t *testing.T) { rapid.Check(t, propPerfettoFlows) }

// A hand-made fan-in and fan-out across three cores, checked end to end.
func TestPerfettoFanInFanOut(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	const aic, aiv = abi.CoreTypeAIC, abi.CoreTypeAIV
	b.Enter(aic, 0, 100).Enter(aiv, 0, 100).Enter(aiv, 1, 100)
	b.Span(aic, 0, 100, 200, trigger, 1) // producer P1
	b.Span(aiv, 0, 150, 300, wait, 2)    // wait W1: from P1 and P2 (fan-in)
	b.Span(aiv, 1, 120, 180, trigger, 3) // producer P2: to W1 and W2 (fan-out)
	b.Span(aiv, 1, 180, 250, wait, 4)    // wait W2
	b.Span(aic, 0, 200, 300, taskType(abi.TaskTypeMatMul), 5)
	d, err := mustDecode("fan.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	flows := []flowLookup{func(r *Record) (out, in []uint64) {
		switch r.TaskID {
		case 1:
			return []uint64{10}, nil
		case 3:
			return []uint64{11, math.MaxUint64}, nil
		case 2:
			return nil, []uint64{10, 11}
		case 4:
			return nil, []uint64{math.MaxUint64}
		}
		return nil, nil
	}}
	m, err := checkPerfettoTraceWith(WriteOptions{}, flows, Input{Decoded: d, Config: defaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][2]string{10: {"1", "2"}, 11: {"3", "2"}, math.MaxUint64: {"3", "4"}}
	for id, w := range want {
		if s, e := m.flowStarts[id], m.flowEnds[id]; s == nil || e == nil || s.args["task_id"] != w[0] || e.args["task_id"] != w[1] {
			t.Fatalf("flow %d: %v -> %v, want task %s -> task %s", id, s, e, w[0], w[1])
		}
	}
}

// Records of one core that overlap without nesting go on overlap tracks;
// nested ones stay on the core's track.
func TestPerfettoOverlaps(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	const aic = abi.CoreTypeAIC
	b.Enter(aic, 0, 0).Enter(abi.CoreTypeAIV, 0, 0)
	b.Span(aic, 0, 100, 200, taskType(abi.TaskTypeMatMul), 1) // core track
	b.Span(aic, 0, 100, 150, wait, 2)                         // nests in it, same start
	b.Span(aic, 0, 150, 250, trigger, 3)                      // overlaps the first: overlap 1
	b.Span(aic, 0, 160, 300, wait, 4)                         // overlaps both: overlap 2
	b.Span(aic, 0, 200, 200, trigger, 5)                      // zero length where the first ends: core track
	b.Span(aic, 0, 250, 260, wait, 6)                         // after overlap 1's slice ends: core track
	d, err := mustDecode("overlap.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkPerfettoTrace(Input{Decoded: d, Config: defaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	var tracks []string
	for _, s := range m.slices {
		tracks = append(tracks, s.track.desc.GetName())
	}
	want := []string{"AIC/0", "AIC/0", "AIC/0 overlap 1", "AIC/0 overlap 2", "AIC/0", "AIC/0"}
	if !reflect.DeepEqual(tracks, want) {
		t.Fatalf("tracks %v, want %v", tracks, want)
	}
}

// A record before its core's entry shifts every timestamp so that none is
// negative; the offset is in the metadata (checked by compareWithJSON).
func TestPerfettoBeforeEntry(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).Enter(abi.CoreTypeAIV, 0, 1000)
	b.Span(abi.CoreTypeAIC, 0, 990, 1010, wait, 1)
	b.Span(abi.CoreTypeAIV, 0, 1000, 1005, trigger, 1)
	d, err := mustDecode("early.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkPerfettoTrace(Input{Decoded: d, Config: defaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if m.slices[0].start != 0 || m.slices[1].start != 200 {
		t.Fatalf("starts %d, %d ns; want 0 and 200 (10 cycles at 50 MHz after the shift)", m.slices[0].start, m.slices[1].start)
	}
}

// Ranks that Perfetto cannot hold as a pid, and timestamps past int64
// nanoseconds, are errors, not a broken trace.
func TestPerfettoRefuses(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Enter(abi.CoreTypeAIV, 0, 1)
	b.Span(abi.CoreTypeAIC, 0, 1, math.MaxUint64, wait, 1)
	d, err := mustDecode("far.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := perfettoOf(Input{Decoded: d, Config: defaultConfig()}); err == nil || !strings.Contains(err.Error(), "far.bin: AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than 2^63-1 ns") {
		t.Fatalf("timestamp past int64: %v", err)
	}
	cfg := defaultConfig()
	cfg.Rank = math.MaxInt32 + 1
	if _, err := perfettoOf(Input{Decoded: d, Config: cfg}); err == nil || !strings.Contains(err.Error(), "rank 2147483648") {
		t.Fatalf("rank past int32: %v", err)
	}
}

// The timestamps are exact: round(cycles × 1000 / MHz) rounded once,
// against math/big.
func TestNsClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mhz := rapid.SampledFrom([]float64{50, 1000, 3, 1.1, 1800, 0.0000003, 24.576}).Draw(t, "mhz")
		cycles := rapid.Uint64().Draw(t, "cycles")
		if rapid.Bool().Draw(t, "small") {
			cycles >>= rapid.IntRange(0, 63).Draw(t, "shift")
		}
		c := newNsClock(mhz)
		got, ok := c.ns(cycles)
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(mhz, 'f', -1, 64))
		x := new(big.Rat).Quo(new(big.Rat).SetInt(new(big.Int).Mul(new(big.Int).SetUint64(cycles), big.NewInt(1000))), r)
		x.Add(x, big.NewRat(1, 2))
		want := new(big.Int).Quo(x.Num(), x.Denom())
		fits := want.IsUint64() && want.Uint64() <= math.MaxInt64
		if ok != fits || ok && got != want.Uint64() {
			t.Fatalf("%d cycles at %v MHz: %d %v, want %s", cycles, mhz, got, ok, want)
		}
	})
}

// The CLI's flags decide the format through WritePerfetto; here the
// writer: a trace written twice is the same bytes.
func TestPerfettoDeterministic(t *testing.T) {
	buf, err := os.ReadFile("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	d, err := mustDecode("moe.bin", buf, capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := perfettoOf(Input{Decoded: d, Config: defaultConfig()})
	b, _ := perfettoOf(Input{Decoded: d, Config: defaultConfig()})
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Fatal("two writes differ")
	}
}

// Long names (multi-byte lengths, packets past 127 bytes) and names that
// are not valid UTF-8 (U+FFFD per bad byte, as in the JSON) come out as
// the JSON has them.
func TestPerfettoLongAndInvalidNames(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 100).Enter(abi.CoreTypeAIV, 0, 100)
	b.Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 100, EndCycle: 200, DescID: wait, TaskID: 1, OwnerID: 7})
	b.Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 200, EndCycle: 300, DescID: abi.GraphStageBase + 1, TaskID: 2, OwnerID: noOwner})
	b.Span(abi.CoreTypeAIV, 0, 150, 250, trigger, 2)
	d, err := mustDecode("names.bin", b.Bytes(), capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	for _, detailed := range []bool{false, true} {
		cfg := defaultConfig()
		cfg.DetailedNames = detailed
		cfg.KernelName = "Mo\xffE"
		cfg.OwnerLabel = "Ex\xc3pert"
		cfg.Names = &Names{
			Stages: map[uint32]string{abi.GraphStageBase + 1: strings.Repeat("Down", 60)},
			Tasks:  TaskNamesOf(map[uint32]string{1: "Gate\xfe\xff", 2: strings.Repeat("Combine", 40)}),
		}
		if _, err := checkPerfettoTrace(Input{Decoded: d, Config: cfg}); err != nil {
			t.Fatalf("detailed %v: %v", detailed, err)
		}
	}
}

// Invocations: several captures of a rank share its tracks, each laid out
// as the JSON lays it out (gap, or absolute time), each slice with its
// invocation's args; the JSON's slices, record by record.
func TestPerfettoInvocations(t *testing.T) {
	open := func(path string) *Decoded {
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		d, err := Decode(c, capture.Request{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	step := int64(3)
	in := func(path string, rank uint32, inv Invocation) Input {
		cfg := defaultConfig()
		cfg.Rank, cfg.DeviceID = rank, rank
		cfg.Invocation = &inv
		return Input{Decoded: open(path), Config: cfg}
	}
	inputs := []Input{
		in("../examples/moe_layer.bin", 0, Invocation{ID: 2, Step: &step, Direction: "backward"}),
		in("../examples/aiv_pipeline.npy", 1, Invocation{ID: -1}),
		in("../examples/moe_layer.bin", 0, Invocation{ID: 1, Step: &step, Direction: "forward"}),
	}
	gap := 2.5
	for _, o := range []WriteOptions{{}, {InvocationGapUs: &gap}, {AbsoluteTime: true}} {
		m, err := checkPerfettoTraceWith(o, nil, inputs...)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		seqs, from := map[uint32]bool{}, map[int]bool{}
		for _, s := range m.slices {
			seqs[s.seq] = true
			from[s.input] = true
		}
		cores := 0
		for _, in := range inputs {
			cores += len(in.Decoded.Summary.Active)
		}
		if len(seqs) != cores || len(from) != 3 {
			t.Fatalf("slices on %d sequences from %d inputs, want one per core of each of the 3 invocations (%d)", len(seqs), len(from), cores)
		}
	}
}

// propPerfettoDeps: the dependency arrows of random captures of random
// schedules (as analyze draws them for the JSON) are flows of the
// Perfetto trace: each arrow whose producer's slice starts before its
// wait's slice ends, as the trace shows them, is one flow from the one to
// the other with the JSON's id; the others are counted as unbound; the
// stats say so.
func propPerfettoDeps(t *rapid.T) {
	d, deps, cfg, ok := randomFlowCapture(t)
	if !ok {
		return
	}
	stats := make([]FlowStats, 1)
	m, err := checkPerfettoTraceWith(WriteOptions{FlowStats: stats}, nil, Input{Decoded: d, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	// The slices of a record, by its core and cycles.
	type key struct {
		core       string
		start, end string
	}
	byRecord := map[key][]*pfModelSlice{}
	for _, sl := range m.slices {
		k := key{sl.core().desc.GetName(), sl.args["start_cycle"], sl.args["end_cycle"]}
		byRecord[k] = append(byRecord[k], sl)
	}
	slicesOf := func(r RecordRef) []*pfModelSlice {
		return byRecord[key{d.Summary.Active[r.Active].Slot.String(), strconv.FormatUint(r.StartCycle, 10), strconv.FormatUint(r.EndCycle, 10)}]
	}
	drawn, unbound := 0, 0
	want, err := d.Flows(deps, cfg.FlowMode, cfg.MaxFlows, func(f Flow) bool {
		from, to := slicesOf(f.From), slicesOf(f.To)
		if len(from) == 0 || len(to) == 0 {
			t.Fatalf("arrow %d: no slice for its records", f.ID)
		}
		id := f.ID // input 0: ids as in the JSON, 0<<32 + n
		if from[0].start >= to[0].end {
			unbound++
			if m.flowStarts[id] != nil {
				t.Fatalf("arrow %d: producer starts at %d, not before its wait ends at %d, yet drawn", id, from[0].start, to[0].end)
			}
			return true
		}
		drawn++
		if !slices.Contains(from, m.flowStarts[id]) || !slices.Contains(to, m.flowEnds[id]) {
			t.Fatalf("arrow %d: flow joins %v and %v", id, m.flowStarts[id], m.flowEnds[id])
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	got := stats[0]
	if len(m.flowStarts) != drawn || got.Arrows != uint64(drawn) || got.Unbound != uint64(unbound) ||
		got.Waits != want.Waits || got.WaitsWithoutProducer != want.WaitsWithoutProducer || got.Capped != want.Capped {
		t.Fatalf("%d flows, stats %+v; want %d drawn, %d unbound, of %+v", len(m.flowStarts), got, drawn, unbound, want)
	}
}

func TestPerfettoDeps(t *testing.T) { rapid.Check(t, propPerfettoDeps) }

// The shipped MoE example with the schedule it ran: every arrow the JSON
// draws, in both modes, is a flow of the Perfetto trace between the same
// two records (fan-in and fan-out among them, with --flows all).
func TestPerfettoExampleArrows(t *testing.T) {
	s, err := plan.ParseFile("../examples/moe_layer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := capture.Open("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := Decode(c, capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	deps, err := NewDependencies(d, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []FlowMode{FlowsReleasing, FlowsAll} {
		cfg := defaultConfig()
		cfg.Deps, cfg.FlowMode = deps, mode
		stats := make([]FlowStats, 1)
		m, err := checkPerfettoTraceWith(WriteOptions{FlowStats: stats}, nil, Input{Decoded: d, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		fanIn, fanOut := map[*pfModelSlice]int{}, map[*pfModelSlice]int{}
		n := uint64(0)
		if _, err := d.Flows(deps, mode, 0, func(f Flow) bool {
			from, to := m.flowStarts[f.ID], m.flowEnds[f.ID]
			if from == nil || to == nil || from.args["start_cycle"] != strconv.FormatUint(f.From.StartCycle, 10) ||
				to.args["end_cycle"] != strconv.FormatUint(f.To.EndCycle, 10) {
				t.Fatalf("%v arrow %d: flow %v -> %v", mode, f.ID, from, to)
			}
			fanOut[from]++
			fanIn[to]++
			n++
			return true
		}); err != nil {
			t.Fatal(err)
		}
		maxIn, maxOut := 0, 0
		for _, k := range fanIn {
			maxIn = max(maxIn, k)
		}
		for _, k := range fanOut {
			maxOut = max(maxOut, k)
		}
		t.Logf("%v: %d arrows, fan-in up to %d, fan-out up to %d", mode, n, maxIn, maxOut)
		if n == 0 || stats[0].Arrows != n || stats[0].Unbound != 0 || mode == FlowsAll && (maxIn < 2 || maxOut < 2) {
			t.Fatalf("%v: %d arrows, stats %+v, fan-in %d, fan-out %d", mode, n, stats[0], maxIn, maxOut)
		}
	}
}

// The size goal, held on the benchmark capture docs/performance.md quotes
// (32 MB, 500,000 records, its names file): the Perfetto trace is at most
// a quarter of the JSON's size. The margin is thin (24.97%): a byte more
// per record misses it. Its encoding is the one docs/perfetto.md describes:
// slices on a core's own track name no track (the sequence's default),
// and their timestamps are small deltas on the core's sequence clock.
func TestPerfettoSizeGoal(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes the 32 MB benchmark capture's traces: not with -short, nor with -race (two minutes; make test runs it without)")
	}
	spec := benchSpecs["32MB"]
	d := decoded32MB(t)
	stages, tasks := spec.Names()
	cfg := defaultConfig()
	cfg.Names = &Names{Stages: stages, Tasks: TaskNamesOf(tasks)}
	in := []Input{{Decoded: d, Config: cfg}}
	js := &countingWriter{w: io.Discard}
	if err := WriteTrace(js, in, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var pf bytes.Buffer
	if err := WritePerfetto(&pf, in, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ratio := float64(pf.Len()) / float64(js.n)
	t.Logf("%d bytes against %d of JSON: %.2f%%, %.1f bytes a record", pf.Len(), js.n, 100*ratio, float64(pf.Len())/float64(spec.Records))
	if ratio > 0.25 {
		t.Errorf("the Perfetto trace is %.2f%% of the JSON's size, over the goal of 25%%", 100*ratio)
	}
	var tr pb.Trace
	if err := proto.Unmarshal(pf.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	events, withTrack, deltaBytes := 0, 0, 0
	for _, p := range tr.GetPacket() {
		ev := p.GetTrackEvent()
		if ev == nil || ev.GetType() == pb.TrackEvent_TYPE_INSTANT {
			continue
		}
		events++
		if ev.TrackUuid != nil {
			withTrack++
		}
		deltaBytes += protowire.SizeVarint(p.GetTimestamp())
	}
	if events != 2*spec.Records || withTrack != 0 {
		t.Errorf("%d BEGINs and ENDs for %d records, %d naming their track (want none: no overlaps here)", events, spec.Records, withTrack)
	}
	if avg := float64(deltaBytes) / float64(events); avg > 3 {
		t.Errorf("timestamps take %.2f bytes on average: not deltas?", avg)
	}
}

// regionTrack reports whether name is a region track's: a core type of
// one of the schema's regions.
func regionTrack(name string) bool {
	for _, r := range abi.Regions() {
		if r.CoreType.String() == name {
			return true
		}
	}
	return false
}
