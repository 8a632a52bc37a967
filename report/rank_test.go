package report

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupCores keeps every core, in order, within maxRows rows, each row
// of one region; a region's split is what pushes it over one row per
// size (97 AIC and 95 AIV cores in 96 rows of 2 would need 97).
func TestGroupCoresBound(t *testing.T) {
	for _, tc := range []struct{ aic, aiv, maxRows int }{
		{24, 48, 96}, {97, 95, 96}, {200, 400, 96}, {1, 0, 96}, {0, 5, 2}, {3, 3, 2}, {191, 1, 96},
	} {
		var cores []analyze.Core
		for i := range tc.aic {
			cores = append(cores, analyze.Core{Core: fmt.Sprintf("AIC/%d", i), CoreType: "AIC", BlockID: uint32(i), Records: uint64(i%3 + 1)})
		}
		for i := range tc.aiv {
			cores = append(cores, analyze.Core{Core: fmt.Sprintf("AIV/%d", i), CoreType: "AIV", BlockID: uint32(i), Records: 1})
		}
		rows := groupCores(cores, tc.maxRows)
		name := fmt.Sprintf("%d AIC, %d AIV, %d rows", tc.aic, tc.aiv, tc.maxRows)
		assert.LessOrEqualf(t, len(rows), tc.maxRows, "%s: len(rows)", name)
		var members []string
		var records uint64
		for _, r := range rows {
			for _, m := range r.Members {
				assert.Equalf(t, r.CoreType, m[:3], "%s: row %s mixes regions: m[:3]", name, r.Name)
			}
			members = append(members, r.Members...)
			records += r.Records
		}
		var want []string
		var wantRecords uint64
		for _, c := range cores {
			want = append(want, c.Core)
			wantRecords += c.Records
		}
		assert.Equalf(t, want, members, "%s: members", name)
		assert.Equalf(t, wantRecords, records, "%s: records", name)
		if len(cores) <= tc.maxRows {
			assert.Equalf(t, len(cores), len(rows), "%s: a row per core when they fit: len(rows): %v", name, rows)
		}
	}
}

// Every chart with a row per core groups cores by one rule: given the
// same cores (each with records, each on the critical path), the
// timeline, the per-core bars and the critical path's Gantt show the same
// rows, and they are the rows of the smallest group size that keeps
// within MaxChartRows (worked out here from the region runs, not by
// groupCores). With 191 or 192 cores the Gantt's former rule of its own
// (⌈cores/95⌉ a row) put 3 cores to a row where 2 fit in 96 rows.
func TestChartsGroupCoresAlike(t *testing.T) {
	for _, tc := range []struct{ aic, aiv int }{
		{24, 48}, {96, 0}, {97, 0}, {150, 40}, {191, 0}, {100, 92}, {191, 1}, {97, 95}, {200, 400},
	} {
		name := fmt.Sprintf("%d AIC, %d AIV", tc.aic, tc.aiv)
		k := &analyze.Rank{CycleFrequencyMHz: 1000, StartCycle: 0, EndCycle: 1000, MakespanCycles: 1000}
		var segs []analyze.Segment
		add := func(region string, count int) {
			for i := range count {
				core := fmt.Sprintf("%s/%d", region, i)
				k.Cores = append(k.Cores, analyze.Core{Core: core, CoreType: region, BlockID: uint32(i),
					EndCycle: 1000, Records: 1, ComputeCycles: 1000})
				segs = append(segs, analyze.Segment{Core: core, Kind: analyze.KindCompute, StartCycle: 0, EndCycle: 1})
			}
		}
		add("AIC", tc.aic)
		add("AIV", tc.aiv)
		// The path as analyze --format json writes it: its segments are
		// read back as analyze holds them, whatever that is.
		doc, err := json.Marshal(map[string]any{"end_cycle": 1000, "total_cycles": 1000, "segments": segs})
		require.NoError(t, err)
		k.CriticalPath = &analyze.Path{}
		require.NoError(t, json.Unmarshal(doc, k.CriticalPath))
		tl := &analyze.Timeline{BinCycles: 2, Bins: TimelineBins}

		want := wantRows([]int{tc.aic, tc.aiv}, MaxChartRows)
		v := newRankView(0, k, tl, NewColors(), false)
		for _, c := range []*chart{v.Timeline, v.Cores, v.Path.Gantt} {
			var got []string
			for _, x := range c.Texts {
				if x.Class == "rowlabel" {
					got = append(got, x.Text)
				}
			}
			assert.Equalf(t, want, got, "%s: %s rows\n got %d\nwant %d", name, c.ID, len(got), len(want))
		}
	}
}

// wantRows names the rows of regions AIC and AIV with counts[0] and
// counts[1] cores: the least size whose runs of consecutive cores fit in
// maxRows, each region cut into runs of that size.
func wantRows(counts []int, maxRows int) []string {
	size := 1
	for {
		rows := 0
		for _, c := range counts {
			rows += (c + size - 1) / size
		}
		if rows <= maxRows {
			break
		}
		size++
	}
	var names []string
	for r, c := range counts {
		region := []string{"AIC", "AIV"}[r]
		for first := 0; first < c; first += size {
			last := min(first+size, c) - 1
			s := fmt.Sprintf("%s/%d", region, first)
			if last > first {
				s += fmt.Sprintf("–%d", last)
			}
			names = append(names, s)
		}
	}
	return names
}
