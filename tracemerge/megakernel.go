package tracemerge

import (
	"encoding/json"
	"errors"
	"fmt"
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

// rankEvents is what the first pass over the MegaKernel trace gathers per
// pid (rank).
type rankEvents struct {
	invocations map[int64]*invocation
	flows       int              // flow events (dependency arrows' ends)
	cores       map[int64]bool   // tids with X events
	coreNames   map[int64]string // thread_name metadata
}

// megaKernel is the MegaKernel trace, read once to learn its invocations
// (their spans) and cores; its events are read again when they are written.
type megaKernel struct {
	path string
	// pid is the events' pid the rank's events carry; rank the rank the
	// trace states for them (megaKernelCycleTrace.rank, or the
	// invocations'), as upstream's merger takes it: the pid when it
	// states none.
	pid      int64
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
	ranks := map[int64]*rankEvents{}
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
				return mkScanEvent(r, at, ms, ranks)
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
	mk, err := selectRank(path, meta, ranks, rank)
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

// mkScanEvent takes one MegaKernel trace event into the per-rank tallies.
func mkScanEvent(r *jsonread.Reader, at jsonread.Pos, ms []member, ranks map[int64]*rankEvents) error {
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
	re := ranks[pid]
	if re == nil {
		re = &rankEvents{invocations: map[int64]*invocation{}, cores: map[int64]bool{}, coreNames: map[int64]string{}}
		ranks[pid] = re
	}
	var args []member
	if a := get(ms, "args"); len(a) > 0 && a[0] == '{' {
		args, _ = members(a, nil)
	}
	if ph == "M" {
		if name, _ := jsonread.String(get(ms, "name")); name == "thread_name" {
			if n, ok := jsonread.String(get(args, "name")); ok {
				re.coreNames[tid] = n
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
		re.flows++
		return nil
	}
	if err := mkTime(r, at, get(ms, "dur"), "dur", &dur); err != nil {
		return err
	}
	id := int64(0)
	if v := get(args, "invocation_id"); v != nil {
		var ok bool
		if id, ok = intValue(v); !ok {
			return r.ErrorAt(at, "args.invocation_id %s is not an integer", v)
		}
	}
	inv := re.invocations[id]
	var end decimal
	end.add(&ts, &dur)
	_, tsF, _ := pyFloat(get(ms, "ts"))
	_, durF, _ := pyFloat(get(ms, "dur"))
	endF := tsF + durF
	if inv == nil {
		inv = &invocation{id: id, cores: map[int64]bool{}, firstF: tsF, endF: endF, noID: get(args, "invocation_id") == nil, placedEndF: math.Inf(-1)}
		inv.first.set(&ts)
		inv.end.set(&end)
		re.invocations[id] = inv
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
	re.cores[tid] = true
	return nil
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

// rankOf returns the rank the trace states for the events of pid: under
// "ranks" (cycleabi decode of several captures, pid = rank) the pid;
// in a window the rank of the invocations of its events; else the
// object's rank. The pid when the trace states none.
func rankOf(meta *mkMeta, pid int64, re *rankEvents) int64 {
	if len(meta.Ranks) > 0 {
		return pid
	}
	for i := range meta.Invocations {
		if _, ok := re.invocations[meta.Invocations[i].InvocationID]; ok && meta.Invocations[i].Rank != nil {
			return int64(*meta.Invocations[i].Rank)
		}
	}
	if meta.Rank != nil {
		return int64(*meta.Rank)
	}
	return pid
}

// selectRank picks the rank to merge and gathers its invocations. Ranks
// are the ones the trace states (rankOf), not the events' pids.
func selectRank(path string, meta *mkMeta, ranks map[int64]*rankEvents, want int64) (*megaKernel, error) {
	var withEvents []int64
	pidOf := map[int64]int64{}
	for pid, re := range ranks {
		if len(re.invocations) > 0 {
			r := rankOf(meta, pid, re)
			if other, dup := pidOf[r]; dup {
				return nil, &InputError{File: path, Msg: fmt.Sprintf("events of pids %d and %d are both of rank %d (megaKernelCycleTrace)", min(pid, other), max(pid, other), r)}
			}
			pidOf[r] = pid
			withEvents = append(withEvents, r)
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
	re := ranks[pid]
	mk := &megaKernel{path: path, pid: pid, rank: rank, deviceID: rank, kernelName: "MegaKernel", coreNames: re.coreNames}
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
	for _, inv := range re.invocations {
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
	mk.flows = re.flows
	slices.SortFunc(mk.inv, func(a, b *invocation) int {
		if c := a.first.cmp(&b.first); c != 0 {
			return c
		}
		return compareInt(a.id, b.id)
	})
	for tid := range re.cores {
		mk.cores = append(mk.cores, tid)
	}
	slices.Sort(mk.cores)
	return mk, nil
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
