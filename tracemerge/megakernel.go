package tracemerge

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/tracemeta"
)

// SchemaVersions lists the megaKernelCycleTrace schema versions this build
// reads.
var SchemaVersions = []int{tracemeta.SchemaVersion}

// mkMeta is the megaKernelCycleTrace object, of which merge reads the
// schema version, ranks, device ids, kernel names and invocations.
type mkMeta = tracemeta.Object

// invocation is one kernel launch of the selected rank as the MegaKernel
// trace shows it.
type invocation struct {
	id         int64
	step       json.RawMessage // null when unknown
	direction  *string         // nil: not said
	kernelName string
	first, end decimal // earliest ts, latest ts+dur
	// firstF and endF are first and end as upstream computes them, in
	// float64 (float(ts), float(ts) + float(dur)); spanF = endF - firstF
	// is what its duration fallback compares kernels with.
	firstF, endF, spanF float64
	events              int
	cores               map[int64]bool // tids with events
	// noID says its events carry no invocation_id (upstream's merger
	// then calls it invocation None).
	noID bool
	// placedEndF is, in upstream mode, the latest placed ts + dur in
	// float64, as upstream's alignment report computes it.
	placedEndF float64

	outer *kernel // the outer kernel it is placed under
	delta decimal // outer.ts - first
}

// span returns end - first.
func (inv *invocation) span() decimal {
	var d decimal
	d.sub(&inv.end, &inv.first)
	return d
}

// eventKey is what tells an X event's rank and invocation: its pid, its
// args.rank (hasRank: it states one) and its args.invocation_id (0 when
// absent). The events of one key are of one rank (eventRank).
type eventKey struct {
	pid, rank int64
	hasRank   bool
	id        int64
}

// scanned is what the first pass over the MegaKernel trace gathers: the
// events' spans by key, and per pid the flow events and thread names.
type scanned struct {
	byKey     map[eventKey]*invocation
	flows     map[int64]int              // per pid: flow events (dependency arrows' ends)
	coreNames map[int64]map[int64]string // per pid: thread_name metadata
}

// megaKernel is the MegaKernel trace, read once to learn its invocations
// (their spans) and cores; its events are read again when they are written.
type megaKernel struct {
	path string
	// pid is the events' pid the rank's events carry; rank the rank the
	// trace states for them (eventRank): their args.rank, else
	// megaKernelCycleTrace's, as upstream's merger takes it, the pid
	// when it states none. keys are the event keys of the rank merged.
	pid      int64
	keys     map[eventKey]bool
	rank     int64
	deviceID int64
	// deviceStated says the trace states deviceID (else it is the rank).
	deviceStated bool
	kernelName   string
	inv          []*invocation // in time order
	cores        []int64       // tids in the MegaKernel trace, sorted
	coreNames    map[int64]string
	events       int
	flows        int
	// meta is the MegaKernel trace's megaKernelCycleTrace object as
	// written, when it describes one capture (no ranks, no invocations):
	// the merged trace carries it, so that the MegaKernel part of the
	// merged trace reads back as the trace that was merged (jsontrace).
	meta []byte
}

// readMegaKernel reads the MegaKernel trace at path and selects the rank
// to merge (rank < 0: the only one).
func readMegaKernel(path string, rank int64) (*megaKernel, error) {
	r, err := openReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Peek() != '{' {
		return nil, r.Errorf("a MegaKernel trace is a JSON object (what cycleabi decode writes), found %s", r.Found())
	}
	sc := &scanned{byKey: map[eventKey]*invocation{}, flows: map[int64]int{}, coreNames: map[int64]map[int64]string{}}
	var meta *mkMeta
	var ms []member
	var raw []byte
	sawEvents, merged := false, false
	err = r.Object("a MegaKernel trace", func(key []byte, at jsonread.Pos) error {
		switch string(key) {
		case "traceEvents":
			if sawEvents {
				return r.ErrorAt(at, "a second traceEvents key (a trace holds one array of events)")
			}
			sawEvents = true
			return r.Array(false, "a trace event", func(raw []byte, at jsonread.Pos) error {
				var ok bool
				ms, ok = members(raw, ms)
				if !ok {
					return r.ErrorAt(at, "a trace event is not an object")
				}
				return mkScanEvent(r, at, ms, sc)
			})
		case "megaKernelCycleTrace":
			var s jsonread.Sink
			if err := r.Value(&s); err != nil {
				return err
			}
			if string(s.B) == "null" {
				meta = nil // as Python reads it: no metadata
				return nil
			}
			m, err := tracemeta.Unmarshal(s.B)
			if err != nil {
				return r.ErrorAt(at, "megaKernelCycleTrace: %v", err)
			}
			meta, raw = m, slices.Clone(s.B)
			return nil
		case "megaKernelTraceMerge":
			merged = true
		}
		return r.Skip()
	})
	if err != nil {
		return nil, err
	}
	if !r.AtEnd() {
		return nil, r.Errorf("data after the trace object")
	}
	if err := r.IOErr(); err != nil {
		return nil, err
	}
	if merged { // a merged trace carries the megaKernelCycleTrace of what was merged too
		return nil, &InputError{File: path, Msg: "a merged trace (it has megaKernelTraceMerge, which cycleabi merge writes), not a MegaKernel trace: give the trace cycleabi decode (or upstream's export) wrote, which has megaKernelCycleTrace"}
	}
	if meta == nil {
		return nil, &InputError{File: path, Msg: "no megaKernelCycleTrace object: not a trace cycleabi decode wrote"}
	}
	if err := checkSchema(path, meta); err != nil {
		return nil, err
	}
	mk, err := selectRank(path, meta, sc, rank)
	if err == nil && meta.Ranks == nil && meta.Invocations == nil {
		mk.meta = raw
	}
	return mk, err
}

func checkSchema(path string, m *mkMeta) error {
	if m.SchemaVersion == nil {
		return &InputError{File: path, Msg: "megaKernelCycleTrace has no schemaVersion"}
	}
	if !slices.Contains(SchemaVersions, *m.SchemaVersion) {
		return &InputError{File: path, Msg: fmt.Sprintf("megaKernelCycleTrace.schemaVersion %d is not one this build reads (%v)", *m.SchemaVersion, SchemaVersions)}
	}
	for i := range m.Ranks {
		if v := m.Ranks[i].SchemaVersion; v != nil && !slices.Contains(SchemaVersions, *v) {
			return &InputError{File: path, Msg: fmt.Sprintf("megaKernelCycleTrace.ranks[%d].schemaVersion %d is not one this build reads (%v)", i, *v, SchemaVersions)}
		}
	}
	return nil
}

// mkScanEvent takes one MegaKernel trace event into the tallies.
func mkScanEvent(r *jsonread.Reader, at jsonread.Pos, ms []member, sc *scanned) error {
	ph, _ := jsonread.String(get(ms, "ph"))
	flow := ph == "s" || ph == "t" || ph == "f"
	if ph != "X" && ph != "M" && !flow {
		return nil
	}
	pid, okPid := intValue(get(ms, "pid"))
	tid, okTid := intValue(get(ms, "tid"))
	if !okPid || !okTid {
		return r.ErrorAt(at, "a MegaKernel trace event needs integer pid and tid")
	}
	var args []member
	if a := get(ms, "args"); len(a) > 0 && a[0] == '{' {
		args, _ = members(a, nil)
	}
	if ph == "M" {
		if name, _ := jsonread.String(get(ms, "name")); name == "thread_name" {
			if n, ok := jsonread.String(get(args, "name")); ok {
				if sc.coreNames[pid] == nil {
					sc.coreNames[pid] = map[int64]string{}
				}
				sc.coreNames[pid][tid] = n
			}
		}
		return nil
	}
	var ts, dur decimal
	if err := mkTime(r, at, get(ms, "ts"), "ts", &ts); err != nil {
		return err
	}
	if flow {
		// Placed with the invocation whose span holds it on its core
		// (decode's arrows bind inside slices), when written.
		sc.flows[pid]++
		return nil
	}
	if err := mkTime(r, at, get(ms, "dur"), "dur", &dur); err != nil {
		return err
	}
	key, msg := keyOf(pid, args)
	if msg != "" {
		return r.ErrorAt(at, "%s", msg)
	}
	inv := sc.byKey[key]
	var end decimal
	end.add(&ts, &dur)
	_, tsF, _ := pyFloat(get(ms, "ts"))
	_, durF, _ := pyFloat(get(ms, "dur"))
	endF := tsF + durF
	if inv == nil {
		inv = &invocation{id: key.id, cores: map[int64]bool{}, firstF: tsF, endF: endF, noID: get(args, "invocation_id") == nil, placedEndF: math.Inf(-1)}
		inv.first.set(&ts)
		inv.end.set(&end)
		sc.byKey[key] = inv
	}
	inv.firstF, inv.endF = min(inv.firstF, tsF), max(inv.endF, endF)
	if ts.cmp(&inv.first) < 0 {
		inv.first.set(&ts)
	}
	if end.cmp(&inv.end) > 0 {
		inv.end.set(&end)
	}
	inv.events++
	inv.cores[tid] = true
	return nil
}

// keyOf returns the key of an X event of pid with args, or why it has
// none (an args.rank or args.invocation_id that is not an integer).
func keyOf(pid int64, args []member) (eventKey, string) {
	k := eventKey{pid: pid}
	if v := get(args, "invocation_id"); v != nil {
		var ok bool
		if k.id, ok = intValue(v); !ok {
			return k, fmt.Sprintf("args.invocation_id %s is not an integer", v)
		}
	}
	if v := get(args, "rank"); v != nil {
		var ok bool
		if k.rank, ok = intValue(v); !ok {
			return k, fmt.Sprintf("args.rank %s is not an integer", v)
		}
		k.hasRank = true
	}
	return k, ""
}

func mkTime(r *jsonread.Reader, at jsonread.Pos, v []byte, field string, d *decimal) error {
	if v == nil {
		return r.ErrorAt(at, "an X event without %s", field)
	}
	switch parseTime(v, d) {
	case timeNonFinite:
		return r.ErrorAt(at, "%s %s is not finite", field, v)
	case timeNotNumber:
		return r.ErrorAt(at, "%s %s is not a decimal number", field, v)
	}
	return nil
}

// intValue reads an integer JSON number.
func intValue(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// eventRank returns the rank of the events of key k: their args.rank
// (upstream's export and decode write it on every event); else under
// "ranks" (cycleabi decode of several captures, pid = rank) the pid; in a
// window the rank of the invocation with their invocation id (when
// several invocations share the id, the pid, if the id's events are at
// several pids (pidPerRank) and one of those invocations is of that
// rank); else the object's rank; else the pid. It reports a problem when
// a window's invocations of that id are of several ranks and the events
// say which of them in neither args.rank nor pid.
func eventRank(meta *mkMeta, k eventKey, pidPerRank bool) (int64, string) {
	if k.hasRank {
		return k.rank, ""
	}
	if len(meta.Ranks) > 0 {
		return k.pid, ""
	}
	var ranks []int64
	for i := range meta.Invocations {
		if md := &meta.Invocations[i]; md.InvocationID == k.id && md.Rank != nil && !slices.Contains(ranks, int64(*md.Rank)) {
			ranks = append(ranks, int64(*md.Rank))
		}
	}
	switch {
	case len(ranks) == 1:
		return ranks[0], ""
	case pidPerRank && slices.Contains(ranks, k.pid):
		return k.pid, ""
	case len(ranks) > 1:
		slices.Sort(ranks)
		return 0, fmt.Sprintf("invocation %d is of ranks %s (megaKernelCycleTrace.invocations) and its events of pid %d state no args.rank: which rank's they are is not known", k.id, joinInts(ranks), k.pid)
	}
	if meta.Rank != nil {
		return int64(*meta.Rank), ""
	}
	return k.pid, ""
}

// selectRank picks the rank to merge and gathers its invocations. Ranks
// are the ones the trace states (eventRank), not the events' pids: a
// window of ranks 0 and 1 whose events are all at pid 0 (upstream's
// export) holds two ranks, and invocations of one id in two ranks are two
// invocations.
func selectRank(path string, meta *mkMeta, sc *scanned, want int64) (*megaKernel, error) {
	rankOfKey := map[eventKey]int64{}
	pidOf := map[int64]int64{}
	var withEvents []int64
	keys := slices.SortedFunc(maps.Keys(sc.byKey), compareKeys)
	pidsOfID := map[int64]map[int64]bool{}
	for _, k := range keys {
		if pidsOfID[k.id] == nil {
			pidsOfID[k.id] = map[int64]bool{}
		}
		pidsOfID[k.id][k.pid] = true
	}
	for _, k := range keys {
		r, msg := eventRank(meta, k, len(pidsOfID[k.id]) > 1)
		if msg != "" {
			return nil, &InputError{File: path, Msg: msg}
		}
		rankOfKey[k] = r
		if other, seen := pidOf[r]; !seen {
			pidOf[r] = k.pid
			withEvents = append(withEvents, r)
		} else if other != k.pid {
			return nil, &InputError{File: path, Msg: fmt.Sprintf("events of pids %d and %d are both of rank %d (megaKernelCycleTrace)", min(k.pid, other), max(k.pid, other), r)}
		}
	}
	slices.Sort(withEvents)
	if len(withEvents) == 0 {
		return nil, &InputError{File: path, Msg: "the MegaKernel trace has no X events to merge"}
	}
	rank := want
	if want < 0 {
		if len(withEvents) > 1 {
			return nil, &InputError{File: path, Msg: fmt.Sprintf("the MegaKernel trace holds ranks %s: merge one at a time with --rank R (each into its own device's framework trace)", joinInts(withEvents))}
		}
		rank = withEvents[0]
	} else if !slices.Contains(withEvents, want) {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("--rank %d: the MegaKernel trace has events of ranks %s only", want, joinInts(withEvents))}
	}
	pid := pidOf[rank]
	mk := &megaKernel{path: path, pid: pid, rank: rank, deviceID: rank, kernelName: "MegaKernel", coreNames: sc.coreNames[pid], keys: map[eventKey]bool{}}
	byInv, cores := mk.gather(sc, keys, rankOfKey)
	// The rank's object: the top-level one, or its entry under "ranks".
	rm := meta
	for i := range meta.Ranks {
		if r := meta.Ranks[i].Rank; r != nil && int64(*r) == rank {
			rm = &meta.Ranks[i]
			break
		}
	}
	if rm.DeviceID != nil {
		mk.deviceID, mk.deviceStated = int64(*rm.DeviceID), true
	}
	// Upstream's kernelName: the invocation's, the trace's, or
	// "MegaKernel", an empty name counting as none.
	if rm.KernelName != nil && *rm.KernelName != "" {
		mk.kernelName = *rm.KernelName
	} else if meta.KernelName != nil && *meta.KernelName != "" {
		mk.kernelName = *meta.KernelName
	}
	byID := map[int64]*tracemeta.Invocation{}
	for i := range meta.Invocations {
		// An entry without a rank or device id counts as 0's.
		if md := &meta.Invocations[i]; md.Rank == nil && rank == 0 || md.Rank != nil && int64(*md.Rank) == rank {
			byID[md.InvocationID] = md
			mk.deviceID, mk.deviceStated = 0, md.DeviceID != nil
			if md.DeviceID != nil {
				mk.deviceID = int64(*md.DeviceID)
			}
		}
	}
	for _, inv := range byInv {
		inv.kernelName = mk.kernelName
		inv.step = json.RawMessage("null")
		if md := byID[inv.id]; md != nil {
			if md.Step != nil {
				inv.step = strconv.AppendInt(nil, *md.Step, 10)
			}
			inv.direction = md.Direction
			if md.KernelName != nil && *md.KernelName != "" {
				inv.kernelName = *md.KernelName
			}
		}
		inv.spanF = inv.endF - inv.firstF
		mk.inv = append(mk.inv, inv)
		mk.events += inv.events
	}
	mk.flows = sc.flows[pid]
	slices.SortFunc(mk.inv, func(a, b *invocation) int {
		if c := a.first.cmp(&b.first); c != 0 {
			return c
		}
		return compareInt(a.id, b.id)
	})
	for tid := range cores {
		mk.cores = append(mk.cores, tid)
	}
	slices.Sort(mk.cores)
	return mk, nil
}

// gather is the rank's invocations (its keys' tallies, one per invocation
// id: the events of one id at several keys are one invocation) and the
// tids of its cores; it marks the rank's keys in mk.keys.
func (mk *megaKernel) gather(sc *scanned, keys []eventKey, rankOfKey map[eventKey]int64) (map[int64]*invocation, map[int64]bool) {
	byInv := map[int64]*invocation{}
	cores := map[int64]bool{}
	for _, k := range keys {
		if rankOfKey[k] != mk.rank {
			continue
		}
		mk.keys[k] = true
		t := sc.byKey[k]
		for tid := range t.cores {
			cores[tid] = true
		}
		inv := byInv[k.id]
		if inv == nil {
			byInv[k.id] = t
			continue
		}
		inv.firstF, inv.endF = min(inv.firstF, t.firstF), max(inv.endF, t.endF)
		if t.first.cmp(&inv.first) < 0 {
			inv.first.set(&t.first)
		}
		if t.end.cmp(&inv.end) > 0 {
			inv.end.set(&t.end)
		}
		inv.events += t.events
		for tid := range t.cores {
			inv.cores[tid] = true
		}
	}
	return byInv, cores
}

func compareKeys(a, b eventKey) int {
	if c := compareInt(a.pid, b.pid); c != 0 {
		return c
	}
	if a.hasRank != b.hasRank {
		if a.hasRank {
			return 1
		}
		return -1
	}
	if c := compareInt(a.rank, b.rank); c != 0 {
		return c
	}
	return compareInt(a.id, b.id)
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}

// coreName is the display name of a MegaKernel core thread ("AIC/3").
func (mk *megaKernel) coreName(tid int64) string {
	if n, ok := mk.coreNames[tid]; ok {
		return n
	}
	// decode's tids are core_type*1000 + block_id.
	switch tid / 1000 {
	case 1:
		return "AIC/" + strconv.FormatInt(tid%1000, 10)
	case 2:
		return "AIV/" + strconv.FormatInt(tid%1000, 10)
	}
	return "core" + strconv.FormatInt(tid, 10)
}

// hasTopKey reports whether the JSON object in the file at path has key
// at its top level (false for anything else, or a file that does not
// read). It streams the file: an error path's question, not the merge's.
func hasTopKey(path, key string) bool {
	r, err := openReader(path)
	if err != nil {
		return false
	}
	defer r.Close()
	if r.Peek() != '{' {
		return false
	}
	found := false
	errFound := errors.New("found")
	r.Object("a trace", func(k []byte, at jsonread.Pos) error {
		if string(k) == key {
			found = true
			return errFound
		}
		return r.Skip()
	})
	return found
}
