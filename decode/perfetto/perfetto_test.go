package perfetto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// perfettoOf writes the Perfetto trace of inputs to memory.
func perfettoOf(inputs ...render.Input) ([]byte, error) {
	var out bytes.Buffer
	err := Write(&out, inputs, render.WriteOptions{})
	return out.Bytes(), err
}

// checkPerfettoTrace writes both traces of inputs, checks the Perfetto one
// (parsePerfettoTrace, then the track tree) and that it holds the JSON's
// slices: name, category, rank, core, start and duration in nanoseconds,
// and args, record by record; and the JSON's metadata.
func checkPerfettoTrace(inputs ...render.Input) (*pfModel, error) {
	return checkPerfettoTraceWith(render.WriteOptions{}, nil, inputs...)
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
func checkPerfettoTraceWith(o render.WriteOptions, flows []flowLookup, inputs ...render.Input) (*pfModel, error) {
	var jsb, pfb bytes.Buffer
	if err := chromejson.Write(&jsb, inputs, o); err != nil {
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
	// Flow events carry fields decodetest.ParseTrace refuses (id, bp); the slices
	// are the X events either way.
	var f decodetest.Trace
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
// numbered as Write documents: input i's own sequence is i + 1,
// then come the inputs' cores with records, input by input, in
// Summary.Active order. A core's slices must be on its track (or an
// overlap track under it) and on no other input's sequence.
func assignInputs(m *pfModel, inputs []render.Input) error {
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
func checkExactTimes(m *pfModel, inputs []render.Input, o render.WriteOptions) error {
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
	at := func(arg string, in *render.Input) *big.Int {
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
func compareFlowsWithJSON(m *pfModel, js []byte, f *decodetest.Trace) error {
	var fe struct {
		TraceEvents []jsonFlowEvent `json:"traceEvents"`
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&fe); err != nil {
		return err
	}
	xs := decodetest.XEvents(f)
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
func checkTrackTree(m *pfModel, inputs []render.Input) error {
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

func compareWithJSON(m *pfModel, f *decodetest.Trace, inputs []render.Input) error {
	threads, procNames := map[string]string{}, map[string]string{}
	for _, e := range f.TraceEvents {
		switch e.Name {
		case "thread_name":
			threads[e.Pid.String()+"/"+e.Tid.String()] = e.Args["name"].(string)
		case "process_name":
			procNames[e.Pid.String()] = e.Args["name"].(string)
		}
	}
	xs := decodetest.XEvents(f)
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
		if _, whole := render.WholeHz(in.Config.FrequencyMHz); !whole {
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
func compareMetaInstant(in *pfModelSlice, f *decodetest.Trace, i int) error {
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

// tsNegative and tsShifted are the two wordings of decode's warning of
// records before the anchor (decode.Warnings.Lines), as the JSON and the
// Perfetto writer give it.
var tsNegative, tsShifted = anchorWarning(false), anchorWarning(true)

func anchorWarning(shifted bool) string {
	const head, tail = "1 record starts before the trace's anchor cycle", "; run validate for offsets"
	line := decode.Warnings{NegativeTS: 1, Shifted: shifted}.Lines()[0]
	if !strings.HasPrefix(line, head) || !strings.HasSuffix(line, tail) {
		panic("decode.Warnings words the anchor warning as " + line)
	}
	return strings.TrimSuffix(strings.TrimPrefix(line, head), tail)
}
