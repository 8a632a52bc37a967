package analyze

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// NewReport gathers the analyses of one or more captures, with the
// cross-rank comparison when there are several (ranks, or invocations of
// a window). It puts ranks in rank order, in place (CompareSections): the
// order the captures were given never shows in the report, and every tie
// (the slowest of equal makespans, a stage's min or max, the slow ranks
// of equal cycles) goes to the lower rank.
func NewReport(ranks []*Rank) *Report {
	slices.SortStableFunc(ranks, CompareSections)
	r := &Report{ABIVersion: abi.Version, ABIFingerprint: abi.FingerprintHex, Ranks: ranks}
	if len(ranks) < 2 {
		return r
	}
	x := &CrossRank{}
	lo, hi := ranks[0].MakespanCycles, ranks[0].MakespanCycles
	slowest := ranks[0]
	for _, k := range ranks {
		x.Ranks = append(x.Ranks, RankMakespan{Rank: k.Rank, Invocation: k.Invocation, Capture: k.Capture, MakespanCycles: k.MakespanCycles, MakespanUs: k.MakespanUs})
		if k.MakespanCycles > hi {
			hi, slowest = k.MakespanCycles, k
		}
		lo = min(lo, k.MakespanCycles)
	}
	x.SlowestRank = slowest.Rank
	if slowest.Invocation != nil {
		id := slowest.Invocation.ID
		x.SlowestInvocation = &id
	}
	x.SpreadCycles = hi - lo
	if lo > 0 {
		x.SpreadPct = 100 * float64(hi-lo) / float64(lo)
	}
	compareRanks(x, ranks)
	x.Stopped = stoppedSections(ranks)
	r.CrossRank = x
	return r
}

// WriteJSON writes the report as one indented JSON document, the bytes
// json.MarshalIndent(r, "", "  ") would give. It is written a rank at a
// time, and each critical path's segments (up to two per record) one at a
// time, so that the document is never whole in memory: at 1,024 ranks it
// is tens of megabytes.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	field := func(key string, v any, last bool) error {
		b, err := json.MarshalIndent(v, "  ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("  \"" + key + "\": ")
		bw.Write(b)
		if !last {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		return nil
	}
	bw.WriteString("{\n")
	if err := field("abi_version", r.ABIVersion, false); err != nil {
		return err
	}
	if err := field("abi_fingerprint", r.ABIFingerprint, false); err != nil {
		return err
	}
	bw.WriteString(`  "ranks": `)
	switch {
	case r.Ranks == nil:
		bw.WriteString("null")
	case len(r.Ranks) == 0:
		bw.WriteString("[]")
	default:
		bw.WriteString("[\n")
		for i, k := range r.Ranks {
			bw.WriteString("    ")
			if err := writeRank(bw, k, "    "); err != nil {
				return err
			}
			if i < len(r.Ranks)-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("  ]")
	}
	bw.WriteString(",\n")
	if err := field("cross_rank", r.CrossRank, r.Inputs == nil); err != nil {
		return err
	}
	if r.Inputs != nil {
		if err := field("inputs", r.Inputs, true); err != nil {
			return err
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeRank writes k as json.MarshalIndent would at prefix, its critical
// path's segments one at a time.
func writeRank(bw *bufio.Writer, k *Rank, prefix string) error {
	var segs *Segments
	var saved Segments
	if p := k.CriticalPath; p != nil {
		saved, segs = p.Segments, &saved
		p.Segments = Segments{}
	}
	b, err := json.MarshalIndent(k, prefix, "  ")
	if segs != nil {
		k.CriticalPath.Segments = saved
	}
	if err != nil {
		return err
	}
	if segs != nil {
		// The path's "segments": null is its segments.
		marker := []byte(`"segments": null`)
		at := bytes.Index(b, marker)
		if at < 0 {
			return errors.New("analyze: a critical path's segments are not in its JSON")
		}
		indent := string(b[bytes.LastIndexByte(b[:at], '\n')+1 : at])
		bw.Write(b[:at+len(marker)-len("null")])
		b = b[at+len(marker):]
		if err := writeSegments(bw, segs, indent); err != nil {
			return err
		}
	}
	bw.Write(b)
	return nil
}

// writeSegments writes segs as json.MarshalIndent would inside an object
// whose keys are indented by indent.
func writeSegments(w *bufio.Writer, segs *Segments, indent string) error {
	switch {
	case segs.packed == nil:
		w.WriteString("null")
		return nil
	case segs.Len() == 0:
		w.WriteString("[]")
		return nil
	}
	w.WriteString("[\n")
	n := segs.Len()
	for i := range n {
		seg := segs.At(i)
		b, err := json.MarshalIndent(&seg, indent+"  ", "  ")
		if err != nil {
			return err
		}
		w.WriteString(indent + "  ")
		w.Write(b)
		if i < n-1 {
			w.WriteByte(',')
		}
		w.WriteByte('\n')
	}
	w.WriteString(indent + "]")
	return nil
}

// Tables are the names of the tables WriteCSV writes.
var Tables = []string{"cores", "types", "stages", "owners", "waits", "path"}

// table is a titled grid of cells; the first column is a name (left
// aligned in text), the rest numbers.
type table struct {
	title string
	head  []string
	rows  [][]string
	// omitted counts rows left out by --top; omittedWhich says which
	// ("" when they are the last ones).
	omitted      int
	omittedWhich string
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
func f1(v float64) string {
	return strconv.FormatFloat(v, 'f', 1, 64)
}
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func (k *Rank) us(c uint64) string { return f2(float64(c) / k.CycleFrequencyMHz) }

func (k *Rank) coresTable() *table {
	t := &table{title: "Where each core's time went (cycles)",
		head: []string{"core", "entry_cycle", "end_cycle", "records", "compute", "wait", "trigger", "other", "idle", "busy %"}}
	for _, c := range k.Cores {
		busy := 0.0
		if s := c.SpanCycles(); s > 0 {
			busy = 100 * float64(c.ComputeCycles) / float64(s)
		}
		t.rows = append(t.rows, []string{c.Core, u(c.EntryCycle), u(c.EndCycle), u(c.Records), u(c.ComputeCycles),
			u(c.WaitCycles), u(c.TriggerCycles), u(c.OtherCycles), u(c.IdleCycles), f1(busy)})
	}
	return t
}

// topCores is the cores table cut to the n cores (0: all) with the most
// compute, the ones the region's imbalance points at, in core order.
func (k *Rank) topCores(n int) *table {
	t := k.coresTable()
	if n <= 0 || len(t.rows) <= n {
		return t
	}
	order := make([]int, len(k.Cores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(k.Cores[b].ComputeCycles, k.Cores[a].ComputeCycles)
	})
	kept := order[:n]
	slices.Sort(kept)
	rows := make([][]string, 0, n)
	for _, i := range kept {
		rows = append(rows, t.rows[i])
	}
	t.omitted, t.omittedWhich = len(t.rows)-n, "cores with less compute"
	t.rows = rows
	return t
}

func (k *Rank) regionsTable() *table {
	t := &table{title: "Regions (cycles)",
		head: []string{"region", "cores", "active", "span", "compute", "wait", "trigger", "other", "idle", "busy %", "wait %", "imbalance"}}
	names := make([]string, 0, len(k.Regions))
	for n := range k.Regions {
		names = append(names, n)
	}
	slices.Sort(names)
	add := func(name string, r *Totals) {
		t.rows = append(t.rows, []string{name, strconv.Itoa(r.Cores), strconv.Itoa(r.ActiveCores), u(r.SpanCycles),
			u(r.ComputeCycles), u(r.WaitCycles), u(r.TriggerCycles), u(r.OtherCycles), u(r.IdleCycles),
			f1(r.BusyPct), f1(r.WaitPct), f2(r.Imbalance)})
	}
	for _, n := range names {
		add(n, k.Regions[n])
	}
	if k.Totals != nil {
		add("rank", k.Totals)
	}
	return t
}

func (k *Rank) statTable(title, col string, stats []Stat) *table {
	t := &table{title: title, head: []string{col, "count", "total", "total µs", "mean", "p50", "p90", "p99", "max", "mean µs"}}
	for _, s := range stats {
		t.rows = append(t.rows, []string{s.Name, u(s.Count), u(s.TotalCycles), k.us(s.TotalCycles), f1(s.MeanCycles),
			u(s.P50Cycles), u(s.P90Cycles), u(s.P99Cycles), u(s.MaxCycles), f2(s.MeanCycles / k.CycleFrequencyMHz)})
	}
	return t
}

// pathHead is the head of the tables of critical-path segments.
var pathHead = []string{"core", "task_id", "kind", "task_type", "stage", "start_cycle", "end_cycle", "cycles", "start µs", "µs"}

func (k *Rank) pathTable() *table {
	t := &table{title: "Critical path segments", head: pathHead}
	if k.CriticalPath == nil {
		return t
	}
	segs := &k.CriticalPath.Segments
	for i := range segs.Len() {
		seg := segs.At(i)
		t.rows = append(t.rows, segmentRow(&seg))
	}
	return t
}

func segmentRow(s *Segment) []string {
	task := ""
	if s.TaskID != nil {
		task = u(uint64(*s.TaskID))
	}
	return []string{s.Core, task, s.Kind, s.TaskType, s.Stage, u(s.StartCycle), u(s.EndCycle),
		u(s.Cycles()), f2(s.StartUs), f2(s.DurationUs)}
}

// longestTable is the table of the n longest segments of the critical
// path (0: all), longest first, ties in time order. Only the rows shown
// are rendered: a path has up to two segments per record.
func (k *Rank) longestTable(n int) *table {
	segs := &k.CriticalPath.Segments
	t := &table{title: "Critical path: longest segments", head: pathHead}
	order := segs.Longest(n)
	t.omitted = segs.Len() - len(order)
	for _, i := range order {
		seg := segs.At(i)
		t.rows = append(t.rows, segmentRow(&seg))
	}
	return t
}

func (k *Rank) pathSummaryTables() []*table {
	p := k.CriticalPath
	pct := func(c uint64) string {
		if p.TotalCycles == 0 {
			return "0.0"
		}
		return f1(100 * float64(c) / float64(p.TotalCycles))
	}
	kinds := &table{title: "Critical path by kind", head: []string{"kind", "cycles", "µs", "% of path"}}
	for _, kind := range []string{KindCompute, KindWait, KindTrigger, KindOther, KindGap, KindLaunch} {
		if c, ok := p.ByKind[kind]; ok {
			kinds.rows = append(kinds.rows, []string{kind, u(c), k.us(c), pct(c)})
		}
	}
	stages := &table{title: "Critical path by stage", head: []string{"stage", "cycles", "µs", "% of path"}}
	for _, s := range p.ByStage {
		stages.rows = append(stages.rows, []string{s.Name, u(s.Cycles), k.us(s.Cycles), pct(s.Cycles)})
	}
	return []*table{kinds, stages}
}

// top keeps the first n rows (0: all).
func (t *table) top(n int) *table {
	if n > 0 && len(t.rows) > n {
		c := *t
		c.omitted = len(t.rows) - n
		c.rows = t.rows[:n]
		return &c
	}
	return t
}

// tableOf returns the named CSV table of rank k.
func (k *Rank) tableOf(name string) (*table, error) {
	switch name {
	case "cores":
		return k.coresTable(), nil
	case "types":
		return k.statTable("", "task_type", k.TaskTypes), nil
	case "stages":
		return k.statTable("", "stage", k.Stages), nil
	case "owners":
		return k.statTable("", "owner_id", k.Owners), nil
	case "waits":
		return k.statTable("", "waiting_stage", k.Waits), nil
	case "path":
		if k.CriticalPath == nil {
			return nil, fmt.Errorf("%s: no critical path without --plan (only per-core chains are known)", k.Capture)
		}
		return k.pathTable(), nil
	}
	return nil, fmt.Errorf("unknown table %q (known: %s)", name, strings.Join(Tables, ", "))
}

// WriteCSV writes one table of every rank as CSV, a rank column first
// (then an invocation_id column when the captures are invocations).
func (r *Report) WriteCSV(w io.Writer, name string) error {
	cw := csv.NewWriter(w)
	inv := r.invocations()
	for i, k := range r.Ranks {
		t, err := k.tableOf(name)
		if err != nil {
			return err
		}
		if i == 0 {
			head := []string{"rank"}
			if inv {
				head = append(head, "invocation_id")
			}
			for _, h := range t.head {
				head = append(head, csvName(h))
			}
			if err := cw.Write(head); err != nil {
				return err
			}
		}
		lead := []string{u(uint64(k.Rank))}
		if inv {
			id := ""
			if k.Invocation != nil {
				id = strconv.FormatInt(k.Invocation.ID, 10)
			}
			lead = append(lead, id)
		}
		for _, row := range t.rows {
			if err := cw.Write(append(slices.Clone(lead), row...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvName is the CSV column name of a table heading: cycle columns end
// in _cycles, µs columns in _us, percentages in _pct.
func csvName(h string) string {
	switch h {
	case "total", "mean", "p50", "p90", "p99", "max", "compute", "wait", "trigger", "other", "idle", "span":
		return h + "_cycles"
	case "µs":
		return "duration_us"
	}
	h = strings.ReplaceAll(h, " µs", "_us")
	h = strings.ReplaceAll(h, " %", "_pct")
	return strings.ReplaceAll(h, " ", "_")
}

// textWriter collects the first write error.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// WriteText writes the report as aligned text tables; top bounds the rows
// of the stats and path tables (0: all). Up to MaxTextSections sections
// it writes each one's analysis, then the tables across them; past it,
// the cluster's summary first, then the tables across sections (the
// Ranks table cut to the top slowest), then the analyses of the
// TextSlowest slowest sections only (WriteTextPerRank writes every one).
func (r *Report) WriteText(w io.Writer, top int) error {
	if len(r.Ranks) > MaxTextSections {
		return r.writeClusterText(w, top)
	}
	return r.WriteTextPerRank(w, top)
}

// WriteTextPerRank writes the report as WriteText does up to
// MaxTextSections sections, whatever their number: every section's
// analysis, in rank order, then the tables across them.
func (r *Report) WriteTextPerRank(w io.Writer, top int) error {
	tw := &textWriter{w: w}
	for i, k := range r.Ranks {
		if i > 0 {
			tw.printf("\n")
		}
		k.writeSections(tw, top, false, "")
	}
	r.writeCrossText(tw, top, false)
	return tw.err
}

// writeCrossText writes the tables across sections, with cut the table
// of their makespans cut to the top slowest.
func (r *Report) writeCrossText(tw *textWriter, top int, cut bool) {
	if r.CrossRank != nil {
		tw.printf("\n")
		t := r.crossTable()
		if cut {
			t = r.topSections(t, top)
		}
		t.text(tw)
		tw.printf("slowest %s, spread %d cycles (%s%%)\n", r.slowest(), r.CrossRank.SpreadCycles, f1(r.CrossRank.SpreadPct))
		if why := r.whySlowest(); why != "" {
			tw.printf("why: %s\n", why)
		}
		for _, t := range r.spreadTables(top) {
			tw.printf("\n")
			t.text(tw)
		}
		tw.printf("%s\n", r.slowRanks())
		if f := r.CrossRank.StoppedFinding(); f != "" {
			tw.printf("%s\n", f)
		}
	}
}

// WriteMarkdown writes the report as Markdown tables (for pull requests).
func (r *Report) WriteMarkdown(w io.Writer, top int) error {
	tw := &textWriter{w: w}
	for i, k := range r.Ranks {
		if i > 0 {
			tw.printf("\n")
		}
		k.writeSections(tw, top, true, "")
	}
	if r.CrossRank != nil {
		tw.printf("\n")
		r.crossTable().markdown(tw)
		tw.printf("\nSlowest %s, spread %d cycles (%s%%).\n", r.slowest(), r.CrossRank.SpreadCycles, f1(r.CrossRank.SpreadPct))
		if why := r.whySlowest(); why != "" {
			tw.printf("\nWhy: %s.\n", why)
		}
		for _, t := range r.spreadTables(top) {
			tw.printf("\n")
			t.markdown(tw)
		}
		tw.printf("\n%s.\n", r.slowRanks())
		if f := r.CrossRank.StoppedFinding(); f != "" {
			tw.printf("\n%s.\n", f)
		}
	}
	return tw.err
}

// invocations reports whether any section is an invocation of a window.
func (r *Report) invocations() bool {
	for _, k := range r.Ranks {
		if k.Invocation != nil {
			return true
		}
	}
	return false
}

// slowest names the slowest section: "rank 1", or "rank 0 invocation 2".
func (r *Report) slowest() string {
	s := "rank " + u(uint64(r.CrossRank.SlowestRank))
	if id := r.CrossRank.SlowestInvocation; id != nil {
		s += " invocation " + strconv.FormatInt(*id, 10)
	}
	return s
}

func (r *Report) crossTable() *table {
	if !r.invocations() {
		t := &table{title: "Ranks", head: []string{"rank", "capture", "makespan", "makespan µs"}}
		for _, x := range r.CrossRank.Ranks {
			t.rows = append(t.rows, []string{u(uint64(x.Rank)), x.Capture, u(x.MakespanCycles), f2(x.MakespanUs)})
		}
		return t
	}
	t := &table{title: "Invocations", head: []string{"rank", "invocation", "step", "direction", "capture", "makespan", "makespan µs"}}
	for _, x := range r.CrossRank.Ranks {
		id, step, dir := "-", "-", "-"
		if v := x.Invocation; v != nil {
			id = strconv.FormatInt(v.ID, 10)
			if v.Step != nil {
				step = strconv.FormatInt(*v.Step, 10)
			}
			if v.Direction != nil {
				dir = *v.Direction
			}
		}
		t.rows = append(t.rows, []string{u(uint64(x.Rank)), id, step, dir, x.Capture, u(x.MakespanCycles), f2(x.MakespanUs)})
	}
	return t
}

// label names a section: "rank 0", or "rank 0 invocation 1 (step 3, backward)".
func (k *Rank) label() string {
	s := "rank " + u(uint64(k.Rank))
	if k.Invocation != nil {
		s += " " + k.Invocation.String()
	}
	return s
}

// writeSections writes section k's analysis, its heading saying why it
// is shown when why is not "".
func (k *Rank) writeSections(tw *textWriter, top int, md bool, why string) {
	emit := func(t *table) {
		if md {
			t.markdown(tw)
		} else {
			t.text(tw)
		}
		tw.printf("\n")
	}
	if md {
		tw.printf("## R%s: %s\n\n", k.label()[1:], k.Capture)
	} else {
		if why != "" {
			why = " (" + why + ")"
		}
		tw.printf("== %s: %s%s ==\n", k.label(), k.Capture, why)
	}
	tw.printf("%d records, %d dropped; makespan %d cycles (%s µs at %g MHz)\n", k.Records, k.Dropped, k.MakespanCycles, k.us(k.MakespanCycles), k.CycleFrequencyMHz)
	if k.Flows != nil {
		tw.printf("%d wait records, %d with a releasing producer, %d without\n", k.Flows.Waits, k.Flows.Arrows, k.Flows.WaitsWithoutProducer)
	}
	for _, w := range k.Warnings {
		if md {
			tw.printf("\n> Warning: %s", w)
		} else {
			tw.printf("warning: %s\n", w)
		}
	}
	for _, n := range k.Notes {
		if md {
			tw.printf("\n> Note: %s", n)
		} else {
			tw.printf("note: %s\n", n)
		}
	}
	if md && len(k.Notes)+len(k.Warnings) > 0 {
		tw.printf("\n")
	}
	tw.printf("\n")
	k.writeDiagnosis(tw, top, md)
	emit(k.regionsTable())
	emit(k.topCores(top))
	emit(k.statTable("Task types (compute records, cycles)", "task_type", k.TaskTypes).top(top))
	emit(k.statTable("Stages (compute records, cycles)", "stage", k.Stages).top(top))
	if len(k.Owners) > 0 {
		emit(k.statTable("Owners (compute records, cycles)", "owner_id", k.Owners).top(top))
	}
	if len(k.Waits) > 0 {
		emit(k.statTable("Waits by stage of the waiting task (cycles)", "waiting_stage", k.Waits).top(top))
	}
	p := k.CriticalPath
	if p == nil {
		tw.printf("Critical path: not known without --plan SCHEDULE; only per-core chains are known.\n")
		return
	}
	tw.printf("Critical path: %d cycles (%s µs), %d segments, from %s to the last record end\n\n", p.TotalCycles, k.us(p.TotalCycles), p.Segments.Len(), firstCore(p))
	tables := k.pathSummaryTables()
	emit(tables[0]) // six kinds at most
	emit(tables[1].top(top))
	t := k.longestTable(top)
	if md {
		t.markdown(tw)
	} else {
		t.text(tw)
	}
}

func firstCore(p *Path) string {
	if p.Segments.Len() == 0 {
		return "-"
	}
	return p.Segments.At(0).Core
}

// text writes t with aligned columns: the first left, the rest right.
func (t *table) text(tw *textWriter) {
	widths := make([]int, len(t.head))
	for _, row := range append([][]string{t.head}, t.rows...) {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	if t.title != "" {
		tw.printf("%s\n", t.title)
	}
	line := func(row []string) {
		var b strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 || i < len(row) && !numeric(c) {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		tw.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	line(t.head)
	for _, row := range t.rows {
		line(row)
	}
	if t.omitted > 0 {
		tw.printf("... %d more rows (%s--top 0 shows all)\n", t.omitted, t.which())
	}
}

// numeric reports whether a cell is a number (right-aligned): "-" and ""
// stand for none, and a signed number may end in "%".
func numeric(s string) bool {
	if s == "" || s == "-" {
		return true
	}
	_, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return err == nil
}

// markdown writes t as a Markdown table, numbers right-aligned.
func (t *table) markdown(tw *textWriter) {
	if t.title != "" {
		tw.printf("**%s**\n\n", t.title)
	}
	esc := strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ").Replace
	row := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + esc(c) + " |")
		}
		tw.printf("%s\n", b.String())
	}
	row(t.head)
	var b strings.Builder
	b.WriteString("|")
	for i := range t.head {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	tw.printf("%s\n", b.String())
	for _, r := range t.rows {
		row(r)
	}
	if t.omitted > 0 {
		tw.printf("\n%d more rows (%s`--top 0` shows all).\n", t.omitted, t.which())
	}
}

// which renders omittedWhich for the omitted-rows line: "" or "cores
// with less compute; ".
func (t *table) which() string {
	if t.omittedWhich == "" {
		return ""
	}
	return t.omittedWhich + "; "
}

// spreadTables are the stages and task types across ranks, top rows each
// (0: all), the largest max first.
func (r *Report) spreadTables(top int) []*table {
	mk := func(title, col string, spreads []Spread) *table {
		t := &table{title: title, head: []string{col, "ranks", "min", "min at", "median", "max", "max at", "slow"}}
		for i, s := range spreads {
			if top > 0 && i == top {
				t.rows = append(t.rows, []string{"... " + u(uint64(len(spreads)-top)) + " more (--top 0 shows all)"})
				break
			}
			slow := "-"
			if n := len(s.Slow); n > 0 {
				slow = s.Slow[0].String()
				if n > 1 {
					slow += " and " + u(uint64(n-1)) + " more"
				}
			}
			t.rows = append(t.rows, []string{s.Name, u(uint64(s.Ranks)), u(s.MinCycles), s.MinRank.String(), f1(s.MedianCycles), u(s.MaxCycles), s.MaxRank.String(), slow})
		}
		return t
	}
	x := r.CrossRank
	return []*table{mk("Stages across ranks (compute cycles)", "stage", x.Stages), mk("Task types across ranks (compute cycles)", "task type", x.TaskTypes)}
}

// slowRanks says which ranks SlowRule finds slow.
func (r *Report) slowRanks() string {
	x := r.CrossRank
	if len(x.SlowRanks) == 0 {
		return "no slow rank (" + x.Rule + ")"
	}
	var names []string
	for i, s := range x.SlowRanks {
		if i == 8 {
			names = append(names, "and "+u(uint64(len(x.SlowRanks)-8))+" more")
			break
		}
		names = append(names, s.String())
	}
	return "slow ranks: " + strings.Join(names, ", ") + " (" + u(uint64(len(x.SlowRanks))) + " of " + u(uint64(len(x.Ranks))) + "; " + x.Rule + ")"
}
