package plan_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/fuzzseed"
	"github.com/megakernel/cycleabi/plan"
	"golang.org/x/tools/txtar"
)

// maxScheduleInput is the largest schedule FuzzSchedule looks at: a
// megabyte exercises every path a larger one does.
const maxScheduleInput = 1 << 20

// FuzzSchedule parses arbitrary text as a schedule and plans it. Parse
// never panics and its errors are a plan.ErrorList, each naming the file
// and a line; Plan never panics, and its error is a *plan.Error naming a
// line; a plan it makes is consistent: capacities aligned, the smallest
// that hold the busiest worker's records (0 for AIC in an AIV pipeline),
// at least MinCubeSlots cube slots holding every worker, and a buffer
// size equal to its layout's.
func FuzzSchedule(f *testing.F) {
	paths, err := filepath.Glob("testdata/schedules/*.txtar")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no schedule seeds: %v", err)
	}
	for _, path := range paths {
		a, err := txtar.ParseFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			if strings.HasPrefix(file.Name, "schedule") {
				f.Add(file.Data)
			}
		}
	}
	fuzzseed.Files(f, "../examples/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxScheduleInput {
			return
		}
		const file = "fuzz.yaml"
		// CheckText (what `cycleabi plan` runs) plans what it can of a
		// schedule with problems: every problem positioned, and it fails
		// exactly when Parse or Check does.
		_, _, checkErr := plan.CheckText(file, data)
		if checkErr != nil {
			var list *plan.ErrorList
			if !errors.As(checkErr, &list) || list.Len() == 0 {
				t.Fatalf("CheckText error is not a non-empty *plan.ErrorList: %T %v", checkErr, checkErr)
			}
			for _, e := range list.Errs {
				if e.File != file || e.Line < 1 {
					t.Fatalf("CheckText error without file and line: %+v", e)
				}
			}
		}
		s, err := plan.Parse(file, data)
		if err == nil {
			if _, err := plan.Check(s); (err == nil) != (checkErr == nil) {
				t.Fatalf("Check says %v, CheckText %v", err, checkErr)
			}
		} else if checkErr == nil {
			t.Fatalf("Parse fails (%v), CheckText does not", err)
		}
		if err != nil {
			var list *plan.ErrorList
			if !errors.As(err, &list) || len(list.Errs) == 0 {
				t.Fatalf("Parse error is not a non-empty *plan.ErrorList: %T %v", err, err)
			}
			for _, e := range list.Errs {
				if e.File != file || e.Line < 1 {
					t.Fatalf("schedule error without file and line: %+v", e)
				}
			}
			return
		}
		r, err := plan.Plan(s)
		if err != nil {
			var e *plan.Error
			if !errors.As(err, &e) {
				t.Fatalf("Plan error is not a *plan.Error: %T %v", err, err)
			}
			if e.File != file || e.Line < 1 {
				t.Fatalf("plan error without file and line: %+v", e)
			}
			return
		}
		checkPlan(t, r)
	})
}

func checkPlan(t *testing.T, r plan.Result) {
	t.Helper()
	if len(r.Regions) != len(abi.Regions()) {
		t.Fatalf("%d region plans for the schema's %d regions", len(r.Regions), len(abi.Regions()))
	}
	for i, reg := range abi.Regions() {
		p := r.Regions[i]
		if p.CoreType != reg.CoreType {
			t.Fatalf("region plan %d is %s, the schema's region %s", i, p.CoreType, reg.CoreType)
		}
		if p.RecordCapacity%abi.RecordCapacityAlignment != 0 || uint64(p.RecordCapacity) < p.RequiredRecords || uint64(p.RecordCapacity) >= p.RequiredRecords+abi.RecordCapacityAlignment {
			t.Fatalf("%s capacity %d for %d required records", p.CoreType, p.RecordCapacity, p.RequiredRecords)
		}
		if uint64(p.Workers) > uint64(reg.SlotsPerCubeSlot)*uint64(r.CubeSlotCount) {
			t.Fatalf("%d cube slots for %d %s workers", r.CubeSlotCount, p.Workers, p.CoreType)
		}
	}
	if c := r.Region(abi.CoreTypeAIC).RecordCapacity; r.Mode == plan.AIVPipeline && c != 0 {
		t.Fatalf("AIV pipeline with AIC capacity %d", c)
	}
	if r.CubeSlotCount < abi.MinCubeSlots {
		t.Fatalf("%d cube slots, fewer than %d", r.CubeSlotCount, abi.MinCubeSlots)
	}
	l, err := r.Layout()
	if err != nil {
		t.Fatalf("the plan's layout: %v", err)
	}
	if l.Size() != r.BufferSize {
		t.Fatalf("buffer size %d, layout size %d", r.BufferSize, l.Size())
	}
}
