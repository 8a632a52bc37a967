package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/megakernel/cycleabi/analyze"
)

// maxRankColumns bounds the columns of the across-ranks charts: past it,
// neighbouring ranks share a column, which shows the one furthest from
// the median (the one a reader looks for), and its tooltip names it. At
// 1,024 ranks a column is four ranks, two pixels wide.
const maxRankColumns = 256

// columns cuts n sections into at most maxRankColumns runs of neighbours:
// the first index of each run, and n at the end.
func columns(n int) []int {
	cols := min(n, maxRankColumns)
	b := make([]int, cols+1)
	for i := range b {
		b[i] = i * n / cols
	}
	return b
}

// rankColumnsChart draws each rank's makespan as a column, the slow ones
// (analyze.SlowRule) red, with the median as a line: readable from two
// ranks to thousands, where a bar per rank is not.
func rankColumnsChart(x *analyze.CrossRank) *chart {
	const left, w, h, top = 56.0, 560.0, 160.0, 8.0
	c := &chart{ID: "ranks-columns", Class: "columns", W: left + w + 16, Label: "Makespan per rank, slow ranks in red, the median dashed"}
	most := 0.0
	for _, r := range x.Ranks {
		most = max(most, r.MakespanUs)
	}
	if most == 0 {
		most = 1
	}
	b := columns(len(x.Ranks))
	cw := w / float64(len(b)-1)
	// The median in µs, of the ranks' own µs (ranks may count at different
	// frequencies, so it is not the median cycles at one of them).
	us := make([]float64, len(x.Ranks))
	for i, r := range x.Ranks {
		us[i] = r.MakespanUs
	}
	slices.Sort(us)
	medianUs := us[len(us)/2]
	if len(us)%2 == 0 {
		medianUs = (us[len(us)/2-1] + us[len(us)/2]) / 2
	}
	for i := 0; i+1 < len(b); i++ {
		pick := b[i]
		for j := b[i]; j < b[i+1]; j++ {
			if x.Ranks[j].MakespanUs > x.Ranks[pick].MakespanUs {
				pick = j
			}
		}
		r := x.Ranks[pick]
		fill := "#7A9CC6"
		if r.Slow {
			fill = "#B2182B"
		}
		bh := h * r.MakespanUs / most
		title := fmt.Sprintf("rank %d: makespan %s µs (%s cycles), busiest stage %s", r.Rank, fp(r.MakespanUs, 2), gu(r.MakespanCycles), r.BusiestStage)
		if b[i+1]-b[i] > 1 {
			title = fmt.Sprintf("ranks at %d..%d, the slowest %s", b[i], b[i+1]-1, title)
		}
		c.rect(left+float64(i)*cw, top+h-bh, max(cw-0.5, 0.5), max(bh, 0.5), fill, "bar", title)
	}
	if medianUs > 0 {
		y := top + h - h*medianUs/most
		c.Over = append(c.Over, path{D: "M" + n(left) + " " + n(y) + "H" + n(left+w), Stroke: "#333", StrokeWidth: "1", Class: "median",
			Title: "median makespan " + fp(medianUs, 2) + " µs"})
	}
	c.grid(left, top+h, left+w, top+h, "axis")
	c.text(left-4, top+10, "end", "value", fp(most, 0))
	c.text(left-4, top+h, "end", "value", "0")
	c.text(left, top+h+14, "start", "value", fmt.Sprintf("%d ranks in report order, rank %d to rank %d", len(x.Ranks), x.Ranks[0].Rank, x.Ranks[len(x.Ranks)-1].Rank))
	c.text(left-4, top+h/2, "end", "caption", "µs")
	c.H = top + h + 24
	return c
}

// heatSpan is the distance from the median at which the heat map's colors
// are full: twice the slow-rank rule's 5%, so a slow rank is half red.
const heatSpan = 0.10

// heatColor maps a stage's cycles over its median to a color: blue
// below, white at the median, red above; full at ±heatSpan.
func heatColor(ratio float64) string {
	d := math.Max(-1, math.Min(1, (ratio-1)/heatSpan))
	if d >= 0 {
		return fmt.Sprintf("rgb(%d,%d,%d)", 255-int(77*d), 255-int(231*d), 255-int(212*d))
	}
	d = -d
	return fmt.Sprintf("rgb(%d,%d,%d)", 255-int(222*d), 255-int(153*d), 255-int(83*d))
}

// maxHeatStages is how many stages the heat map shows: those with the
// largest maximum across ranks.
const maxHeatStages = 12

// heatMap draws ranks × stages: each cell a rank's compute cycles in a
// stage over that stage's median across ranks, so the slow rank of each
// stage stands out in red whatever the stage's size.
func heatMap(rep *analyze.Report) *chart {
	x := rep.CrossRank
	stages := x.Stages
	if len(stages) > maxHeatStages {
		stages = stages[:maxHeatStages]
	}
	const left, w, rowH, top = 150.0, 560.0, 18.0, 4.0
	c := &chart{ID: "ranks-heat", Class: "heat", W: left + w + 16,
		Label: "Compute cycles of each stage per rank, over the stage's median across ranks: red above, blue below"}
	b := columns(len(rep.Ranks))
	cw := w / float64(len(b)-1)
	for si, sp := range stages {
		y := top + float64(si)*rowH
		c.Texts = append(c.Texts, text{X: n(left - 6), Y: n(y + rowH - 5), Anchor: "end", Class: "rowlabel", Text: clip(sp.Name, 22), Title: sp.Name})
		for i := 0; i+1 < len(b); i++ {
			pick, pickRatio, has := -1, 0.0, false
			for j := b[i]; j < b[i+1]; j++ {
				for _, st := range rep.Ranks[j].Stages {
					if st.Name != sp.Name {
						continue
					}
					ratio := 1.0
					if sp.MedianCycles > 0 {
						ratio = float64(st.TotalCycles) / sp.MedianCycles
					}
					if !has || math.Abs(ratio-1) > math.Abs(pickRatio-1) {
						pick, pickRatio, has = j, ratio, true
					}
				}
			}
			if !has {
				continue // no rank of the column ran the stage: left blank
			}
			k := rep.Ranks[pick]
			title := fmt.Sprintf("rank %d, %s: %.2f × the median across ranks", k.Rank, sp.Name, pickRatio)
			c.rect(left+float64(i)*cw, y+1, max(cw, 0.5), rowH-2, heatColor(pickRatio), "cell", title)
		}
	}
	bottom := top + float64(len(stages))*rowH
	c.text(left, bottom+14, "start", "value", "rank "+sectionName(rep.Ranks[0]))
	c.text(left+w, bottom+14, "end", "value", "rank "+sectionName(rep.Ranks[len(rep.Ranks)-1]))
	c.text(left, bottom+30, "start", "value", fmt.Sprintf("%d ranks in report order; red: over the stage's median (full at +%.0f%%), blue: under", len(rep.Ranks), 100*heatSpan))
	c.H = bottom + 40
	return c
}

// sectionName is a section's rank, with its invocation in a window.
func sectionName(k *analyze.Rank) string {
	s := fmt.Sprint(k.Rank)
	if k.Invocation != nil {
		s += " invocation " + fmt.Sprint(k.Invocation.ID)
	}
	return s
}
