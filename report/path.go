package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
)

var pathKinds = []string{analyze.KindCompute, analyze.KindWait, analyze.KindTrigger, analyze.KindOther, analyze.KindGap, analyze.KindLaunch}

// segColor is the color of a path segment: its stage's for compute, its
// kind's otherwise.
func segColor(s *analyze.Segment, colors Colors) string {
	if s.Kind == analyze.KindCompute && s.Stage != "" {
		return colors.Of(s.Stage)
	}
	return KindColors[s.Kind]
}

func newPathView(anchor string, index int, k *analyze.Rank, colors Colors) *pathView {
	p := k.CriticalPath
	v := &pathView{}
	from := ""
	if p.Segments.Len() > 0 {
		from = " from " + p.Segments.At(0).Core
	}
	pct := func(c uint64) string {
		if p.TotalCycles == 0 {
			return "0.0"
		}
		return fp(100*float64(c)/float64(p.TotalCycles), 1)
	}
	v.Text = fmt.Sprintf("%s cycles (%s µs), %d segments%s to the last record end: compute %s %%, wait %s %%, gaps %s %%.",
		gu(p.TotalCycles), fp(p.TotalUs, 1), p.Segments.Len(), from, pct(p.ByKind[analyze.KindCompute]), pct(p.ByKind[analyze.KindWait]), pct(p.ByKind[analyze.KindGap]))
	rankIdx := strconv.Itoa(index)
	v.Gantt, v.Legend = pathGantt(anchor, k, colors)
	v.Kinds, v.KindTab = pathByKind(anchor, rankIdx, p, k.CycleFrequencyMHz)
	v.Stages, v.StageT = pathByStage(anchor, rankIdx, p, colors)
	v.SegTab = pathSegments(rankIdx, p)
	return v
}

// gantt is the critical path's Gantt being drawn: its rows (a core on
// the path, or a group of them) and the colors of the stages drawn.
type gantt struct {
	g      *chart
	k      *analyze.Rank
	rows   []string
	rowOf  map[string]int
	rowH   float64
	top    float64
	legend map[string]string
}

// pathGantt draws the critical path as a Gantt, one row per core it runs
// on, in core order: a bar per segment, binned past MaxGanttSegments.
func pathGantt(anchor string, k *analyze.Rank, colors Colors) (*chart, []legendItem) {
	gt := newGantt(anchor, k)
	if k.CriticalPath.Segments.Len() <= MaxGanttSegments {
		gt.bars(colors)
	} else {
		gt.binned(colors)
	}
	g := gt.g
	bottom := gt.top + float64(len(gt.rows))*gt.rowH + 2
	g.H = bottom + 40
	g.xAxis(labelW, plotW, gt.top, bottom, float64(k.MakespanCycles)/k.CycleFrequencyMHz, "µs since the first core entered")
	var stages []string
	for s := range gt.legend {
		stages = append(stages, s)
	}
	slices.Sort(stages)
	var legend []legendItem
	for _, s := range stages {
		legend = append(legend, legendItem{Name: s, Color: gt.legend[s]})
	}
	return g, legend
}

// newGantt lays out the Gantt's rows: the cores on the path in core
// order, at most MaxChartRows rows, grouped by the one rule of every
// chart with a row per core (groupCores).
func newGantt(anchor string, k *analyze.Rank) *gantt {
	p := k.CriticalPath
	order := map[string]int{}
	for i, c := range k.Cores {
		order[c.Core] = i
	}
	var cores []string
	seen := map[string]bool{}
	for i := range p.Segments.Len() {
		if s := p.Segments.At(i); !seen[s.Core] {
			seen[s.Core] = true
			cores = append(cores, s.Core)
		}
	}
	slices.SortFunc(cores, func(a, b string) int { return cmp.Compare(order[a], order[b]) })
	onPath := make([]analyze.Core, 0, len(cores))
	for _, c := range cores {
		if i, ok := order[c]; ok {
			onPath = append(onPath, k.Cores[i])
		}
	}
	groups := groupCores(onPath, MaxChartRows)
	rows := make([]string, len(groups))
	for i, g := range groups {
		rows[i] = g.Name
	}
	gt := &gantt{k: k, rows: rows, rowOf: rowIndex(groups), rowH: rowHeight(len(rows)), top: 6.0, legend: map[string]string{}}
	gt.g = &chart{ID: anchor + "-path", Class: "gantt", W: chartW,
		Label: "The critical path as a Gantt chart: one row per core it runs on, one bar per segment"}
	for i, c := range rows {
		y := gt.top + float64(i)*gt.rowH
		gt.g.rect(labelW, y, plotW, gt.rowH-1, "", "rowbg", c)
		if gt.rowH >= 8 {
			gt.g.text(labelW-6, y+gt.rowH-2.5, "end", "rowlabel", c)
		}
	}
	return gt
}

// x is where cycle falls on the Gantt's time axis.
func (gt *gantt) x(cycle uint64) float64 {
	k := gt.k
	span := float64(k.MakespanCycles)
	if span == 0 {
		span = 1
	}
	if cycle < k.StartCycle {
		return labelW
	}
	return labelW + plotW*float64(cycle-k.StartCycle)/span
}

// bars draws a bar per segment, and a link where the path moves to
// another core.
func (gt *gantt) bars(colors Colors) {
	p := gt.k.CriticalPath
	g, rowH, top := gt.g, gt.rowH, gt.top
	var links strings.Builder
	for i := range p.Segments.Len() {
		seg := p.Segments.At(i)
		s := &seg
		y := top + float64(gt.rowOf[s.Core])*rowH
		x0, x1 := gt.x(s.StartCycle), gt.x(s.EndCycle)
		what := s.Kind
		if s.TaskID != nil {
			what = fmt.Sprintf("task %d %s (%s, %s)", *s.TaskID, s.Kind, s.TaskType, s.Stage)
		}
		g.rect(x0, y, max(x1-x0, 0.4), rowH-1, segColor(s, colors), "seg k-"+s.Kind,
			fmt.Sprintf("%s %s: %s cycles (%s µs) from %s µs", s.Core, what, gu(s.Cycles()), fp(s.DurationUs, 2), fp(s.StartUs, 2)))
		if s.Kind == analyze.KindCompute {
			gt.legend[s.Stage] = segColor(s, colors)
		}
		if prev := p.Segments.At(max(i-1, 0)); i > 0 && prev.Core != s.Core {
			yp := top + float64(gt.rowOf[prev.Core])*rowH + (rowH-1)/2
			fmt.Fprintf(&links, "M%s %sV%s", n(x0), n(yp), n(y+(rowH-1)/2))
		}
	}
	if links.Len() > 0 {
		g.Over = append(g.Over, path{D: links.String(), Fill: "none", Stroke: "#000000", StrokeWidth: "0.8", Class: "links",
			Title: "the path moves to another core: a wait released by a producer there"})
	}
}

// binned draws each row's bins in the color of the segment covering most
// of them.
func (gt *gantt) binned(colors Colors) {
	k := gt.k
	p := k.CriticalPath
	nb := TimelineBins
	type cnt struct {
		key    string
		cycles uint64
	}
	best := make([][]cnt, len(gt.rows))
	for i := range best {
		best[i] = make([]cnt, nb)
	}
	binLen := max(1, k.MakespanCycles/uint64(nb))
	if binLen*uint64(nb) < k.MakespanCycles {
		binLen++
	}
	for i := range p.Segments.Len() {
		seg := p.Segments.At(i)
		s := &seg
		if s.EndCycle <= k.StartCycle {
			continue
		}
		key := segColor(s, colors)
		lo := max(s.StartCycle, k.StartCycle)
		for lo < s.EndCycle {
			b := (lo - k.StartCycle) / binLen
			if b >= uint64(nb) {
				break
			}
			hi := min(s.EndCycle, k.StartCycle+(b+1)*binLen)
			c := &best[gt.rowOf[s.Core]][b]
			if hi-lo > c.cycles {
				c.key, c.cycles = key, hi-lo
			}
			lo = hi
		}
		if s.Kind == analyze.KindCompute {
			gt.legend[s.Stage] = key
		}
	}
	for r := range gt.rows {
		ds := map[string]*strings.Builder{}
		var keys []string
		y := gt.top + float64(r)*gt.rowH
		for b := 0; b < nb; {
			e := b
			for e < nb && best[r][e].key == best[r][b].key {
				e++
			}
			if key := best[r][b].key; key != "" {
				if ds[key] == nil {
					ds[key] = &strings.Builder{}
					keys = append(keys, key)
				}
				x0, x1 := labelW+plotW*float64(b)/float64(nb), labelW+plotW*float64(e)/float64(nb)
				fmt.Fprintf(ds[key], "M%s %sh%sv%sh-%sz", n(x0), n(y), n(x1-x0), n(gt.rowH-1), n(x1-x0))
			}
			b = e
		}
		for _, key := range keys {
			gt.g.Paths = append(gt.g.Paths, path{D: ds[key].String(), Fill: key, Title: gt.rows[r] + " on the path (binned)"})
		}
	}
}

// pathByKind is the path's time by kind: one stacked bar and a table.
func pathByKind(anchor, rankIdx string, p *analyze.Path, mhz float64) (*chart, *table) {
	kc := &chart{ID: anchor + "-pathkinds", Class: "kindbar", W: chartW, H: 44, Label: "The critical path's time by kind"}
	x := labelW
	kt := &table{Name: "path_kinds", Rank: rankIdx, Caption: "Critical path by kind",
		Head: []head{{Text: "kind"}, {Text: "cycles", Num: true}, {Text: "µs", Num: true}, {Text: "% of path", Num: true}}}
	for _, kind := range pathKinds {
		c := p.ByKind[kind]
		share := 0.0
		if p.TotalCycles > 0 {
			share = 100 * float64(c) / float64(p.TotalCycles)
		}
		first := namecell(kind)
		first.Swatch = KindColors[kind]
		kt.Rows = append(kt.Rows, row{Key: kind, Cells: []cell{first, {F: "cycles", V: u(c), Text: gu(c)},
			{V: fv(float64(c) / mhz), Text: fp(float64(c)/mhz, 2)}, {V: fv(share), Text: fp(share, 1)}}})
		if c == 0 {
			continue
		}
		w := plotW * share / 100
		fill := KindColors[kind]
		if kind == analyze.KindCompute {
			fill = KindColors["compute"]
		}
		kc.rect(x, 4, w, 18, fill, "k-"+kind, fmt.Sprintf("%s: %s cycles, %s µs, %s %% of the path", kind, gu(c), fp(float64(c)/mhz, 2), fp(share, 1)))
		if w > 60 {
			kc.text(x+4, 17, "start", "inbar", fmt.Sprintf("%s %s %%", kind, fp(share, 1)))
		}
		x += w
	}
	kc.text(labelW-6, 17, "end", "rowlabel", "by kind")
	kc.text(labelW+plotW/2, 38, "middle", "caption", "share of the critical path")
	return kc, kt
}

// pathByStage is the path's time by stage: bars (nil without stages) and
// a table.
func pathByStage(anchor, rankIdx string, p *analyze.Path, colors Colors) (*chart, *table) {
	var names, fills, titles []string
	var vals []float64
	st := &table{Name: "path_stages", Rank: rankIdx, Caption: "Critical path by stage",
		Head: []head{{Text: "stage"}, {Text: "cycles", Num: true}, {Text: "µs", Num: true}, {Text: "% of path", Num: true}}}
	for _, s := range p.ByStage {
		share := 0.0
		if p.TotalCycles > 0 {
			share = 100 * float64(s.Cycles) / float64(p.TotalCycles)
		}
		names = append(names, s.Name)
		vals = append(vals, s.Us)
		fills = append(fills, colors.Of(s.Name))
		titles = append(titles, fmt.Sprintf("%s: %s cycles, %s µs, %s %% of the path", s.Name, gu(s.Cycles), fp(s.Us, 2), fp(share, 1)))
		first := namecell(s.Name)
		first.Swatch = colors.Of(s.Name)
		st.Rows = append(st.Rows, row{Key: s.Name, Cells: []cell{first, {F: "cycles", V: u(s.Cycles), Text: gu(s.Cycles)},
			fcell("us", s.Us, 2), {V: fv(share), Text: fp(share, 1)}}})
	}
	if len(st.Rows) > MaxTableRows {
		st.Note = fmt.Sprintf("The %d largest of %d.", MaxTableRows, len(st.Rows))
		st.Rows = st.Rows[:MaxTableRows]
	}
	var c *chart
	if len(names) > 0 {
		c = barChart(anchor+"-pathstages", "The critical path's time by stage", names, vals, fills, titles, "µs on the critical path")
	}
	return c, st
}

// pathSegments is the table of the path's segments in time order, the
// longest MaxTableRows when there are more.
func pathSegments(rankIdx string, p *analyze.Path) *table {
	var segs []*analyze.Segment
	at := func(i int) *analyze.Segment { s := p.Segments.At(i); return &s }
	sgt := &table{Name: "segments", Rank: rankIdx, Caption: "Segments of the critical path, in time order",
		Head: []head{{Text: "core"}, {Text: "task_id", Num: true}, {Text: "kind"}, {Text: "task type"}, {Text: "stage"},
			{Text: "start µs", Num: true}, {Text: "µs", Num: true}, {Text: "start_cycle", Num: true}, {Text: "end_cycle", Num: true}, {Text: "cycles", Num: true}}}
	if p.Segments.Len() > MaxTableRows {
		longest := p.Segments.Longest(MaxTableRows)
		slices.Sort(longest) // in time order
		for _, i := range longest {
			segs = append(segs, at(i))
		}
		sgt.Note = fmt.Sprintf("The %d longest of %d segments.", MaxTableRows, p.Segments.Len())
	} else {
		for i := range p.Segments.Len() {
			segs = append(segs, at(i))
		}
	}
	for _, s := range segs {
		task := cell{Text: "–"}
		if s.TaskID != nil {
			task = cell{F: "task_id", V: strconv.FormatUint(uint64(*s.TaskID), 10), Text: strconv.FormatUint(uint64(*s.TaskID), 10)}
		}
		sgt.Rows = append(sgt.Rows, row{Key: u(s.StartCycle), Cells: []cell{namecell(s.Core), task,
			{F: "kind", V: s.Kind, Text: s.Kind, Class: "txt"}, {F: "task_type", V: s.TaskType, Text: s.TaskType, Class: "txt"}, {F: "stage", V: s.Stage, Text: s.Stage, Class: "txt"},
			fcell("start_us", s.StartUs, 2), fcell("duration_us", s.DurationUs, 2),
			ucell("start_cycle", s.StartCycle), ucell("end_cycle", s.EndCycle), {V: u(s.Cycles()), Text: gu(s.Cycles())}}})
	}
	return sgt
}

func newCrossView(rep *analyze.Report) *crossView {
	x := rep.CrossRank
	v := &crossView{Text: fmt.Sprintf("Slowest: rank %d. Spread: %s cycles (%s %% over the fastest). Ranks run by rank number, whatever order the captures were given in.", x.SlowestRank, gu(x.SpreadCycles), fp(x.SpreadPct, 1))}
	t := &table{Name: "cross_rank", Caption: "Makespan per rank",
		Head: []head{{Text: "rank"}, {Text: ""}, {Text: "capture"}, {Text: "makespan cycles", Num: true}, {Text: "makespan µs", Num: true}}}
	slowMarked := false
	for i, r := range x.Ranks {
		slow := r.Rank == x.SlowestRank && analyze.SameInvocation(r.Invocation, x.SlowestInvocation) && !slowMarked
		cls, mark := "", ""
		if slow {
			slowMarked = true
			cls, mark = "slowest", "slowest"
		}
		t.Rows = append(t.Rows, row{Key: strconv.Itoa(i), Class: cls, Cells: []cell{
			{F: "rank", V: strconv.FormatUint(uint64(r.Rank), 10), Text: strconv.FormatUint(uint64(r.Rank), 10), Class: "name"},
			{Text: mark, V: mark, Class: "txt bad"},
			{F: "capture", V: r.Capture, Text: r.Capture, Class: "txt"},
			ucell("makespan_cycles", r.MakespanCycles), fcell("makespan_us", r.MakespanUs, 2)}})
	}
	v.Table = t
	v.Fold = len(x.Ranks) > foldRows
	v.Columns = rankColumnsChart(x)
	if len(x.Stages) > 0 {
		v.Heat = heatMap(rep)
	}
	v.Slow = slowText(x)
	v.Spreads = spreadTable(x)
	return v
}

func slowText(x *analyze.CrossRank) string {
	if len(x.SlowRanks) == 0 {
		return "No slow rank (" + x.Rule + ")."
	}
	s := fmt.Sprintf("%d of %d ranks slow (%s):", len(x.SlowRanks), len(x.Ranks), x.Rule)
	for i, r := range x.SlowRanks {
		if i == 16 {
			return s + fmt.Sprintf(" and %d more.", len(x.SlowRanks)-16)
		}
		if i > 0 {
			s += ","
		}
		s += " " + r.String()
	}
	return s + "."
}

// spreadTable lists the stages across ranks: min, median and max compute
// cycles, who holds the extremes, and the slow ranks of each.
func spreadTable(x *analyze.CrossRank) *table {
	t := &table{Name: "stage_spread", Caption: "Stages across ranks (compute cycles)",
		Head: []head{{Text: "stage"}, {Text: "ranks", Num: true}, {Text: "min", Num: true}, {Text: "min at"}, {Text: "median", Num: true}, {Text: "max", Num: true}, {Text: "max at"}, {Text: "slow ranks", Num: true}}}
	for i, sp := range x.Stages {
		t.Rows = append(t.Rows, row{Key: strconv.Itoa(i), Cells: []cell{
			{F: "name", V: sp.Name, Text: sp.Name, Class: "name"},
			ucell("ranks", uint64(sp.Ranks)), ucell("min_cycles", sp.MinCycles),
			{V: sp.MinRank.String(), Text: sp.MinRank.String(), Class: "txt"},
			fcell("median_cycles", sp.MedianCycles, 1), ucell("max_cycles", sp.MaxCycles),
			{V: sp.MaxRank.String(), Text: sp.MaxRank.String(), Class: "txt"},
			{V: strconv.Itoa(len(sp.Slow)), Text: strconv.Itoa(len(sp.Slow)), Class: "num"}}})
	}
	return t
}

func newDiffView(index int, r *analyze.RankDiff) *diffView {
	rankIdx := strconv.Itoa(index)
	v := &diffView{Title: fmt.Sprintf("Rank %d: %s → %s", r.Rank, r.BaseCapture, r.NewCapture)}
	dcells := func(f string, d analyze.Delta, prec int) []cell {
		rel := cell{Text: "–"}
		if d.RelPct != nil {
			rel = cell{F: f + ".rel_pct", V: fv(*d.RelPct), Text: signed(*d.RelPct, 1), Class: signClass(*d.RelPct)}
		}
		return []cell{fcell(f+".base", d.Base, prec), fcell(f+".new", d.New, prec),
			{F: f + ".abs", V: fv(d.Abs), Text: signed(d.Abs, prec), Class: signClass(d.Abs)}, rel}
	}
	sum := &table{Name: "diff_summary", Rank: rankIdx, Caption: "Summary: base, new and change",
		Head: []head{{Text: "metric"}, {Text: "base", Num: true}, {Text: "new", Num: true}, {Text: "Δ", Num: true}, {Text: "Δ %", Num: true}}}
	sum.Rows = append(sum.Rows, row{Key: "makespan_cycles", Cells: append([]cell{namecell("makespan cycles")}, dcells("makespan_cycles", r.Makespan, 0)...)})
	var keys []string
	for k := range r.BusyPct {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sum.Rows = append(sum.Rows, row{Key: "busy_pct." + k, Cells: append([]cell{namecell("busy % " + k)}, dcells("busy_pct."+k, r.BusyPct[k], 2)...)})
	}
	for _, k := range keys {
		sum.Rows = append(sum.Rows, row{Key: "imbalance." + k, Cells: append([]cell{namecell("imbalance " + k)}, dcells("imbalance."+k, r.Imbalance[k], 3)...)})
	}
	v.Summary = sum
	groups := func(name, caption, col string, gs []analyze.GroupDiff) *table {
		t := &table{Name: name, Rank: rankIdx, Caption: caption,
			Head: []head{{Text: col}, {Text: "count", Num: true}, {Text: "Δ count", Num: true}, {Text: "total", Num: true}, {Text: "Δ total", Num: true},
				{Text: "Δ total %", Num: true}, {Text: "mean", Num: true}, {Text: "Δ mean", Num: true}, {Text: "p90", Num: true}, {Text: "Δ p90", Num: true}}}
		if len(gs) > MaxTableRows {
			t.Note = fmt.Sprintf("The %d largest changes of %d.", MaxTableRows, len(gs))
			gs = gs[:MaxTableRows]
		}
		for _, g := range gs {
			rel := cell{Text: "–"}
			if d := g.TotalCycles.RelPct; d != nil {
				rel = cell{F: "total_cycles.rel_pct", V: fv(*d), Text: signed(*d, 1), Class: signClass(*d)}
			}
			dc := func(f string, d analyze.Delta, prec int) cell {
				return cell{F: f + ".abs", V: fv(d.Abs), Text: signed(d.Abs, prec), Class: signClass(d.Abs)}
			}
			first := namecell(g.Name)
			if !g.InBase {
				first.Text += " (new)"
			} else if !g.InNew {
				first.Text += " (gone)"
			}
			t.Rows = append(t.Rows, row{Key: g.Name, Cells: []cell{first,
				fcell("count.new", g.Count.New, 0), dc("count", g.Count, 0),
				fcell("total_cycles.new", g.TotalCycles.New, 0), dc("total_cycles", g.TotalCycles, 0), rel,
				fcell("mean_cycles.new", g.MeanCycles.New, 1), dc("mean_cycles", g.MeanCycles, 1),
				fcell("p90_cycles.new", g.P90Cycles.New, 0), dc("p90_cycles", g.P90Cycles, 0)}})
		}
		return t
	}
	v.TaskTypes = groups("diff_task_types", "Task types (cycles, new and change)", "task type", r.TaskTypes)
	v.Stages = groups("diff_stages", "Stages (cycles, new and change)", "stage", r.Stages)
	return v
}
