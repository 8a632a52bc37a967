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
			if w < 1.5 || x+w > c.W {
				assert.Fail(t, fmt.Sprintf("%s: a column %s px wide at %s in a chart %g px wide", c.ID, r.W, r.X, c.W))
			}
			if r.Fill == "#B2182B" || reddish(r.Fill) {
				red++
				assert.Containsf(t, r.Title, "rank "+strconv.Itoa(slow), "%s: a red column's tooltip does not name rank %d", c.ID, slow)
			}
		}
		for y, cols := range perRow {
			if c.ID == "ranks-heat" && cols != maxRankColumns {
				assert.Fail(t, fmt.Sprintf("%s: row at y=%s has %d columns, want %d", c.ID, y, cols, maxRankColumns))
			}
		}
		assert.Equalf(t, 1, red, "%s red columns, want the one of rank %d", c.ID, slow)
	}
	if got := len(rep.CrossRank.SlowRanks); got != 1 || rep.CrossRank.SlowRanks[0].Rank != slow {
		assert.Fail(t, fmt.Sprintf("slow ranks %v, want rank %d alone", rep.CrossRank.SlowRanks, slow))
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
