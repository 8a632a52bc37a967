package report

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
)

// TestChartsAcrossManyRanks: at 1,024 ranks the makespan columns and the
// heat map stay within their width, at most maxRankColumns columns of at
// least two pixels, and the one slow rank of a stage and of the makespans
// is still drawn (red, named in the tooltip) though it shares its column.
func TestChartsAcrossManyRanks(t *testing.T) {
	const n, slow = 1024, 613
	var ranks []*analyze.Rank
	for i := range n {
		k := &analyze.Rank{Rank: uint32(i), MakespanCycles: 1000, MakespanUs: 20, Totals: &analyze.Totals{}}
		gmm := uint64(500)
		if i == slow {
			k.MakespanCycles, k.MakespanUs, gmm = 1500, 30, 900
		}
		k.Stages = []analyze.Stat{{Name: "GMM1", TotalCycles: gmm}, {Name: "Dispatch", TotalCycles: 100}}
		ranks = append(ranks, k)
	}
	rep := analyze.NewReport(ranks)
	for _, c := range []*chart{rankColumnsChart(rep.CrossRank), heatMap(rep)} {
		perRow := map[string]int{}
		red := 0
		for _, r := range c.Rects {
			perRow[r.Y]++
			w, _ := strconv.ParseFloat(r.W, 64)
			x, _ := strconv.ParseFloat(r.X, 64)
			assert.GreaterOrEqualf(t, w, 1.5, "%s: a column %s px wide at %s", c.ID, r.W, r.X)
			assert.LessOrEqualf(t, x+w, c.W, "%s: a column %s px wide at %s: its right edge against the chart's width", c.ID, r.W, r.X)
			if r.Fill == "#B2182B" || reddish(r.Fill) {
				red++
				assert.Containsf(t, r.Title, "rank "+strconv.Itoa(slow), "%s: a red column's tooltip does not name rank %d", c.ID, slow)
			}
		}
		for y, cols := range perRow {
			if c.ID == "ranks-heat" {
				assert.Equalf(t, maxRankColumns, cols, "%s: columns of the row at y=%s", c.ID, y)
			}
		}
		assert.Equalf(t, 1, red, "%s red columns, want the one of rank %d", c.ID, slow)
	}
	if assert.Len(t, rep.CrossRank.SlowRanks, 1, "slow ranks") {
		assert.Equal(t, uint32(slow), rep.CrossRank.SlowRanks[0].Rank, "the slow rank")
	}
}

// reddish reports whether an rgb(r,g,b) fill leans red: the heat map's
// over-the-median end.
func reddish(fill string) bool {
	var r, g, b int
	if _, err := fmt.Sscanf(fill, "rgb(%d,%d,%d)", &r, &g, &b); err != nil {
		return false
	}
	return r-g > 40
}
