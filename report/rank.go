package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
)

// Geometry shared by the charts, in SVG user units (the page scales them).
const (
	labelW = 78.0
	plotW  = float64(TimelineBins)
	rightW = 14.0
	chartW = labelW + plotW + rightW
)

func newRankView(i int, k *analyze.Rank, tl *analyze.Timeline, colors Colors, multi bool) *rankView {
	v := &rankView{Index: i, Anchor: "r" + strconv.Itoa(i)}
	if multi {
		v.Title = fmt.Sprintf("Rank %d · %s", k.Rank, k.Capture)
		if k.Invocation != nil {
			v.Title = fmt.Sprintf("Rank %d · %s · %s", k.Rank, k.Invocation, k.Capture)
		}
	}
	if tl != nil {
		v.Timeline, v.Legend, v.TLNote = timelineChart(v.Anchor, k, tl, colors)
	} else {
		v.TLNote = "No timeline was binned for this rank."
	}
	v.coresSection(k)
	v.Groups = []groupView{
		statGroup(v.Anchor, "task_types", "Task types (compute records)", "task type", k, k.TaskTypes, colors),
		statGroup(v.Anchor, "stages", "Stages (compute records)", "stage", k, k.Stages, colors),
		statGroup(v.Anchor, "waits", "Waits, by the stage of the waiting task", "waiting stage", k, k.Waits, colors),
	}
	if k.CriticalPath != nil {
		v.Path = newPathView(v.Anchor, i, k, colors)
	} else {
		v.PathNote = "No schedule was given (--plan SCHEDULE): without the dependencies only per-core chains are known, so there is no critical path."
	}
	return v
}

// coreRow is a row of the per-core charts: one core, or consecutive
// cores of one region summed.
type coreRow struct {
	Name    string
	Members []string
	analyze.Core
}

// withRecords keeps the cores that wrote records.
func withRecords(cores []analyze.Core) []analyze.Core {
	var active []analyze.Core
	for _, c := range cores {
		if c.Records > 0 {
			active = append(active, c)
		}
	}
	return active
}

// groupCores makes a row of each core, grouping consecutive ones of a
// region, the same number in each row (the least that keeps within
// maxRows rows). It is the one rule of every chart with a row per core
// (the timeline, the per-core bars, the critical path's Gantt), so the
// same cores get the same rows in each.
func groupCores(active []analyze.Core, maxRows int) []coreRow {
	var runs []int // cores of each region, in order
	for i, c := range active {
		if i == 0 || active[i-1].CoreType != c.CoreType {
			runs = append(runs, 0)
		}
		runs[len(runs)-1]++
	}
	size := max(1, (len(active)+maxRows-1)/maxRows)
	for ; size < len(active); size++ {
		rows := 0
		for _, r := range runs {
			rows += (r + size - 1) / size
		}
		if rows <= maxRows {
			break
		}
	}
	var rows []coreRow
	for _, c := range active {
		if n := len(rows); n > 0 && len(rows[n-1].Members) < size && rows[n-1].CoreType == c.CoreType {
			r := &rows[n-1]
			r.Members = append(r.Members, c.Core)
			r.Name = r.Members[0] + "–" + strconv.FormatUint(uint64(c.BlockID), 10)
			r.Records += c.Records
			r.EntryCycle = min(r.EntryCycle, c.EntryCycle)
			r.EndCycle = max(r.EndCycle, c.EndCycle)
			r.ComputeCycles += c.ComputeCycles
			r.WaitCycles += c.WaitCycles
			r.TriggerCycles += c.TriggerCycles
			r.OtherCycles += c.OtherCycles
			r.IdleCycles += c.IdleCycles
			continue
		}
		rows = append(rows, coreRow{Name: c.Core, Members: []string{c.Core}, Core: c})
	}
	return rows
}

// rowIndex maps each member core of rows to its row.
func rowIndex(rows []coreRow) map[string]int {
	rowOf := map[string]int{}
	for r, g := range rows {
		for _, m := range g.Members {
			rowOf[m] = r
		}
	}
	return rowOf
}

// rowHeight is the height of each of a chart's rows: 11 units up to 72
// rows (every entered core of a 24-block kernel), less beyond, 8.25 at
// MaxChartRows (row labels are drawn down to 8), never under 4.
func rowHeight(rows int) float64 {
	return max(4, min(11, 792/float64(max(rows, 1))))
}

func coreTitle(c *analyze.Core, mhz float64) string {
	us := func(v uint64) string { return fp(float64(v)/mhz, 1) + " µs" }
	return fmt.Sprintf("%s: %s records · compute %s · wait %s · trigger %s · other %s · idle %s (span %s)",
		c.Core, gu(c.Records), us(c.ComputeCycles), us(c.WaitCycles), us(c.TriggerCycles), us(c.OtherCycles), us(c.IdleCycles), us(c.SpanCycles()))
}

// timelineChart draws one row per entered core (AIC then AIV: analyze's
// Rank.Cores, those that wrote no record too, drawn idle), each bin in
// the color of what took most of it, and the critical path over it.
func timelineChart(anchor string, k *analyze.Rank, tl *analyze.Timeline, colors Colors) (*chart, []legendItem, string) {
	groups := groupCores(k.Cores, MaxChartRows)
	rowOf := rowIndex(groups)
	bins := rowBins(groups, rowOf, tl)
	rowH := rowHeight(len(groups))
	top := 6.0
	gap := 6.0 // between AIC and AIV
	ys := make([]float64, len(groups))
	y := top
	for r, g := range groups {
		if r > 0 && groups[r-1].CoreType != g.CoreType {
			y += gap
		}
		ys[r] = y
		y += rowH
	}
	plotBottom := y + 2
	c := &chart{ID: anchor + "-timeline", Class: "timeline", W: chartW, H: plotBottom + 40,
		Label: "Timeline overview: one row per core, time on x, each pixel in the color of what took most of it"}
	// Row backgrounds and labels.
	for r, g := range groups {
		bg := ""
		if g.Records == 0 {
			bg = g.Name + ": idle throughout (entered, wrote no record)"
			if len(g.Members) > 1 {
				bg = fmt.Sprintf("%s: idle throughout (%d entered cores, no record)", g.Name, len(g.Members))
			}
		}
		c.rect(labelW, ys[r], plotW, rowH-1, "", "rowbg", bg)
		if rowH >= 8 {
			c.Texts = append(c.Texts, text{X: n(labelW - 6), Y: n(ys[r] + rowH - 2.5), Anchor: "end", Class: "rowlabel", Text: g.Name,
				Title: coreTitle(&g.Core, k.CycleFrequencyMHz)})
		}
	}
	typeUse := map[int]int{}
	for r, g := range groups {
		timelineRow(c, k, tl, g, bins[r], ys[r], rowH, colors, typeUse)
	}
	var legend []legendItem
	for t, name := range tl.TaskTypes {
		if typeUse[t] > 0 {
			legend = append(legend, legendItem{Name: name, Color: colors.Of(name)})
		}
	}
	slices.SortFunc(legend, func(a, b legendItem) int { return strings.Compare(a.Name, b.Name) })
	if pathOverTimeline(c, k, tl, rowOf, ys, rowH) {
		legend = append(legend, legendItem{Name: "critical path", Class: "legend-path"})
	}
	// Region labels between the groups.
	c.xAxis(labelW, plotW, top, plotBottom, float64(k.MakespanCycles)/k.CycleFrequencyMHz, "µs since the first core entered")
	return c, legend, timelineNote(k, tl, groups)
}

// binAcc sums a timeline row's bin over its member cores: the cycles of
// each kind, and the task type with the most compute of any member (+1;
// 0 for none).
type binAcc struct {
	compute, wait, trigger, other uint64
	typ                           int
	typCompute                    uint64
}

// rowBins sums the timeline's bins by row: bins[r][b] sums the members
// of row r.
func rowBins(groups []coreRow, rowOf map[string]int, tl *analyze.Timeline) [][]binAcc {
	bins := make([][]binAcc, len(groups))
	for r := range bins {
		bins[r] = make([]binAcc, tl.Bins)
	}
	for _, ct := range tl.Cores {
		r, ok := rowOf[ct.Core]
		if !ok {
			continue
		}
		for b, x := range ct.Bins {
			a := &bins[r][b]
			a.compute += x.Compute
			a.wait += x.Wait
			a.trigger += x.Trigger
			a.other += x.Other
			if x.TaskType >= 0 && (a.typCompute == 0 || x.Compute > a.typCompute) {
				a.typ, a.typCompute = x.TaskType+1, x.Compute
			}
		}
	}
	return bins
}

// binKey is what took most of a row's bin b: "t<N>" (task type N-1),
// "compute" (of no known type), "wait", "trigger", "other", or "" (idle).
func binKey(k *analyze.Rank, tl *analyze.Timeline, g coreRow, a binAcc, b int) string {
	key := ""
	lo := tl.StartCycle + uint64(b)*tl.BinCycles
	length := uint64(0)
	if lo < k.EndCycle {
		length = min(tl.BinCycles, k.EndCycle-lo) * uint64(len(g.Members))
	}
	busy := a.compute + a.wait + a.trigger + a.other
	idle := uint64(0)
	if length > busy {
		idle = length - busy
	}
	best := idle
	if a.compute > best {
		best, key = a.compute, "t"+strconv.Itoa(a.typ)
	}
	if a.wait > best {
		best, key = a.wait, "wait"
	}
	if a.trigger > best {
		best, key = a.trigger, "trigger"
	}
	if a.other > best {
		key = "other"
	}
	if key == "t0" {
		key = "compute"
	}
	return key
}

// timelineRow draws one row of the timeline at y: a path per color, of
// the runs of bins that color takes; typeUse counts the task types drawn.
func timelineRow(c *chart, k *analyze.Rank, tl *analyze.Timeline, g coreRow, bins []binAcc, y, rowH float64, colors Colors, typeUse map[int]int) {
	nb := tl.Bins
	xs := func(b int) float64 { return labelW + plotW*float64(b)/float64(nb) }
	ds := map[string]*strings.Builder{}
	counts := map[string]int{}
	var order []string
	runKey, runStart := "", 0
	flush := func(b int) {
		if runKey == "" {
			return
		}
		sb := ds[runKey]
		if sb == nil {
			sb = &strings.Builder{}
			ds[runKey] = sb
			order = append(order, runKey)
		}
		fmt.Fprintf(sb, "M%s %sh%sv%sh-%sz", n(xs(runStart)), n(y), n(xs(b)-xs(runStart)), n(rowH-1), n(xs(b)-xs(runStart)))
		counts[runKey] += b - runStart
	}
	for b := 0; b <= nb; b++ {
		key := ""
		if b < nb {
			key = binKey(k, tl, g, bins[b], b)
		}
		if key != runKey || b == nb {
			flush(b)
			runKey, runStart = key, b
		}
	}
	for _, key := range order {
		fill, name := KindColors[key], key
		if strings.HasPrefix(key, "t") && key != "trigger" {
			t, _ := strconv.Atoi(key[1:])
			name = tl.TaskTypes[t-1]
			fill = colors.Of(name)
			typeUse[t-1]++
		} else if key == "compute" {
			name = "compute"
			fill = KindColors["compute"]
		}
		c.Paths = append(c.Paths, path{D: ds[key].String(), Fill: fill,
			Title: fmt.Sprintf("%s · %s: most of %d of %d bins (%s µs each)", g.Name, name, counts[key], nb, fp(float64(tl.BinCycles)/k.CycleFrequencyMHz, 2))})
	}
}

// pathOverTimeline draws the critical path over the timeline, sampled at
// each bin's middle, and tells whether there was one to draw.
func pathOverTimeline(c *chart, k *analyze.Rank, tl *analyze.Timeline, rowOf map[string]int, ys []float64, rowH float64) bool {
	p := k.CriticalPath
	if p == nil || p.Segments.Len() == 0 {
		return false
	}
	nb := tl.Bins
	xs := func(b int) float64 { return labelW + plotW*float64(b)/float64(nb) }
	var d strings.Builder
	seg, lastRow := 0, -1
	for b := 0; b < nb; b++ {
		mid := tl.StartCycle + uint64(b)*tl.BinCycles + tl.BinCycles/2
		if mid < p.StartCycle || mid >= p.EndCycle {
			continue
		}
		for seg < p.Segments.Len()-1 && p.Segments.At(seg).EndCycle <= mid {
			seg++
		}
		r, ok := rowOf[p.Segments.At(seg).Core]
		if !ok {
			continue
		}
		yc := ys[r] + (rowH-1)/2
		switch {
		case lastRow < 0:
			fmt.Fprintf(&d, "M%s %s", n(xs(b)), n(yc))
		case r != lastRow:
			fmt.Fprintf(&d, "H%sV%s", n(xs(b)), n(yc))
		}
		lastRow = r
	}
	if lastRow < 0 {
		return false
	}
	fmt.Fprintf(&d, "H%s", n(xs(nb)))
	title := fmt.Sprintf("critical path: %s µs, %d segments", fp(p.TotalUs, 1), p.Segments.Len())
	c.Over = append(c.Over, path{D: d.String(), Fill: "none", Stroke: "#FFFFFF", StrokeWidth: "3.2", Class: "halo"},
		path{D: d.String(), Fill: "none", Stroke: "#000000", StrokeWidth: "1.4", Class: "critpath", Title: title})
	return true
}

// timelineNote says how the timeline was binned and grouped, and how many
// cores wrote nothing.
func timelineNote(k *analyze.Rank, tl *analyze.Timeline, groups []coreRow) string {
	note := fmt.Sprintf("%d rows, %d bins of %s cycles (%s µs); each bin shows what took most of its time.", len(groups), tl.Bins, gu(tl.BinCycles), fp(float64(tl.BinCycles)/k.CycleFrequencyMHz, 3))
	if len(groups) > 0 && len(groups[0].Members) > 1 || anyGrouped(groups) {
		note += fmt.Sprintf(" More than %d entered cores: consecutive cores share a row.", MaxChartRows)
	}
	idle := 0
	for _, core := range k.Cores {
		if core.Records == 0 {
			idle++
		}
	}
	if idle > 0 {
		note += fmt.Sprintf(" %d entered cores wrote no record: their rows are idle throughout.", idle)
	}
	return note
}

func anyGrouped(gs []coreRow) bool {
	for _, g := range gs {
		if len(g.Members) > 1 {
			return true
		}
	}
	return false
}

// coresSection draws the stacked bar per core and the tables.
func (v *rankView) coresSection(k *analyze.Rank) {
	mhz := k.CycleFrequencyMHz
	for _, name := range sortedRegions(k) {
		r := k.Regions[name]
		v.Regions = append(v.Regions, fmt.Sprintf("%s: %d cores entered, %d with records; busy %s %%, waiting %s %%, imbalance %s (the busiest core's compute over the mean).",
			name, r.Cores, r.ActiveCores, fp(r.BusyPct, 1), fp(r.WaitPct, 1), fp(r.Imbalance, 2)))
	}
	groups := groupCores(withRecords(k.Cores), MaxChartRows)
	var most uint64
	for _, g := range groups {
		most = max(most, g.ComputeCycles+g.WaitCycles+g.TriggerCycles+g.OtherCycles+g.IdleCycles)
	}
	rowH := rowHeight(len(groups))
	top := 6.0
	y := top
	c := &chart{ID: v.Anchor + "-cores", Class: "corebars", W: chartW,
		Label: "Where each core's time went: a stacked bar per core of compute, wait, trigger, other and idle time"}
	for r, g := range groups {
		if r > 0 && groups[r-1].CoreType != g.CoreType {
			y += 6
		}
		x := labelW
		if rowH >= 8 {
			c.Texts = append(c.Texts, text{X: n(labelW - 6), Y: n(y + rowH - 2.5), Anchor: "end", Class: "rowlabel", Text: g.Name,
				Title: coreTitle(&g.Core, mhz)})
		}
		span := g.SpanCycles()
		for _, part := range []struct {
			kind string
			v    uint64
		}{{"compute", g.ComputeCycles}, {"wait", g.WaitCycles}, {"trigger", g.TriggerCycles}, {"other", g.OtherCycles}, {"idle", g.IdleCycles}} {
			if part.v == 0 || most == 0 {
				continue
			}
			w := plotW * float64(part.v) / float64(most)
			pct := 0.0
			if span > 0 {
				pct = 100 * float64(part.v) / float64(span)
			}
			c.rect(x, y, w, rowH-1, KindColors[part.kind], "k-"+part.kind,
				fmt.Sprintf("%s %s: %s cycles, %s µs, %s %% of its span", g.Name, part.kind, gu(part.v), fp(float64(part.v)/mhz, 1), fp(pct, 1)))
			x += w
		}
		y += rowH
	}
	c.H = y + 42
	c.xAxis(labelW, plotW, top, y+2, float64(most)/mhz, "µs of each core's time (its span: first entry to last record end)")
	v.Cores = c
	idle := 0
	for _, core := range k.Cores {
		if core.Records == 0 {
			idle++
		}
	}
	if idle > 0 {
		v.CoreNote = fmt.Sprintf("%d entered cores wrote no record (no bar: their span is empty; idle rows in the timeline, and in the table).", idle)
	}
	if anyGrouped(groups) {
		v.CoreNote += fmt.Sprintf(" More than %d cores with records: consecutive cores share a bar (their sums).", MaxChartRows)
	}
	// Regions table.
	rt := &table{Name: "regions", Rank: strconv.Itoa(v.Index), Caption: "Regions (cycles)",
		Head: []head{{Text: "region"}, {Text: "cores", Num: true}, {Text: "with records", Num: true}, {Text: "span", Num: true},
			{Text: "compute", Num: true}, {Text: "wait", Num: true}, {Text: "trigger", Num: true}, {Text: "other", Num: true},
			{Text: "idle", Num: true}, {Text: "busy %", Num: true}, {Text: "wait %", Num: true}, {Text: "imbalance", Num: true}}}
	add := func(key string, t *analyze.Totals) {
		rt.Rows = append(rt.Rows, row{Key: key, Cells: []cell{namecell(key),
			{F: "cores", V: strconv.Itoa(t.Cores), Text: strconv.Itoa(t.Cores)},
			{F: "active_cores", V: strconv.Itoa(t.ActiveCores), Text: strconv.Itoa(t.ActiveCores)},
			ucell("span_cycles", t.SpanCycles), ucell("compute_cycles", t.ComputeCycles), ucell("wait_cycles", t.WaitCycles),
			ucell("trigger_cycles", t.TriggerCycles), ucell("other_cycles", t.OtherCycles), ucell("idle_cycles", t.IdleCycles),
			fcell("busy_pct", t.BusyPct, 1), fcell("wait_pct", t.WaitPct, 1), fcell("imbalance", t.Imbalance, 2)}})
	}
	for _, name := range sortedRegions(k) {
		add(name, k.Regions[name])
	}
	if k.Totals != nil {
		add("rank", k.Totals)
	}
	v.RegTable = rt
	// Cores table.
	ct := &table{Name: "cores", Rank: strconv.Itoa(v.Index), Caption: "Every entered core (cycles)",
		Head: []head{{Text: "core"}, {Text: "entry_cycle", Num: true}, {Text: "end_cycle", Num: true}, {Text: "records", Num: true},
			{Text: "compute", Num: true}, {Text: "wait", Num: true}, {Text: "trigger", Num: true}, {Text: "other", Num: true},
			{Text: "idle", Num: true}, {Text: "busy %", Num: true}}}
	cores := k.Cores
	if len(cores) > MaxTableRows {
		ct.Note = fmt.Sprintf("The first %d of %d cores.", MaxTableRows, len(cores))
		cores = cores[:MaxTableRows]
	}
	for _, core := range cores {
		busy := 0.0
		if s := core.SpanCycles(); s > 0 {
			busy = 100 * float64(core.ComputeCycles) / float64(s)
		}
		ct.Rows = append(ct.Rows, row{Key: core.Core, Cells: []cell{namecell(core.Core),
			ucell("entry_cycle", core.EntryCycle), ucell("end_cycle", core.EndCycle), ucell("records", core.Records),
			ucell("compute_cycles", core.ComputeCycles), ucell("wait_cycles", core.WaitCycles), ucell("trigger_cycles", core.TriggerCycles),
			ucell("other_cycles", core.OtherCycles), ucell("idle_cycles", core.IdleCycles),
			{V: fv(busy), Text: fp(busy, 1)}}})
	}
	v.CoreTab = ct
}

// barChart draws horizontal bars of named values (µs), largest first as
// given; at most maxBars.
func barChart(id, label string, names []string, values []float64, fills []string, titles []string, unit string) *chart {
	const maxBars = 24
	if len(names) > maxBars {
		names, values, fills, titles = names[:maxBars], values[:maxBars], fills[:maxBars], titles[:maxBars]
	}
	nameW, w, rowH := 112.0, 250.0, 16.0
	c := &chart{ID: id, Class: "bars", W: nameW + w + 56, Label: label}
	var most float64
	for _, v := range values {
		most = max(most, v)
	}
	top := 4.0
	for i, name := range names {
		y := top + float64(i)*rowH
		c.Texts = append(c.Texts, text{X: n(nameW - 6), Y: n(y + rowH - 5), Anchor: "end", Class: "rowlabel", Text: clip(name, 18), Title: name})
		bw := 0.0
		if most > 0 {
			bw = w * values[i] / most
		}
		c.rect(nameW, y+1, max(bw, 0.5), rowH-3, fills[i], "bar", titles[i])
		c.text(nameW+bw+4, y+rowH-5, "start", "value", fp(values[i], 1))
	}
	bottom := top + float64(len(names))*rowH + 2
	c.xAxis(nameW, w, top, bottom, most, unit)
	c.H = bottom + 40
	return c
}

func clip(s string, most int) string {
	r := []rune(s)
	if len(r) <= most {
		return s
	}
	return string(r[:most-1]) + "…"
}

func statGroup(anchor, name, title, col string, k *analyze.Rank, stats []analyze.Stat, colors Colors) groupView {
	mhz := k.CycleFrequencyMHz
	g := groupView{Title: title}
	if len(stats) == 0 {
		return g
	}
	var total uint64
	for _, s := range stats {
		total += s.TotalCycles
	}
	var names, fills, titles []string
	var vals []float64
	for _, s := range stats {
		names = append(names, s.Name)
		vals = append(vals, float64(s.TotalCycles)/mhz)
		fills = append(fills, colors.Of(s.Name))
		titles = append(titles, fmt.Sprintf("%s: %s records, %s cycles in all (%s µs), mean %s, p90 %s, max %s cycles",
			s.Name, gu(s.Count), gu(s.TotalCycles), fp(float64(s.TotalCycles)/mhz, 1), fp(s.MeanCycles, 1), gu(s.P90Cycles), gu(s.MaxCycles)))
	}
	g.Chart = barChart(anchor+"-"+name, title+": total time", names, vals, fills, titles, "total µs")
	t := &table{Name: name, Rank: strings.TrimPrefix(anchor, "r"), Caption: title + " (cycles)",
		Head: []head{{Text: col}, {Text: "count", Num: true}, {Text: "total", Num: true}, {Text: "total µs", Num: true}, {Text: "share %", Num: true},
			{Text: "mean", Num: true}, {Text: "p50", Num: true}, {Text: "p90", Num: true}, {Text: "p99", Num: true}, {Text: "max", Num: true}}}
	rows := stats
	if len(rows) > MaxTableRows {
		t.Note = fmt.Sprintf("The %d largest of %d.", MaxTableRows, len(rows))
		rows = rows[:MaxTableRows]
	}
	for _, s := range rows {
		share := 0.0
		if total > 0 {
			share = 100 * float64(s.TotalCycles) / float64(total)
		}
		first := namecell(s.Name)
		first.Swatch = colors.Of(s.Name)
		if !s.Exact {
			first.Text += " ≈"
		}
		t.Rows = append(t.Rows, row{Key: s.Name, Cells: []cell{first,
			ucell("count", s.Count), ucell("total_cycles", s.TotalCycles),
			{V: fv(float64(s.TotalCycles) / mhz), Text: fp(float64(s.TotalCycles)/mhz, 1)},
			{V: fv(share), Text: fp(share, 1)},
			fcell("mean_cycles", s.MeanCycles, 1), ucell("p50_cycles", s.P50Cycles), ucell("p90_cycles", s.P90Cycles),
			ucell("p99_cycles", s.P99Cycles), ucell("max_cycles", s.MaxCycles)}})
	}
	g.Table = t
	return g
}
