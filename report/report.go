// Package report writes one self-contained HTML page about one or more
// analyzed captures: a summary, a timeline overview, where each core's
// time went, the task types and stages, the critical path, the ranks and
// the comparison with a base. The page is inline HTML, SVG and CSS with a
// few lines of inline JavaScript (sorting tables, opening collapsed tables
// to print); it loads nothing from anywhere.
//
// Every number comes from package analyze, unchanged: tables carry each
// value in a data-v attribute next to its display, with data-f naming the
// field of `cycleabi analyze --format json` it is (a dotted path in the
// rank's object, or in the table's row object), so tests and scripts can
// read the page back.
//
// Size is bounded whatever the capture: the timeline is binned
// (TimelineBins per row, analyze.NewTimeline) with at most MaxChartRows
// rows (cores are grouped beyond that), the critical path's Gantt draws
// at most MaxGanttSegments bars (else it is binned too), and tables list
// at most MaxTableRows rows.
package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/validate"
)

// Bounds on what a page draws and lists.
const (
	// TimelineBins is the number of bins per core the overview wants
	// (one per horizontal pixel of its plot).
	TimelineBins = 900
	// MaxChartRows bounds the rows of the timeline and the per-core bars;
	// beyond it consecutive cores of a region share a row (their sums).
	MaxChartRows = 96
	// MaxGanttSegments bounds the bars of the critical path's Gantt;
	// a longer path is drawn binned, TimelineBins per row.
	MaxGanttSegments = 2000
	// MaxTableRows bounds the rows of a table (the per-core table, the
	// stats, the path's segments: the longest ones are kept).
	MaxTableRows = 1000
	// MaxDetailedRanks is how many ranks get the detailed sections; with
	// more, only the slowest does (every rank is in the summary and the
	// rank comparison).
	MaxDetailedRanks = 4
)

// Input is what a page shows.
type Input struct {
	// Kernel names the kernel (the title).
	Kernel string
	// Report is the analysis of the captures, one rank each.
	Report *analyze.Report
	// Timelines[i] bins Report.Ranks[i] (made with TimelineBins bins);
	// nil, or a nil entry, leaves that overview out. Only the detailed
	// ranks' are drawn: Timelines gathers just those, rank by rank.
	Timelines []*analyze.Timeline
	// Checks[i] is what validate found in Report.Ranks[i]'s capture; nil
	// or a nil entry when it was not validated.
	Checks []*validate.Result
	// Base is the analysis compared with (--base) and Diff the
	// comparison; both nil without a base.
	Base *analyze.Report
	Diff *analyze.Diff
}

// Write writes the page.
func Write(w io.Writer, in *Input) error {
	if in == nil || in.Report == nil || len(in.Report.Ranks) == 0 {
		return fmt.Errorf("report: nothing to report (no analyzed rank)")
	}
	p := build(in)
	u := &utf8Writer{w: w}
	if err := pageTemplate().Execute(u, p); err != nil {
		return err
	}
	return u.Close()
}

// page is the template's view of an Input.
type page struct {
	Kernel      string
	ABIVersion  int
	Fingerprint string
	Subtitle    string
	Banners     []string
	// Multi is a page of several ranks (or invocations): its summary says
	// what they share once (Findings), each rank's own findings folded
	// (RankFindings), and the Ranks section comes right after it.
	Multi        bool
	Findings     []finding
	RankFindings []string
	// FoldSummary folds the Captures table (more than foldRows rows);
	// FindingsTitle and CapturesTitle name the folded lists.
	FoldSummary                  bool
	FindingsTitle, CapturesTitle string
	// Notes say what an input could not carry (a JSON trace's notes),
	// once each; Warnings what of an input was not taken as it stands (a
	// trace's cut names, its missing ranks), once each.
	Notes       []string
	Warnings    []string
	Cards       []card
	Summary     *table
	SummaryNote string
	Ranks       []*rankView
	DetailNote  string
	KindLegend  []legendItem
	CrossRank   *crossView
	Diffs       []*diffView
	HasBase     bool
	// InputDifferences are where base and new were analyzed with other
	// inputs (analyze.InputDifferences).
	InputDifferences []string
}

type card struct {
	Label, Value, Sub, Class string
	// Href, when set, links the card's value to the figure that shows it.
	Href string
}

// table is a titled grid; cells with F name the JSON field they show.
type table struct {
	Name    string
	Rank    string
	Caption string
	Head    []head
	Rows    []row
	Note    string
}

type head struct {
	Text  string
	Num   bool
	Title string
}

type row struct {
	Key   string
	Class string
	Cells []cell
}

type cell struct {
	F, V, Text, Class string
	Swatch            string
}

type rankView struct {
	Index    int
	Anchor   string
	Title    string
	Timeline *chart
	TLNote   string
	Legend   []legendItem
	Regions  []string
	Cores    *chart
	CoreNote string
	RegTable *table
	CoreTab  *table
	Groups   []groupView
	Path     *pathView
	PathNote string
}

type groupView struct {
	Title string
	Chart *chart
	Table *table
}

type pathView struct {
	Text    string
	Gantt   *chart
	Kinds   *chart
	KindTab *table
	Stages  *chart
	StageT  *table
	SegTab  *table
	Legend  []legendItem
}

type crossView struct {
	Text  string
	Table *table
	// Slow states the slow-rank rule and what it finds; Columns and Heat
	// are the charts across ranks (makespans; stages × ranks).
	Slow          string
	Columns, Heat *chart
	Spreads       *table
	// Fold folds the table of every rank's makespan (more than foldRows).
	Fold bool
}

type diffView struct {
	Title     string
	Summary   *table
	TaskTypes *table
	Stages    *table
}

func u(v uint64) string  { return strconv.FormatUint(v, 10) }
func gu(v uint64) string { return groupDigits(u(v)) }
func fv(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}
func fp(v float64, prec int) string { return groupDigits(strconv.FormatFloat(v, 'f', prec, 64)) }

// ucell shows an unsigned field.
func ucell(f string, v uint64) cell { return cell{F: f, V: u(v), Text: gu(v)} }

// fcell shows a float field with prec decimals.
func fcell(f string, v float64, prec int) cell { return cell{F: f, V: fv(v), Text: fp(v, prec)} }

// namecell is a row's first cell.
func namecell(s string) cell { return cell{Text: s, V: s, Class: "name"} }

// detailed lists the ranks that get the detailed sections (detail).
func detailed(r *analyze.Report) []int {
	var d detail
	for _, k := range r.Ranks {
		d.add(k)
	}
	return d.picked()
}

func build(in *Input) *page {
	rep := in.Report
	kernel := in.Kernel
	if kernel == "" {
		kernel = "MegaKernel"
	}
	p := &page{Kernel: kernel, ABIVersion: rep.ABIVersion, Fingerprint: rep.ABIFingerprint, HasBase: in.Diff != nil}
	colors := NewColors(pageNames(rep))
	for _, k := range []string{"wait", "trigger", "other", "idle"} {
		p.KindLegend = append(p.KindLegend, legendItem{Name: k, Color: KindColors[k], Class: "k-" + k})
	}
	p.summary(in)
	idx := detailed(rep)
	if len(idx) < len(rep.Ranks) {
		p.DetailNote = fmt.Sprintf("%d ranks: the detailed sections show the slowest, rank %d (%s); every rank is in the summary and under Ranks.",
			len(rep.Ranks), rep.Ranks[idx[0]].Rank, rep.Ranks[idx[0]].Capture)
	}
	for _, i := range idx {
		k := rep.Ranks[i]
		var tl *analyze.Timeline
		if i < len(in.Timelines) {
			tl = in.Timelines[i]
		}
		p.Ranks = append(p.Ranks, newRankView(i, k, tl, colors, len(rep.Ranks) > 1))
	}
	if rep.CrossRank != nil {
		p.CrossRank = newCrossView(rep)
	}
	if in.Diff != nil {
		p.InputDifferences = in.Diff.InputDifferences
		for i := range in.Diff.Ranks {
			p.Diffs = append(p.Diffs, newDiffView(i, &in.Diff.Ranks[i]))
		}
	}
	return p
}

// pageNames are the page's names in the groups drawn side by side: the
// task types, and the stages (of compute records, of waiting tasks and on
// the critical path).
func pageNames(rep *analyze.Report) (types, stages []string) {
	for _, k := range rep.Ranks {
		for _, s := range k.TaskTypes {
			types = append(types, s.Name)
		}
		for _, list := range [][]analyze.Stat{k.Stages, k.Waits} {
			for _, s := range list {
				stages = append(stages, s.Name)
			}
		}
		if k.CriticalPath != nil {
			for _, s := range k.CriticalPath.ByStage {
				stages = append(stages, s.Name)
			}
		}
	}
	return types, stages
}

func (p *page) summary(in *Input) {
	rep := in.Report
	t := &table{Name: "summary", Caption: "Captures",
		Head: []head{{Text: "rank"}, {Text: "capture"}, {Text: "records", Num: true}, {Text: "dropped", Num: true},
			{Text: "validate", Title: "errors and warnings cycleabi validate reports with the same flags"},
			{Text: "layout", Title: "cube slots C (AIV has 2C), record capacity per core, buffer size, where the capacities came from"}, {Text: "MHz", Num: true}, {Text: "makespan µs", Num: true},
			{Text: "AIC busy %", Num: true}, {Text: "AIV busy %", Num: true}}}
	var records, dropped uint64
	var findings rankFindings
	p.Multi = len(rep.Ranks) > 1
	for i, k := range rep.Ranks {
		records += k.Records
		dropped += k.Dropped
		var chk *validate.Result
		if i < len(in.Checks) {
			chk = in.Checks[i]
		}
		val := cell{Text: "not run"}
		if chk != nil {
			val = cell{Class: "txt", Text: fmt.Sprintf("%d errors, %d warnings", chk.Errors(), chk.Warnings()), V: strconv.Itoa(chk.Errors()*1000000 + chk.Warnings())}
			if chk.Errors() > 0 || chk.Warnings() > 0 {
				val.Class = "txt bad"
				if !p.Multi {
					p.Banners = append(p.Banners, checkBanner(k, chk))
				}
			}
		}
		if p.Multi {
			findings.add(k, chk)
		} else if k.Dropped > 0 && (chk == nil || chk.Count("dropped-total") == 0) {
			p.Banners = append(p.Banners, fmt.Sprintf("Rank %d (%s): %s records were dropped: the buffer was too small, the timeline has holes.", k.Rank, k.Capture, gu(k.Dropped)))
		}
		drop := ucell("dropped", k.Dropped)
		if k.Dropped > 0 {
			drop.Class = "bad"
		}
		busy := func(region string) cell {
			if r := k.Regions[region]; r != nil {
				return fcell("regions."+region+".busy_pct", r.BusyPct, 1)
			}
			return cell{Text: "–"}
		}
		t.Rows = append(t.Rows, row{Key: strconv.Itoa(i), Cells: []cell{
			{F: "rank", V: strconv.FormatUint(uint64(k.Rank), 10), Text: strconv.FormatUint(uint64(k.Rank), 10)},
			{Text: k.Capture, V: k.Capture, Class: "name"},
			ucell("records", k.Records), drop, val,
			{Text: layoutText(k, chk), Class: "txt"},
			fcell("cycle_frequency_mhz", k.CycleFrequencyMHz, 0),
			fcell("makespan_us", k.MakespanUs, 2),
			busy("AIC"), busy("AIV"),
		}})
	}
	p.Summary = t
	for _, n := range analyze.SharedLines(rep.Ranks, func(k *analyze.Rank) []string { return k.Notes }) {
		p.Notes = append(p.Notes, n.Text)
	}
	for _, w := range analyze.SharedLines(rep.Ranks, func(k *analyze.Rank) []string { return k.Warnings }) {
		p.Warnings = append(p.Warnings, w.Text)
	}
	if len(rep.Ranks) == 1 {
		k := rep.Ranks[0]
		p.Subtitle = fmt.Sprintf("rank %d · %s · %s records", k.Rank, k.Capture, gu(k.Records))
		p.stopped(k)
		p.Cards = append(p.Cards, card{Label: "makespan", Value: fp(k.MakespanUs, 1) + " µs", Sub: gu(k.MakespanCycles) + " cycles at " + fp(k.CycleFrequencyMHz, 0) + " MHz"})
		for _, region := range []string{"AIC", "AIV"} {
			if r := k.Regions[region]; r != nil {
				p.Cards = append(p.Cards, card{Label: region + " busy", Value: fp(r.BusyPct, 1) + " %",
					Sub: fmt.Sprintf("wait %s %% · imbalance %s · %d cores", fp(r.WaitPct, 1), fp(r.Imbalance, 2), r.ActiveCores)})
			}
		}
		if k.CriticalPath != nil {
			p.Cards = append(p.Cards, card{Label: "critical path", Value: fp(k.CriticalPath.TotalUs, 1) + " µs",
				Sub: topShare(k.CriticalPath)})
		}
	} else {
		p.Subtitle = fmt.Sprintf("%s ranks · %s records", gu(uint64(len(rep.Ranks))), gu(records))
		c := rep.Cluster()
		p.Cards = append(p.Cards, clusterCards(c, rep.CrossRank)...)
		for _, s := range []string{rep.CrossRank.StoppedFinding(), c.SlowFinding(), c.DropFinding()} {
			if s != "" {
				p.Findings = append(p.Findings, finding{Text: s, Class: "bad"})
			}
		}
		p.Findings = append(p.Findings, findings.checkFindings()...)
		for _, s := range findings.perRank {
			if s != "" {
				p.RankFindings = append(p.RankFindings, s)
			}
		}
		p.FoldSummary = len(rep.Ranks) > foldRows
		one, noun := strings.TrimSuffix(findings.noun(), "s"), findings.noun()
		p.FindingsTitle = fmt.Sprintf("Each %s's findings (%s %s)", one, gu(uint64(len(p.RankFindings))), noun)
		p.CapturesTitle = fmt.Sprintf("Captures: each %s's file, records, drops, validate, layout and makespan (%s %s)", one, gu(uint64(len(rep.Ranks))), noun)
	}
	// The cores tried to write records+dropped; records were kept.
	c := card{Label: "dropped records", Value: gu(dropped), Sub: gu(records) + " written of " + gu(records+dropped) + " attempted"}
	if dropped > 0 {
		c.Class = "bad"
	}
	if p.Multi && dropped > 0 {
		c.Sub = fmt.Sprintf("%s of %s attempted, in %s of %s %s", gu(dropped), gu(records+dropped), gu(uint64(findings.droppingRanks())), gu(uint64(len(rep.Ranks))), findings.noun())
	}
	p.Cards = append(p.Cards, c)
	if in.Diff != nil && len(in.Diff.Ranks) > 0 {
		for _, r := range in.Diff.Ranks {
			d := r.Makespan
			c := card{Label: fmt.Sprintf("makespan vs base (rank %d)", r.Rank), Value: signed(d.Abs/rankMHz(rep, r.Rank), 1) + " µs",
				Sub: "base " + gu(uint64(d.Base)) + " → " + gu(uint64(d.New)) + " cycles", Class: signClass(d.Abs)}
			if d.RelPct != nil {
				c.Sub = signed(*d.RelPct, 1) + " % · " + c.Sub
			}
			p.Cards = append(p.Cards, c)
			if len(p.Cards) > 8 {
				break
			}
		}
	}
}

func rankMHz(rep *analyze.Report, rank uint32) float64 {
	for _, k := range rep.Ranks {
		if k.Rank == rank && k.CycleFrequencyMHz > 0 {
			return k.CycleFrequencyMHz
		}
	}
	if rep.Ranks[0].CycleFrequencyMHz > 0 {
		return rep.Ranks[0].CycleFrequencyMHz
	}
	return 1
}

func topShare(p *analyze.Path) string {
	if len(p.ByStage) == 0 || p.TotalCycles == 0 {
		return fmt.Sprintf("%d segments", p.Segments.Len())
	}
	s := p.ByStage[0]
	return fmt.Sprintf("%s %.1f %% of it", s.Name, 100*float64(s.Cycles)/float64(p.TotalCycles))
}

func checkBanner(k *analyze.Rank, chk *validate.Result) string {
	s := fmt.Sprintf("%s (%s): cycleabi validate reports %d errors and %d warnings", upper(sectionLabel(k)), k.Capture, chk.Errors(), chk.Warnings())
	if len(chk.Counts) > 0 {
		s += " ("
		for i, c := range chk.Counts {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%s %d", c.Code, c.Count)
		}
		s += ")"
	}
	if k.Dropped > 0 {
		s += fmt.Sprintf("; %s records were dropped: the buffer was too small, the timeline has holes", gu(k.Dropped))
	}
	return s + "."
}

func layoutText(k *analyze.Rank, chk *validate.Result) string {
	l := abi.Layout{CubeSlots: k.Layout.CubeSlots}
	for _, r := range abi.Regions() {
		l.Capacities.Set(r.CoreType, k.Layout.Capacities[r.CoreType.String()])
	}
	s := l.String() + " · " + gu(k.Layout.Size) + " B"
	if chk != nil && chk.Resolved != nil && chk.Resolved.Source != "" {
		s += " · " + string(chk.Resolved.Source)
	}
	return s
}

func signed(v float64, prec int) string {
	s := fp(v, prec)
	if v > 0 && s != fp(0, prec) {
		s = "+" + s
	}
	if s == "-"+fp(0, prec) {
		s = fp(0, prec)
	}
	return s
}

func signClass(v float64) string {
	switch {
	case v > 0:
		return "pos"
	case v < 0:
		return "neg"
	}
	return ""
}

// sortedRegions lists a rank's regions, AIC first.
func sortedRegions(k *analyze.Rank) []string {
	var rs []string
	for r := range k.Regions {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// pageTemplate is parsed on first use, not when the program starts: every
// other command would pay for it (0.6 ms, a tenth of the startup).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{"n": n}).Parse(pageHTML))
})
