package analyze_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// simulate runs s, with bounded waits when its waits cannot all end.
func simulate(t *rapid.T, s *plan.Schedule, opts synth.Options) *synth.Capture {
	c, err := synth.Run(s, opts)
	if err != nil {
		var pe *plan.Error
		require.ErrorAsf(t, err, &pe, "Run: %v", err)
		opts.WaitTimeout = synth.DefaultWaitTimeout
		c, err = synth.Run(s, opts)
		require.NoError(t, err, "Run with bounded waits")
	}
	return c
}

// slotRecords are one live slot as read straight from the buffer.
type slotRecords struct {
	slot    abi.Slot
	entry   uint64
	records []abi.ProfileRecord
}

// readSlots reads every live slot of a buffer without package capture.
func readSlots(buf []byte, l abi.Layout) []slotRecords {
	var out []slotRecords
	for i := range l.NumSlots() {
		s := l.Slot(i)
		h, _ := abi.DecodeCoreHeader(buf[s.Offset:])
		if h.IsZero() {
			continue
		}
		sr := slotRecords{slot: s, entry: h.EntryCycle}
		for j := range min(h.RecordCount, s.Capacity) {
			r, _ := abi.DecodeProfileRecord(buf[s.RecordOffset(j):])
			sr.records = append(sr.records, r)
		}
		out = append(out, sr)
	}
	return out
}

// perturb rewrites some records' cycles at random, so that slots are out
// of start order, records overlap and start before their core's entry.
func perturb(t *rapid.T, buf []byte, l abi.Layout) {
	for _, sr := range readSlots(buf, l) {
		for j := range sr.records {
			if rapid.IntRange(0, 9).Draw(t, "perturb") != 0 {
				continue
			}
			start := sr.entry - 50 + rapid.Uint64Range(0, 20000).Draw(t, "start")
			end := start + rapid.Uint64Range(0, 3000).Draw(t, "len")
			off := sr.slot.RecordOffset(uint32(j))
			binary.LittleEndian.PutUint64(buf[off+abi.ProfileRecordStartCycleOffset:], start)
			binary.LittleEndian.PutUint64(buf[off+abi.ProfileRecordEndCycleOffset:], end)
		}
	}
}

// unionLength is the length of the union of [lo, hi) intervals clipped
// to [from, to], by elementary intervals between endpoints (quadratic, and
// unlike the code under test, needs no order).
func unionLength(iv [][2]uint64, from, to uint64) uint64 {
	var pts []uint64
	for _, x := range iv {
		pts = append(pts, min(max(x[0], from), to), min(max(x[1], from), to))
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	var n uint64
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		for _, x := range iv {
			if x[0] <= a && b <= x[1] {
				n += b - a
				break
			}
		}
	}
	return n
}

// nearestRank is the p-th percentile by the definition, in floating point.
func nearestRank(sorted []uint64, p float64) uint64 {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

type expectStat struct{ values []uint64 }

func checkStats(t *rapid.T, what string, got []analyze.Stat, want map[string]*expectStat) {
	require.Lenf(t, got, len(want), "%s", what)
	for _, s := range got {
		w := want[s.Name]
		require.NotNilf(t, w, "%s: unexpected group %q", what, s.Name)
		v := slices.Sorted(slices.Values(w.values))
		var total uint64
		for _, x := range v {
			total += x
		}
		exp := analyze.Stat{Name: s.Name, Count: uint64(len(v)), TotalCycles: total, MeanCycles: float64(total) / float64(len(v)),
			P50Cycles: nearestRank(v, 50), P90Cycles: nearestRank(v, 90), P99Cycles: nearestRank(v, 99), MaxCycles: v[len(v)-1], Exact: true}
		if !s.Exact {
			// Past the budget of exact values: percentiles within 1/256.
			for _, p := range [][2]uint64{{s.P50Cycles, exp.P50Cycles}, {s.P90Cycles, exp.P90Cycles}, {s.P99Cycles, exp.P99Cycles}} {
				require.LessOrEqualf(t, math.Abs(float64(p[0])-float64(p[1])), float64(p[1])/256+0.5, "%s %q: histogram percentile %d, exact %d", what, s.Name, p[0], p[1])
			}
			exp.P50Cycles, exp.P90Cycles, exp.P99Cycles, exp.Exact = s.P50Cycles, s.P90Cycles, s.P99Cycles, false
		}
		require.Equalf(t, exp, s, "%s %q", what, s.Name)
	}
	for i := 1; i < len(got); i++ {
		require.LessOrEqualf(t, got[i].TotalCycles, got[i-1].TotalCycles, "%s: not by total, largest first", what)
	}
}

func typeName(t abi.TaskType) string {
	if t.Valid() {
		return t.String()
	}
	return "TaskType_" + strconv.FormatUint(uint64(t), 10)
}

// decoded builds and checks a capture for s; nil when it has no records.
func decoded(t *rapid.T, s *plan.Schedule, mutate bool) (*decode.Decoded, []byte, abi.Layout) {
	c := simulate(t, s, synth.Options{Seed: rapid.Uint64().Draw(t, "seed"),
		CapacityScale: rapid.SampledFrom([]float64{0, 0, 0.8}).Draw(t, "scale")})
	if mutate {
		perturb(t, c.Buffer, c.Layout)
	}
	if c.Records() == 0 {
		return nil, nil, c.Layout
	}
	cp, err := capture.FromBytes("random.bin", c.Buffer)
	require.NoError(t, err)
	d, err := decode.Decode(cp, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	require.NoError(t, err, "Decode")
	return d, c.Buffer, c.Layout
}

func TestBreakdown(t *testing.T) { rapid.Check(t, propBreakdown) }
func FuzzBreakdown(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propBreakdown)) }

// propBreakdown: the per-core breakdown, the totals and every group's
// stats equal a plain computation over the records read from the buffer.
func propBreakdown(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	d, buf, l := decoded(t, s, rapid.Bool().Draw(t, "mutate"))
	if d == nil {
		return
	}
	deps, err := flows.NewDependencies(d, s)
	require.NoError(t, err, "NewDependencies")
	limit := rapid.SampledFrom([]int{0, 0, 1, 7, 40}).Draw(t, "exact_limit")
	res, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps, ExactLimit: limit})
	require.NoError(t, err)
	slots := readSlots(buf, l)
	require.Len(t, res.Cores, len(slots))
	types, stages, owners, waits := map[string]*expectStat{}, map[string]*expectStat{}, map[string]*expectStat{}, map[string]*expectStat{}
	add := func(m map[string]*expectStat, k string, v uint64) {
		if m[k] == nil {
			m[k] = &expectStat{}
		}
		m[k].values = append(m[k].values, v)
	}
	var start, end uint64
	first := true
	var compute, span uint64
	for i, sr := range slots {
		got := res.Cores[i]
		want := analyze.Core{Core: sr.slot.String(), CoreType: sr.slot.CoreType.String(), BlockID: sr.slot.BlockID,
			EntryCycle: sr.entry, EndCycle: sr.entry, Records: uint64(len(sr.records))}
		var iv [][2]uint64
		for _, r := range sr.records {
			want.EndCycle = max(want.EndCycle, r.EndCycle)
			end = max(end, r.EndCycle)
			iv = append(iv, [2]uint64{r.StartCycle, r.EndCycle})
			dur := r.EndCycle - r.StartCycle
			ns, index := abi.LookupDesc(r.DescID)
			switch {
			case r.DescID == abi.RuntimeStageWaitDependency:
				want.WaitCycles += dur
				stage := "unknown"
				t := s.Tasks[r.TaskID]
				if t.GraphStage != plan.NoGraphStage {
					stage = "GraphStage_" + strconv.Itoa(int(t.GraphStage))
				} else {
					stage = abi.DescName(abi.TaskTypeBase + uint32(t.TaskType))
				}
				add(waits, stage, dur)
			case r.DescID == abi.RuntimeStageTriggerEvent:
				want.TriggerCycles += dur
			case ns == abi.NamespaceTaskType || ns == abi.NamespaceGraphStage:
				want.ComputeCycles += dur
				if ns == abi.NamespaceTaskType {
					add(types, typeName(abi.TaskType(index)), dur)
				} else {
					add(types, typeName(s.Tasks[r.TaskID].TaskType), dur)
				}
				add(stages, abi.DescName(r.DescID), dur)
				if r.OwnerID != abi.InvalidOwnerID {
					add(owners, strconv.FormatUint(uint64(r.OwnerID), 10), dur)
				}
			default:
				want.OtherCycles += dur
			}
		}
		if want.Records > 0 {
			want.IdleCycles = want.EndCycle - want.EntryCycle - unionLength(iv, want.EntryCycle, want.EndCycle)
			if first || want.EntryCycle < start {
				start = want.EntryCycle
			}
			first = false
		}
		compute += want.ComputeCycles
		span += want.EndCycle - want.EntryCycle
		require.Equalf(t, want, got, "core %s", sr.slot)
	}
	makespan := uint64(0)
	if end > start {
		makespan = end - start
	}
	require.Equal(t, makespan, res.MakespanCycles, "makespan")
	require.Equal(t, start, res.StartCycle, "start")
	require.Equal(t, end, res.EndCycle, "end")
	require.Equal(t, compute, res.Totals.ComputeCycles, "totals %+v: compute", res.Totals)
	require.Equal(t, span, res.Totals.SpanCycles, "totals %+v: span", res.Totals)
	checkStats(t, "task types", res.TaskTypes, types)
	checkStats(t, "stages", res.Stages, stages)
	checkStats(t, "owners", res.Owners, owners)
	checkStats(t, "waits", res.Waits, waits)
	checkPath(t, res)
}

// checkPath: the critical path tiles [start, end] with segments in time
// order, ends at the rank's last record end, and sums to its total.
func checkPath(t *rapid.T, res *analyze.Rank) {
	p := res.CriticalPath
	require.NotNil(t, p, "no critical path with a schedule")
	require.Equal(t, res.EndCycle, p.EndCycle, "path ends at")
	n := p.Segments.Len()
	require.Positive(t, n, "segments do not span [%d, %d]", p.StartCycle, p.EndCycle)
	require.Equal(t, p.StartCycle, p.Segments.At(0).StartCycle, "segments do not span [%d, %d]: the first's start", p.StartCycle, p.EndCycle)
	require.Equal(t, p.EndCycle, p.Segments.At(n-1).EndCycle, "segments do not span [%d, %d]: the last's end", p.StartCycle, p.EndCycle)
	var sum uint64
	byKind := map[string]uint64{}
	for i := range n {
		s := p.Segments.At(i)
		require.GreaterOrEqualf(t, s.EndCycle, s.StartCycle, "segment %d ends before it starts: %+v", i, s)
		if i > 0 {
			require.Equal(t, p.Segments.At(i-1).EndCycle, s.StartCycle, "segment %d's start, the end of the one before", i)
		}
		sum += s.EndCycle - s.StartCycle
		byKind[s.Kind] += s.EndCycle - s.StartCycle
	}
	require.Equal(t, p.TotalCycles, sum, "the segments' sum, the path's total")
	require.Equal(t, p.EndCycle-p.StartCycle, p.TotalCycles, "the path's total, its span")
	for k, v := range byKind {
		require.Equalf(t, v, p.ByKind[k], "by_kind[%s]", k)
	}
}

// producer is a producer of an event found from the buffer directly.
type producer struct {
	slot  int
	index int
	end   uint64
}

func TestFlows(t *testing.T) { rapid.Check(t, propFlows) }
func FuzzFlows(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propFlows)) }

// propFlows: every arrow goes forward in time and joins a producer of the
// waited event to a wait on it; by default it is the releasing one (no
// producer of the event ends later but by the wait's end); every wait
// with a producer ending by its end gets one, and the others are counted.
// Every releasing arrow is among those of --flows all.
func propFlows(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	d, buf, l := decoded(t, s, rapid.Bool().Draw(t, "mutate"))
	if d == nil {
		return
	}
	deps, err := flows.NewDependencies(d, s)
	require.NoError(t, err, "NewDependencies")
	slots := readSlots(buf, l)
	var active []slotRecords
	for _, sr := range slots {
		if len(sr.records) > 0 {
			active = append(active, sr)
		}
	}
	prods := map[plan.EventID][]producer{}
	waits := 0
	for i, sr := range active {
		for j, r := range sr.records {
			task := s.Tasks[r.TaskID]
			ns, _ := abi.LookupDesc(r.DescID)
			compute := ns == abi.NamespaceTaskType || ns == abi.NamespaceGraphStage
			if r.DescID == abi.RuntimeStageWaitDependency {
				waits++
			}
			if task.TriggerEvent.Valid() && (r.DescID == abi.RuntimeStageTriggerEvent || compute && task.TaskType == abi.TaskTypeShmemPutMemSignal) {
				prods[task.TriggerEvent] = append(prods[task.TriggerEvent], producer{i, j, r.EndCycle})
			}
		}
	}
	rec := func(ref decode.RecordRef) abi.ProfileRecord { return active[ref.Active].records[ref.Index] }
	arrowsTo := map[[2]int]int{}
	all := map[[4]int]bool{}
	stAll, err := flows.Each(d, deps, flows.All, 0, func(f flows.Flow) bool {
		all[[4]int{int(f.From.Active), int(f.From.Index), int(f.To.Active), int(f.To.Index)}] = true
		return true
	})
	require.NoError(t, err)
	st, err := flows.Each(d, deps, flows.Releasing, 0, func(f flows.Flow) bool {
		from, to := rec(f.From), rec(f.To)
		require.LessOrEqualf(t, from.EndCycle, to.EndCycle, "arrow %d goes back in time: %+v -> %+v", f.ID, from, to)
		require.Equalf(t, from.EndCycle, f.From.EndCycle, "arrow %d goes back in time: %+v -> %+v", f.ID, from, to)
		require.Equalf(t, to.EndCycle, f.To.EndCycle, "arrow %d goes back in time: %+v -> %+v", f.ID, from, to)
		require.Equalf(t, abi.RuntimeStageWaitDependency, to.DescID, "arrow %d ends at %+v, not a wait on event", f.ID, to)
		require.Equalf(t, f.Event, s.Tasks[to.TaskID].DependentEvent, "arrow %d ends at %+v, not a wait on event", f.ID, to)
		isProducer := false
		for _, p := range prods[f.Event] {
			if p.slot == int(f.From.Active) && p.index == int(f.From.Index) {
				isProducer = true
			}
			require.Falsef(t, p.end > from.EndCycle && p.end <= to.EndCycle, "arrow %d starts at a producer ending at %d, but another ends at %d by the wait's end %d", f.ID, from.EndCycle, p.end, to.EndCycle)
		}
		require.Truef(t, isProducer, "arrow %d starts at %+v, not a producer of event %d", f.ID, from, f.Event)
		require.Truef(t, all[[4]int{int(f.From.Active), int(f.From.Index), int(f.To.Active), int(f.To.Index)}], "arrow %d is not among --flows all's", f.ID)
		arrowsTo[[2]int{int(f.To.Active), int(f.To.Index)}]++
		return true
	})
	require.NoError(t, err)
	orphans := 0
	for i, sr := range active {
		for j, r := range sr.records {
			if r.DescID != abi.RuntimeStageWaitDependency {
				continue
			}
			has := false
			for _, p := range prods[s.Tasks[r.TaskID].DependentEvent] {
				has = has || p.end <= r.EndCycle
			}
			n := arrowsTo[[2]int{i, j}]
			switch {
			case has && n != 1:
				require.FailNow(t, fmt.Sprintf("wait %s#%d has %d arrows, want 1", sr.slot, j, n))
			case !has && n != 0:
				require.FailNow(t, fmt.Sprintf("wait %s#%d has no producer but %d arrows", sr.slot, j, n))
			case !has:
				orphans++
			}
		}
	}
	require.Equalf(t, uint64(waits), st.Waits, "stats %+v, want %d waits, %d without producer", st, waits, orphans)
	require.Equalf(t, uint64(orphans), st.WaitsWithoutProducer, "stats %+v, want %d waits, %d without producer", st, waits, orphans)
	require.Equalf(t, uint64(waits-orphans), st.Arrows, "stats %+v, want %d waits, %d without producer", st, waits, orphans)
	require.GreaterOrEqualf(t, stAll.Arrows, st.Arrows, "flows all %+v against releasing %+v", stAll, st)
	require.Equalf(t, st.WaitsWithoutProducer, stAll.WaitsWithoutProducer, "flows all %+v against releasing %+v", stAll, st)
}

func TestPercentileHistogram(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(rapid.Uint64Range(0, 1<<rapid.IntRange(1, 63).Draw(t, "bits")), 1, 400).Draw(t, "values")
		exact := analyze.StatOf("x", vals, 0)
		hist := analyze.StatOf("x", vals, 1)
		sorted := slices.Clone(vals)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		for _, c := range []struct {
			p          float64
			exact, est uint64
		}{{50, exact.P50Cycles, hist.P50Cycles}, {90, exact.P90Cycles, hist.P90Cycles}, {99, exact.P99Cycles, hist.P99Cycles}} {
			want := nearestRank(sorted, c.p)
			require.Equalf(t, want, c.exact, "exact p%v", c.p)
			require.LessOrEqualf(t, math.Abs(float64(c.est)-float64(want)), float64(want)/256+0.5, "histogram p%v = %d, want %d within 1/256", c.p, c.est, want)
		}
		require.Truef(t, exact.Exact, "exact %+v, histogram %+v", exact, hist)
		require.Equalf(t, (len(vals) <= 1), hist.Exact, "exact %+v, histogram %+v", exact, hist)
		require.Equalf(t, sorted[len(sorted)-1], hist.MaxCycles, "exact %+v, histogram %+v", exact, hist)
		require.Equalf(t, exact.TotalCycles, hist.TotalCycles, "exact %+v, histogram %+v", exact, hist)
	})
}

func TestTimeline(t *testing.T) { rapid.Check(t, propTimeline) }
func FuzzTimeline(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propTimeline)) }

// propTimeline: each core's bins add up to its compute, wait, trigger and
// other cycles, bins cover the makespan, and a bin's task type is one
// whose compute falls in it.
func propTimeline(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	d, _, _ := decoded(t, s, false)
	if d == nil {
		return
	}
	deps, err := flows.NewDependencies(d, s)
	require.NoError(t, err)
	o := analyze.Options{FrequencyMHz: 50, Deps: deps}
	res, err := analyze.Analyze(d, o)
	require.NoError(t, err)
	bins := rapid.IntRange(1, 300).Draw(t, "bins")
	tl, err := analyze.NewTimeline(d, res, o, bins)
	require.NoError(t, err)
	require.GreaterOrEqual(t, tl.BinCycles*uint64(bins), res.MakespanCycles, "%d bins of %d cycles do not cover the makespan", bins, tl.BinCycles)
	require.Equal(t, res.StartCycle, tl.StartCycle, "the bins' start, the makespan's")
	var rows []analyze.Core
	for _, c := range res.Cores {
		if c.Records > 0 {
			rows = append(rows, c)
		}
	}
	require.Len(t, tl.Cores, len(rows))
	for i, row := range tl.Cores {
		c := rows[i]
		var got analyze.Core
		for _, b := range row.Bins {
			got.ComputeCycles += b.Compute
			got.WaitCycles += b.Wait
			got.TriggerCycles += b.Trigger
			got.OtherCycles += b.Other
			require.Equal(t, b.Compute > 0, b.TaskType >= 0, "%s: bin %+v with task type %d of %v: a task type where it computes", row.Core, b, b.TaskType, tl.TaskTypes)
			require.Less(t, b.TaskType, len(tl.TaskTypes), "%s: bin %+v with task type %d of %v", row.Core, b, b.TaskType, tl.TaskTypes)
		}
		require.Equalf(t, c.Core, row.Core, "bins sum to %+v, the core has %+v", got, c)
		require.Equalf(t, c.ComputeCycles, got.ComputeCycles, "bins sum to %+v, the core has %+v", got, c)
		require.Equalf(t, c.WaitCycles, got.WaitCycles, "bins sum to %+v, the core has %+v", got, c)
		require.Equalf(t, c.TriggerCycles, got.TriggerCycles, "bins sum to %+v, the core has %+v", got, c)
		require.Equalf(t, c.OtherCycles, got.OtherCycles, "bins sum to %+v, the core has %+v", got, c)
	}
}

func TestDiff(t *testing.T) { rapid.Check(t, propDiff) }
func FuzzDiff(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propDiff)) }

// propDiff: the diff of two captures of one schedule has, for every task
// type and stage of either, the new value minus the base one, relative
// to the base, sorted by the absolute change in total; a capture's diff
// with itself is zero.
func propDiff(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	var reps [2]*analyze.Report
	for i := range reps {
		d, _, _ := decoded(t, s, false)
		if d == nil {
			return
		}
		r, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50})
		require.NoError(t, err)
		reps[i] = analyze.NewReport([]*analyze.Rank{r})
	}
	self, err := analyze.Compare(reps[0], reps[0], false)
	require.NoError(t, err, "self-diff")
	require.True(t, self.IsZero(), "self-diff is not zero: %+v", self)
	d, err := analyze.Compare(reps[0], reps[1], false)
	require.NoError(t, err)
	r := d.Ranks[0]
	base, new := reps[0].Ranks[0], reps[1].Ranks[0]
	require.Equalf(t, float64(new.MakespanCycles)-float64(base.MakespanCycles), r.Makespan.Abs, "makespan change, want %d - %d", new.MakespanCycles, base.MakespanCycles)
	for _, c := range []struct {
		got       []analyze.GroupDiff
		base, new []analyze.Stat
	}{{r.TaskTypes, base.TaskTypes, new.TaskTypes}, {r.Stages, base.Stages, new.Stages}} {
		find := func(ss []analyze.Stat, name string) (analyze.Stat, bool) {
			for _, s := range ss {
				if s.Name == name {
					return s, true
				}
			}
			return analyze.Stat{}, false
		}
		names := map[string]bool{}
		for _, s := range append(slices.Clone(c.base), c.new...) {
			names[s.Name] = true
		}
		require.Len(t, c.got, len(names))
		for i, g := range c.got {
			b, inB := find(c.base, g.Name)
			n, inN := find(c.new, g.Name)
			require.Equalf(t, inB, g.InBase, "%q: %+v for base %+v new %+v", g.Name, g, b, n)
			require.Equalf(t, inN, g.InNew, "%q: %+v for base %+v new %+v", g.Name, g, b, n)
			require.Equalf(t, float64(n.TotalCycles)-float64(b.TotalCycles), g.TotalCycles.Abs, "%q: %+v for base %+v new %+v", g.Name, g, b, n)
			require.Equalf(t, float64(n.Count)-float64(b.Count), g.Count.Abs, "%q: %+v for base %+v new %+v", g.Name, g, b, n)
			require.Equalf(t, float64(n.P90Cycles)-float64(b.P90Cycles), g.P90Cycles.Abs, "%q: %+v for base %+v new %+v", g.Name, g, b, n)
			require.Equalf(t, (b.TotalCycles == 0), (g.TotalCycles.RelPct == nil), "%q: relative change %v", g.Name, g.TotalCycles.RelPct)
			require.Falsef(t, g.TotalCycles.RelPct != nil && math.Abs(*g.TotalCycles.RelPct-100*g.TotalCycles.Abs/float64(b.TotalCycles)) > 1e-9, "%q: relative change %v", g.Name, g.TotalCycles.RelPct)
			require.Falsef(t, i > 0 && math.Abs(g.TotalCycles.Abs) > math.Abs(c.got[i-1].TotalCycles.Abs), "not sorted by the absolute change in total at %q", g.Name)
		}
	}
}
