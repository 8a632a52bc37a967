package report

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
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
		if got, want := len(rows), tc.maxRows; got > want {
			t.Errorf("%s: len(rows) = %v, want <= %v", name, got, want)
		}
		var members []string
		var records uint64
		for _, r := range rows {
			for _, m := range r.Members {
				if got := m[:3]; got != r.CoreType {
					t.Errorf("%s: row %s mixes regions: m[:3] = %q, want %q", name, r.Name, got, r.CoreType)
				}
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
		if !reflect.DeepEqual(members, want) {
			t.Errorf("%s: members = %v, want %v", name, members, want)
		}
		if records != wantRecords {
			t.Errorf("%s: records = %v, want %v", name, records, wantRecords)
		}
		if len(cores) <= tc.maxRows {
			if got, want := len(rows), len(cores); got != want {
				t.Errorf("%s: a row per core when they fit: len(rows) = %d, want %d: %v", name, got, want, rows)
			}
		}
	}
}
