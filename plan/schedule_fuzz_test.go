package plan_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/fuzzseed"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/require"
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
	require.NoError(f, err, "no schedule seeds")
	require.NotEmpty(f, paths, "no schedule seeds")
	for _, path := range paths {
		a, err := txtar.ParseFile(path)
		require.NoError(f, err)
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
			require.ErrorAsf(t, checkErr, &list, "CheckText error is not a non-empty *plan.ErrorList: %T %v", checkErr, checkErr)
			require.NotEqualf(t, 0, list.Len(), "CheckText error is not a non-empty *plan.ErrorList: %T %v", checkErr, checkErr)
			for _, e := range list.Errs {
				require.Equalf(t, file, e.File, "CheckText error without file and line: %+v", e)
				require.GreaterOrEqualf(t, e.Line, 1, "CheckText error without file and line: %+v", e)
			}
		}
		s, err := plan.Parse(file, data)
		if err == nil {
			_, cerr := plan.Check(s)
			require.Equalf(t, checkErr == nil, cerr == nil, "Check says %v, CheckText %v", cerr, checkErr)
		} else {
			require.Errorf(t, checkErr, "Parse fails (%v), CheckText does not", err)
		}
		if err != nil {
			var list *plan.ErrorList
			require.ErrorAsf(t, err, &list, "Parse error is not a non-empty *plan.ErrorList: %T %v", err, err)
			require.NotEmptyf(t, list.Errs, "Parse error is not a non-empty *plan.ErrorList: %T %v", err, err)
			for _, e := range list.Errs {
				require.Equalf(t, file, e.File, "schedule error without file and line: %+v", e)
				require.GreaterOrEqualf(t, e.Line, 1, "schedule error without file and line: %+v", e)
			}
			return
		}
		r, err := plan.Plan(s)
		if err != nil {
			var e *plan.Error
			require.ErrorAsf(t, err, &e, "Plan error is not a *plan.Error: %T %v", err, err)
			require.Equalf(t, file, e.File, "plan error without file and line: %+v", e)
			require.GreaterOrEqualf(t, e.Line, 1, "plan error without file and line: %+v", e)
			return
		}
		checkPlan(t, r)
	})
}

func checkPlan(t *testing.T, r plan.Result) {
	t.Helper()
	require.Len(t, r.Regions, len(abi.Regions()))
	for i, reg := range abi.Regions() {
		p := r.Regions[i]
		require.Equalf(t, reg.CoreType, p.CoreType, "region plan %d", i)
		require.Equalf(t, uint32(0), p.RecordCapacity%abi.RecordCapacityAlignment, "%s capacity %d for", p.CoreType, p.RecordCapacity)
		require.GreaterOrEqualf(t, uint64(p.RecordCapacity), p.RequiredRecords, "%s capacity %d for", p.CoreType, p.RecordCapacity)
		require.Lessf(t, uint64(p.RecordCapacity), p.RequiredRecords+abi.RecordCapacityAlignment, "%s capacity %d for", p.CoreType, p.RecordCapacity)
		require.LessOrEqualf(t, uint64(p.Workers), uint64(reg.SlotsPerCubeSlot)*uint64(r.CubeSlotCount), "%d cube slots for %d %s workers", r.CubeSlotCount, p.Workers, p.CoreType)
	}
	require.False(t, r.Mode == plan.AIVPipeline && r.Region(abi.CoreTypeAIC).RecordCapacity != 0, "AIV pipeline with AIC capacity")
	require.GreaterOrEqual(t, r.CubeSlotCount, uint32(abi.MinCubeSlots))
	l, err := r.Layout()
	require.NoError(t, err, "the plan's layout")
	require.Equal(t, r.BufferSize, l.Size(), "buffer size")
}
