package analyze

import (
	"cmp"
	"slices"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Path is the critical path: the observed blame path back from the record
// that ends last. From a record R on core K: when R is a wait whose
// releasing producer P ends after R starts, the path continues at P (on
// P's core) and R's segment runs from P's end to R's end (unless P is
// already on the path: records out of start order can release each other
// in a cycle); otherwise it
// continues at the record before R on K, with a gap segment for idle time
// between them; at K's first record, a launch segment from K's entry. A
// segment never runs past the start of the one after it, so the segments
// tile [StartCycle, EndCycle] without holes or overlaps.
type Path struct {
	// StartCycle is the entry of the path's first core, EndCycle the
	// latest record end (the rank's); TotalCycles = EndCycle − StartCycle.
	StartCycle  uint64  `json:"start_cycle"`
	EndCycle    uint64  `json:"end_cycle"`
	TotalCycles uint64  `json:"total_cycles"`
	TotalUs     float64 `json:"total_us"`
	// ByKind and ByStage sum the segments' cycles by kind and by stage
	// (gap and launch segments have no stage).
	ByKind  map[string]uint64 `json:"by_kind"`
	ByStage []NamedCycles     `json:"by_stage"`
	// Segments in time order, held packed: Segments.At gives one.
	Segments Segments `json:"segments"`
}

// NamedCycles is a number of cycles under a name.
type NamedCycles struct {
	Name   string  `json:"name"`
	Cycles uint64  `json:"cycles"`
	Us     float64 `json:"us"`
}

// Segment is one piece of the critical path.
type Segment struct {
	Core string `json:"core"`
	// TaskID is nil for gap and launch segments.
	TaskID     *uint32 `json:"task_id"`
	Kind       string  `json:"kind"`
	StartCycle uint64  `json:"start_cycle"`
	EndCycle   uint64  `json:"end_cycle"`
	// StartUs is StartCycle after the rank's StartCycle, in µs.
	StartUs    float64 `json:"start_us"`
	DurationUs float64 `json:"duration_us"`
	TaskType   string  `json:"task_type"`
	Stage      string  `json:"stage"`
}

// Cycles is the segment's length.
func (s *Segment) Cycles() uint64 { return s.EndCycle - s.StartCycle }

// slotOrder gives random access to one slot's records in start order.
type slotOrder struct {
	sorted bool
	perm   []uint32 // position -> record index, for an unsorted slot
	inv    []uint32 // record index -> position
}

type pathWalker struct {
	d      *decode.Decoded
	orders []*slotOrder
	buf    []byte
	one    [1]abi.ProfileRecord
}

func (w *pathWalker) order(active int) (*slotOrder, error) {
	if o := w.orders[active]; o != nil {
		return o, nil
	}
	a := w.d.Summary.Active[active]
	o := &slotOrder{sorted: a.Sorted}
	if !a.Sorted {
		// The count was checked against the bytes present by the scan.
		starts := make([]uint64, a.Count)
		recs := make([]abi.ProfileRecord, min(a.Count, 1024))
		for first := 0; first < a.Count; first += len(recs) {
			n := min(len(recs), a.Count-first)
			var err error
			if w.buf, err = w.d.Capture.ReadRecords(a.Slot, first, recs[:n], w.buf); err != nil {
				return nil, err
			}
			for i := range n {
				starts[first+i] = recs[i].StartCycle
			}
		}
		o.perm = make([]uint32, a.Count)
		for i := range o.perm {
			o.perm[i] = uint32(i)
		}
		slices.SortStableFunc(o.perm, func(x, y uint32) int { return cmp.Compare(starts[x], starts[y]) })
		o.inv = make([]uint32, a.Count)
		for pos, idx := range o.perm {
			o.inv[idx] = uint32(pos)
		}
	}
	w.orders[active] = o
	return o, nil
}

// at returns the record at position pos (start order) of slot active.
func (w *pathWalker) at(active, pos int) (abi.ProfileRecord, uint32, error) {
	o, err := w.order(active)
	if err != nil {
		return abi.ProfileRecord{}, 0, err
	}
	idx := uint32(pos)
	if !o.sorted {
		idx = o.perm[pos]
	}
	w.buf, err = w.d.Capture.ReadRecords(w.d.Summary.Active[active].Slot, int(idx), w.one[:], w.buf)
	return w.one[0], idx, err
}

// position returns the start-order position of record index idx.
func (w *pathWalker) position(active int, idx uint32) (int, error) {
	o, err := w.order(active)
	if err != nil {
		return 0, err
	}
	if o.sorted {
		return int(idx), nil
	}
	return int(o.inv[idx]), nil
}

// criticalPath walks back from the record that ends last.
func (a *analyzer) criticalPath(d *decode.Decoded, accs []coreAcc) (*Path, error) {
	w := &pathWalker{d: d, orders: make([]*slotOrder, len(d.Summary.Active))}
	p := &Path{EndCycle: a.last.EndCycle, ByKind: map[string]uint64{}}
	pw := &pathWalk{a: a, w: w, d: d, accs: accs, cores: make([]string, len(d.Summary.Active))}
	// The walk runs twice: to count the segments, then to fill a slice of
	// exactly that many (a path has up to two segments per record: the
	// slice is the analysis's largest, and append's spare room and copies
	// would double it).
	n := 0
	if _, err := pw.walk(func(string, uint32, bool, string, uint64, uint64, *abi.ProfileRecord) { n++ }); err != nil {
		return nil, err
	}
	segs := make([]packedSeg, n)
	forms := segForms{a: a, p: p, of: map[segForm]uint32{}}
	end, err := pw.walk(func(core string, task uint32, hasTask bool, kind string, start, end uint64, r *abi.ProfileRecord) {
		n--
		segs[n] = packedSeg{start: start, task: task, form: forms.form(core, hasTask, kind, r)}
	})
	if err != nil {
		return nil, err
	}
	p.Segments.packed, p.Segments.end = segs, p.EndCycle
	p.Segments.rankStart, p.Segments.mhz = a.rankStart, a.o.FrequencyMHz
	p.StartCycle = end
	p.TotalCycles = p.EndCycle - p.StartCycle
	p.TotalUs = a.us(p.TotalCycles)
	a.pathTotals(p)
	return p, nil
}

// segForms holds a segment's strings (core, kind, task type, stage) once
// per distinct combination: a path has up to two segments per record.
type segForms struct {
	a  *analyzer
	p  *Path
	of map[segForm]uint32
}

// form returns the index of the segment's form in the path's forms.
func (sf *segForms) form(core string, hasTask bool, kind string, r *abi.ProfileRecord) uint32 {
	names := &sf.a.names
	f := segForm{core: core, kind: kind, hasTask: hasTask}
	if r != nil {
		f.stage = names.taskStage(r.TaskID)
		if kind == KindCompute {
			f.taskType, f.stage = names.taskType(r), names.stage(r)
		} else if t, ok := names.scheduledType(r.TaskID); ok {
			f.taskType = t
		}
	}
	i, ok := sf.of[f]
	if !ok {
		i = uint32(len(sf.p.Segments.forms))
		sf.of[f] = i
		sf.p.Segments.forms = append(sf.p.Segments.forms, f)
	}
	return i
}

// pathWalk is one walk of the critical path.
type pathWalk struct {
	a     *analyzer
	w     *pathWalker
	d     *decode.Decoded
	accs  []coreAcc
	cores []string // each active slot's name, made when the path reaches it
}

// walk walks the path back from the record that ends last, handing each
// segment (the latest first) to seg, and returns where the path starts.
func (pw *pathWalk) walk(seg func(core string, task uint32, hasTask bool, kind string, start, end uint64, r *abi.ProfileRecord)) (uint64, error) {
	a, w, d, deps := pw.a, pw.w, pw.d, pw.a.o.Deps
	active := int(a.last.Active)
	pos, err := w.position(active, a.last.Index)
	if err != nil {
		return 0, err
	}
	end := a.last.EndCycle
	// A producer already on the path is not followed again: records
	// out of start order (or of zero length) could otherwise release
	// each other in a cycle. Each step then either reaches a record not
	// yet visited or moves back on the current core, so the walk ends.
	// One bit per record of each slot the path reaches.
	visited := make([][]uint64, len(d.Summary.Active))
	seen := func(active int, idx uint32) bool {
		v := visited[active]
		return v != nil && v[idx/64]&(1<<(idx%64)) != 0
	}
	for {
		r, idx, err := w.at(active, pos)
		if err != nil {
			return 0, err
		}
		if visited[active] == nil {
			visited[active] = make([]uint64, (d.Summary.Active[active].Count+63)/64)
		}
		visited[active][idx/64] |= 1 << (idx % 64)
		if pw.cores[active] == "" {
			pw.cores[active] = d.Summary.Active[active].Slot.String()
		}
		core := pw.cores[active]
		kind := a.names.kind(r.DescID)
		if e, ok := deps.WaitEvent(&r); ok {
			if rel, ok := deps.Releasing(e, r.EndCycle); ok && rel.EndCycle > r.StartCycle && !seen(int(rel.Active), rel.Index) {
				start := min(rel.EndCycle, end)
				seg(core, r.TaskID, true, kind, start, end, &r)
				end = start
				active = int(rel.Active)
				if pos, err = w.position(active, rel.Index); err != nil {
					return 0, err
				}
				continue
			}
		}
		start := min(r.StartCycle, end)
		seg(core, r.TaskID, true, kind, start, end, &r)
		end = start
		if pos == 0 {
			entry := pw.accs[active].core.EntryCycle
			if entry < end {
				seg(core, 0, false, KindLaunch, entry, end, nil)
				end = entry
			}
			return end, nil
		}
		pos--
		prev, _, err := w.at(active, pos)
		if err != nil {
			return 0, err
		}
		if prev.EndCycle < end {
			seg(core, 0, false, KindGap, prev.EndCycle, end, nil)
			end = prev.EndCycle
		}
	}
}

// pathTotals sums the path's cycles by kind and by stage (gaps and the
// launch aside), the stages largest first.
func (a *analyzer) pathTotals(p *Path) {
	byStage := map[string]uint64{}
	for i := range p.Segments.packed {
		f, c := &p.Segments.forms[p.Segments.packed[i].form], p.Segments.cycles(i)
		p.ByKind[f.kind] += c
		if f.kind != KindGap && f.kind != KindLaunch {
			byStage[f.stage] += c
		}
	}
	for name, c := range byStage {
		p.ByStage = append(p.ByStage, NamedCycles{Name: name, Cycles: c, Us: a.us(c)})
	}
	slices.SortFunc(p.ByStage, func(x, y NamedCycles) int {
		return cmp.Or(cmp.Compare(y.Cycles, x.Cycles), cmp.Compare(x.Name, y.Name))
	})
}

// scheduledType is the schedule's task type of task id.
func (n *namer) scheduledType(id uint32) (string, bool) {
	if n.deps == nil || uint64(id) >= uint64(len(n.deps.Schedule.Tasks)) {
		return "", false
	}
	return n.typeName(n.deps.Schedule.Tasks[id].TaskType), true
}
