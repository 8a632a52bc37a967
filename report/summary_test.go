package report

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// result is a validate result with the given warning counts.
func result(counts map[capture.Code]int) *validate.Result {
	r := &validate.Result{}
	for code, n := range counts {
		r.Counts = append(r.Counts, validate.CodeCount{Code: code, Severity: capture.Warning, Count: n})
	}
	return r
}

// clusterInput is n ranks of equal makespan; each rank's check and
// dropped count come from check and drop (nil: none).
func clusterInput(n int, check func(i int) *validate.Result, drop func(i int) uint64) *Input {
	in := &Input{}
	var ranks []*analyze.Rank
	for i := range n {
		k := &analyze.Rank{Rank: uint32(i), Capture: fmt.Sprintf("rank%d.bin", i), CycleFrequencyMHz: 50, MakespanCycles: 1000, MakespanUs: 20, Totals: &analyze.Totals{}}
		if drop != nil {
			k.Dropped = drop(i)
		}
		ranks = append(ranks, k)
		in.Checks = append(in.Checks, check(i))
	}
	in.Report = analyze.NewReport(ranks)
	return in
}

// A summary of many ranks says what they all share once, with their
// count; names the ranks that differ; folds each rank's findings and the
// captures table; and draws no banner.
func TestClusterSummary(t *testing.T) {
	same := result(map[capture.Code]int{"dropped-records": 6})
	in := clusterInput(1024, func(int) *validate.Result { return same }, func(int) uint64 { return 4752 })
	p := build(in)
	assert.Empty(t, p.Banners)
	var texts []string
	for _, f := range p.Findings {
		texts = append(texts, f.Text)
	}
	want := []string{
		"Each of the 1024 ranks dropped 4752 records (4,866,048 in all): the buffers were too small, the timelines have holes.",
		"All 1024 ranks: cycleabi validate reports, for each, 0 errors, 6 warnings (dropped-records 6).",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(texts, "\n"), "findings")
	assert.Len(t, p.RankFindings, 1024, "ranks' findings")
	assert.True(t, p.FoldSummary, "the summary folded")

	// Three ranks differ: two warn otherwise (named as a range), one
	// drops more (named first among the droppers).
	odd := result(map[capture.Code]int{"dropped-records": 9})
	in = clusterInput(64, func(i int) *validate.Result {
		if i == 7 || i == 8 {
			return odd
		}
		return same
	}, func(i int) uint64 {
		if i == 40 {
			return 9000
		}
		return uint64(i % 2)
	})
	p = build(in)
	texts = texts[:0]
	for _, f := range p.Findings {
		texts = append(texts, f.Text)
	}
	want = []string{
		"33 of 64 ranks dropped records, 9032 in all: the buffers were too small, the timelines have holes. The most: rank 40 (9000), rank 1 (1), rank 3 (1), rank 5 (1), rank 7 (1), rank 9 (1), and 27 more.",
		"62 of 64 ranks: cycleabi validate reports, for each, 0 errors, 6 warnings (dropped-records 6).",
		"Ranks 7–8: 0 errors, 9 warnings (dropped-records 9).",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(texts, "\n"), "findings")

	// The page: the cluster's cards and findings before any table, each
	// rank's findings and the captures in <details>.
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, in))
	page := buf.String()
	summary := page[strings.Index(page, `<section id="summary">`):strings.Index(page, `<section id="ranks">`)]
	for _, s := range []string{`class="cards"`, `<ul class="findings">`, `<summary>Each rank&#39;s findings (64 ranks)</summary>`, `<summary>Captures:`} {
		assert.Contains(t, summary, s, "the summary has no")
	}
	assert.GreaterOrEqual(t, strings.Index(summary, "<table"), strings.Index(summary, "<details>"), "a table comes before the first <details> in the summary")
	assert.NotContains(t, page, `class="banner"`, "the page of 64 ranks has a banner")
	assert.LessOrEqual(t, strings.Index(page, `<section id="ranks">`), strings.Index(page, `<section id="timeline">`), "the Ranks section does not come right after the summary")
}

// 64 ranks a few percent apart look a few percent apart: the column
// chart's axis starts near the fastest (and says so), the fastest and
// the slowest columns differ in height by more than a third of the plot,
// each column's height is its makespan on that axis (worked out here from
// the drawn tick labels), and the median and the slow-rank threshold are
// drawn where 1 and 1.05 × the median fall.
func TestColumnsShowTheSpread(t *testing.T) {
	var ranks []*analyze.Rank
	for i := range 64 {
		us := 2410 + 114*float64((i*37)%64)/63 // 2,410 to 2,524 µs: 4.7 %
		ranks = append(ranks, &analyze.Rank{Rank: uint32(i), MakespanUs: us, MakespanCycles: uint64(us * 50), Totals: &analyze.Totals{}})
	}
	x := analyze.NewReport(ranks).CrossRank
	c := rankColumnsChart(x)
	// The value axis from its tick labels: the lowest and highest and
	// their y.
	var ticks []struct{ v, y float64 }
	for _, tx := range c.Texts {
		if tx.Class != "tick" {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(tx.Text, ",", ""), 64)
		require.NoError(t, err)
		y, _ := strconv.ParseFloat(tx.Y, 64)
		ticks = append(ticks, struct{ v, y float64 }{v, y - 3.5})
	}
	require.GreaterOrEqual(t, len(ticks), 3)
	lo, hi := ticks[0], ticks[len(ticks)-1]
	assert.Greater(t, lo.v, float64(0), "the axis starts at")
	assert.LessOrEqual(t, lo.v, float64(2410), "the axis starts at")
	assert.Containsf(t, fmt.Sprint(c.Texts), "starts at "+tickLabel(lo.v, ticks[1].v-ticks[0].v)+", not 0", "the chart does not say its axis starts at %g, not 0", lo.v)
	yOf := func(v float64) float64 { return lo.y + (v-lo.v)*(hi.y-lo.y)/(hi.v-lo.v) }
	short, tall := math.Inf(1), 0.0
	for i, r := range c.Rects {
		top, _ := strconv.ParseFloat(r.Y, 64)
		h, _ := strconv.ParseFloat(r.H, 64)
		want := yOf(ranks[i].MakespanUs)
		require.LessOrEqualf(t, math.Abs(top-want), 0.6, "rank %d (%g µs): a column from y %g to %g, want %g to %g", i, ranks[i].MakespanUs, top, top+h, want, lo.y)
		assert.LessOrEqualf(t, math.Abs(top+h-lo.y), 0.6, "rank %d (%g µs): a column from y %g to %g, want %g to %g", i, ranks[i].MakespanUs, top, top+h, want, lo.y)
		short, tall = min(short, h), max(tall, h)
	}
	plot := lo.y - hi.y
	assert.GreaterOrEqualf(t, tall-short, plot/3, "the fastest and slowest columns differ by of a %.1f plot, want over a third", plot)
	lines := map[string]float64{}
	for _, o := range c.Over {
		var x0, y0 float64
		if _, err := fmt.Sscanf(strings.SplitN(o.D, "H", 2)[0], "M%g %g", &x0, &y0); err == nil {
			lines[o.Class] = y0
		}
	}
	m := 2410 + 114*(31.5/63) // the median of the 64 evenly spread values
	assert.LessOrEqual(t, math.Abs(lines["median"]-yOf(m)), 0.6, "the median at y")
	assert.LessOrEqual(t, math.Abs(lines["threshold"]-yOf(1.05*m)), 0.6, "the slow-rank threshold at y")
}

// Invocations of a window are named as such: by rank and invocation, and
// counted as invocations, not as ranks of one number.
func TestWindowSummary(t *testing.T) {
	var ranks []*analyze.Rank
	var checks []*validate.Result
	for i := range 3 {
		k := &analyze.Rank{Rank: 0, Invocation: &analyze.Invocation{ID: int64(i)}, Capture: "w.bin", CycleFrequencyMHz: 50, MakespanCycles: 1000, MakespanUs: 20, Totals: &analyze.Totals{}}
		k.Dropped = uint64(i)
		ranks = append(ranks, k)
		checks = append(checks, result(map[capture.Code]int{"dropped-records": 1 + i/2}))
	}
	p := build(&Input{Report: analyze.NewReport(ranks), Checks: checks})
	var texts []string
	for _, f := range p.Findings {
		texts = append(texts, f.Text)
	}
	want := []string{
		"2 of 3 invocations dropped records, 3 in all: the buffers were too small, the timelines have holes. The most: rank 0 invocation 2 (2), rank 0 invocation 1 (1).",
		"2 of 3 invocations: cycleabi validate reports, for each, 0 errors, 1 warnings (dropped-records 1).",
		"Rank 0 invocation 2: 0 errors, 2 warnings (dropped-records 2).",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(texts, "\n"), "findings")
	assert.Equal(t, "Each invocation's findings (3 invocations)", p.FindingsTitle, "FindingsTitle")
}

// Ranks that wrote nothing (every makespan 0) still get a chart and a
// summary with no NaN or Inf in them.
func TestColumnsOfEmptyRanks(t *testing.T) {
	var ranks []*analyze.Rank
	for i := range 3 {
		ranks = append(ranks, &analyze.Rank{Rank: uint32(i), Totals: &analyze.Totals{}})
	}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, &Input{Report: analyze.NewReport(ranks)}))
	page := buf.String()
	page = page[:strings.Index(page, "<script>")] // the script's isNaN
	for _, bad := range []string{"NaN", "Inf"} {
		if i := strings.Index(page, bad); !assert.Negativef(t, i, "the page has %s", bad) {
			t.Logf("%q", page[max(0, i-80):min(len(page), i+10)])
		}
	}
}
