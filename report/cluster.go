package report

import (
	"fmt"
	"math"

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

// valueAxis is the value range of a chart of near-equal values (the
// makespans of ranks): from a round value under the smallest (0 when that
// is near) to a round value over the largest, so that a few percent
// between ranks is a visible difference in height, not a pixel. step is
// the distance between its ticks.
func valueAxis(lo, hi float64) (from, to, step float64) {
	span := hi - lo
	if !(span > 0) {
		span = max(hi*0.02, 1e-9) // equal values: a band around them
	}
	step = niceStep(span, 4)
	from = math.Floor((lo-span/4)/step) * step
	if from < 0 || from < span {
		from = 0 // the range reaches down near 0 anyway: from 0
		step = niceStep(hi, 4)
	}
	to = math.Ceil(hi/step) * step
	if to <= hi {
		to += step
	}
	return from, to, step
}

// rankColumnsChart draws each rank's makespan as a column, the slow ones
// (analyze.SlowRule) red, with the median dashed and the slow-rank
// threshold (5 % over the median) dashed red: readable from two ranks to
// thousands, where a bar per rank is not. Its value axis starts near the
// fastest rank, not at 0 (said on the axis and under it), so that ranks a
// few percent apart look a few percent apart.
func rankColumnsChart(x *analyze.CrossRank) *chart {
	const left, w, h, top = 64.0, 560.0, 160.0, 8.0
	c := &chart{ID: "ranks-columns", Class: "columns", W: left + w + 16,
		Label: "Makespan per rank, by rank number, slow ranks in red, the median dashed, the slow-rank threshold dashed red; the value axis starts near the fastest rank"}
	lo, hi := x.Ranks[0].MakespanUs, x.Ranks[0].MakespanUs
	for _, r := range x.Ranks {
		lo, hi = min(lo, r.MakespanUs), max(hi, r.MakespanUs)
	}
	medianUs := x.MedianMakespanUs()
	threshold := analyze.SlowFactor * medianUs
	from, to, step := valueAxis(lo, max(hi, threshold))
	y := func(v float64) float64 { return top + h - h*(v-from)/(to-from) }
	for v := from; v <= to*1.0000001; v += step {
		c.grid(left, y(v), left+w, y(v), "gridline")
		c.Texts = append(c.Texts, text{X: n(left - 4), Y: n(y(v) + 3.5), Anchor: "end", Class: "tick", Text: tickLabel(v, step)})
	}
	b := columns(len(x.Ranks))
	cw := w / float64(len(b)-1)
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
		bh := top + h - y(r.MakespanUs)
		against := ""
		if medianUs > 0 {
			against = fmt.Sprintf(", %s %% against the median", signed(100*(r.MakespanUs/medianUs-1), 2))
		}
		title := fmt.Sprintf("rank %d: makespan %s µs (%s cycles)%s, busiest stage %s", r.Rank, fp(r.MakespanUs, 2), gu(r.MakespanCycles), against, r.BusiestStage)
		if b[i+1]-b[i] > 1 {
			title = fmt.Sprintf("ranks %d–%d, the slowest %s", x.Ranks[b[i]].Rank, x.Ranks[b[i+1]-1].Rank, title)
		}
		c.rect(left+float64(i)*cw, top+h-bh, max(cw-0.5, 0.5), max(bh, 0.5), fill, "bar", title)
	}
	if medianUs > 0 {
		ym := y(medianUs)
		c.Over = append(c.Over, path{D: "M" + n(left) + " " + n(ym) + "H" + n(left+w), Stroke: "#333", StrokeWidth: "1", Class: "median",
			Title: "median makespan " + fp(medianUs, 2) + " µs"},
			path{D: "M" + n(left) + " " + n(y(threshold)) + "H" + n(left+w), Stroke: "#B2182B", StrokeWidth: "1", Class: "threshold",
				Title: "slow above " + fp(threshold, 2) + " µs: 5 % over the median"})
		c.text(left+w-2, ym+11, "end", "value", "median "+fp(medianUs, 1))
		c.text(left+w-2, y(threshold)-3, "end", "value", "slow: +5 % over the median")
	}
	c.grid(left, top+h, left+w, top+h, "axis")
	c.grid(left, top, left, top+h, "axis")
	caption := fmt.Sprintf("%s ranks by rank number, rank %d to rank %d", gu(uint64(len(x.Ranks))), x.Ranks[0].Rank, x.Ranks[len(x.Ranks)-1].Rank)
	if from > 0 {
		// The axis does not start at 0: a break in it, and said in words.
		c.Over = append(c.Over, path{D: "M" + n(left-5) + " " + n(top+h-7) + "l10 -4M" + n(left-5) + " " + n(top+h-3) + "l10 -4",
			Stroke: "#555", StrokeWidth: "1", Class: "axisbreak", Title: "the axis starts at " + tickLabel(from, step) + " µs, not 0"})
		caption += " · the µs axis starts at " + tickLabel(from, step) + ", not 0"
	}
	c.text(left, top+h+14, "start", "value", caption)
	c.text(left-46, top+h/2, "end", "caption", "µs")
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
	c.text(left, bottom+30, "start", "value", fmt.Sprintf("%d ranks by rank number; red: over the stage's median (full at +%.0f%%), blue: under", len(rep.Ranks), 100*heatSpan))
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
