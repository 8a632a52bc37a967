package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/yamltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// TestSchedules runs every testdata/schedules/*.txtar: the schedule.yaml
// section is parsed and planned (as `cycleabi plan` does, or with a strict
// section as `cycleabi plan --strict` does); expect holds the plan as JSON,
// or the error text. Refresh with go test ./plan -update.
func TestSchedules(t *testing.T) {
	files, err := filepath.Glob("testdata/schedules/*.txtar")
	require.NoError(t, err, "no test cases")
	require.NotEmpty(t, files, "no test cases")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			var src, expect *txtar.File
			strict := false
			for i := range ar.Files {
				switch ar.Files[i].Name {
				case "schedule.yaml":
					src = &ar.Files[i]
				case "expect":
					expect = &ar.Files[i]
				case "strict":
					strict = true
				}
			}
			require.NotNil(t, src, "need schedule.yaml and expect sections")
			require.NotNil(t, expect, "need schedule.yaml and expect sections")
			got := planText(src.Data, strict)
			wantOK := strings.HasPrefix(filepath.Base(file), "ok_")
			assert.Equalf(t, wantOK, !strings.HasPrefix(string(got), "error:"), "outcome does not match the file name:\n%s", got)
			golden.CheckSection(t, file, ar, "expect", got)
		})
	}
}

// planText is what `cycleabi plan --format json` prints: PlanText's plan
// (CheckText's when strict, as for --strict), or every problem it found.
func planText(src []byte, strict bool) []byte {
	read := PlanText
	if strict {
		read = CheckText
	}
	_, r, err := read("schedule.yaml", src)
	if err == nil {
		out, _ := json.MarshalIndent(r, "", "  ")
		return append(out, '\n')
	}
	return []byte("error: " + strings.ReplaceAll(err.Error(), "\n", "\nerror: ") + "\n")
}

// TestPlanErrorIsPositioned checks that a planner error found after
// parsing carries the value's line and column and is an *Error.
func TestPlanErrorIsPositioned(t *testing.T) {
	src := "num_workers: 2\ntasks: [{task_type: MatMul}]\ncube_task_indices: [0,\n  5]\n"
	s, err := Parse("x.yaml", []byte(src))
	require.NoError(t, err)
	_, err = Plan(s)
	var pe *Error
	require.ErrorAsf(t, err, &pe, "Plan error %v is not an *Error", err)
	assert.Equal(t, 4, pe.Line, "error's line")
	assert.Equal(t, 3, pe.Col, "error's column")
	assert.Equal(t, "cube_task_indices[1]", pe.Path, "error's path")
}

// TestCapacityPastMaximum covers the refusal a test cannot reach through a
// schedule without ~45 million queue entries.
func TestCapacityPastMaximum(t *testing.T) {
	p := &planner{s: &Schedule{File: "big.yaml"}}
	if _, ok := p.roundUp("vector_task_indices", "AIV", abi.MaxRecordsPerCore); !assert.True(t, ok, "MaxRecordsPerCore refused") {
		t.Log(p.err())
	}
	_, ok := p.roundUp("vector_task_indices", "AIV", abi.MaxRecordsPerCore+1)
	want := "big.yaml: vector_task_indices: the busiest AIV worker writes 134217713 records, more than the 134217712 a slot can hold"
	err := p.err()
	require.False(t, ok)
	require.EqualError(t, err, want)
}

// TestScheduleFromGo plans a schedule built in Go (no text, no positions).
func TestScheduleFromGo(t *testing.T) {
	s := &Schedule{
		NumWorkers:        2,
		Tasks:             []Task{NewTask(abi.TaskTypeMatMul)},
		CubeTaskIndices:   []uint32{0, 0, 3},
		VectorTaskIndices: []uint32{0},
	}
	_, err := Plan(s)
	assert.EqualErrorf(t, err, "cube_task_indices[2]: task 3 is out of range: the schedule has 1 tasks", "got %v", err)
	s.CubeTaskIndices = s.CubeTaskIndices[:2]
	r, err := Plan(s)
	require.NoError(t, err)
	// One AIC worker runs the MatMul twice: 2 x (compute + trigger).
	aic, aiv := r.Region(abi.CoreTypeAIC), r.Region(abi.CoreTypeAIV)
	assert.Equalf(t, uint64(4), aic.RequiredRecords, "got %+v", r)
	assert.Equalf(t, uint32(16), aic.RecordCapacity, "got %+v", r)
	assert.Equalf(t, uint64(2), aiv.RequiredRecords, "got %+v", r)
}

func TestParseFileNotFound(t *testing.T) {
	_, err := ParseFile("testdata/no-such-schedule.yaml")
	assert.ErrorContainsf(t, err, "testdata/no-such-schedule.yaml: schedule file not found", "got %v", err)
	var list *ErrorList
	assert.False(t, errors.As(err, &list), "a missing file is not a schedule problem")
}

// TestErrorListBounded: a thousand different bad entries make 20 errors
// and a count.
func TestErrorListBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("num_workers: 2\ntasks: []\ncube_task_indices: [")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%d, ", -1-i)
	}
	b.WriteString("]\n")
	_, err := Parse("bad.yaml", []byte(b.String()))
	var list *ErrorList
	require.ErrorAsf(t, err, &list, "got %v", err)
	assert.Len(t, list.Errs, maxErrors, "errors kept")
	assert.Equal(t, 1000-maxErrors, list.Omitted, "errors omitted")
	msg := err.Error()
	assert.Truef(t, strings.HasSuffix(msg, "(980 more errors)"), "error text ends %q", msg[max(0, len(msg)-40):])
}

// TestOneMistakeOnce: one task type misspelt in every GroupedMatMul task
// of the example (448 of them) is its first three places, the last one
// with the count of the rest, the suggestion, and the known names once.
func TestOneMistakeOnce(t *testing.T) {
	data, err := os.ReadFile("../examples/moe_layer.yaml")
	require.NoError(t, err)
	typo := strings.ReplaceAll(string(data), "task_type: GroupedMatMul", "task_type: GroupedMatmul")
	n := strings.Count(typo, "GroupedMatmul")
	_, err = Parse("moe.yaml", []byte(typo))
	require.Error(t, err, "the typo is accepted")
	lines := strings.Split(err.Error(), "\n")
	require.Lenf(t, lines, 5, "lines, want 3 places, the last with the count, the known names:\n%s", err)
	for _, l := range lines[:4] {
		assert.Contains(t, l, `.task_type: unknown task type "GroupedMatmul"; did you mean GroupedMatMul?`, "line")
	}
	want := fmt.Sprintf("(the last of %d more like this)", n-3)
	assert.Truef(t, strings.HasSuffix(lines[3], want), "line %q, want it to end %q", lines[3], want)
	require.Truef(t, strings.HasPrefix(lines[4], "known task types: Terminate, "), "the known names are not said once:\n%s", err)
	assert.Equalf(t, 1, strings.Count(err.Error(), "ShmemGetMem"), "the known names are not said once:\n%s", err)
}

// TestOneEventWarnedOnce: 100 tasks waiting on one event no task of the
// rank triggers (a peer's signal) are warned about as the first three,
// the last with the count of the other 96; with --strict (CheckText) the
// errors read the same, the count exact (not capped before it is made);
// a second such event has its own lines; the distinct ones past 20 are
// counted as warnings.
func TestOneEventWarnedOnce(t *testing.T) {
	schedule := func(events int) []byte {
		var b strings.Builder
		b.WriteString("num_workers: 2\ntasks:\n")
		var idx []string
		for e := range events {
			for i := range 100 {
				fmt.Fprintf(&b, "  - {task_type: AddCustom, dependent_event: %d}\n", 5+e)
				idx = append(idx, fmt.Sprint(e*100+i))
			}
		}
		fmt.Fprintf(&b, "vector_task_indices: [%s]\n", strings.Join(idx, ", "))
		return []byte(b.String())
	}
	_, r, err := PlanText("s.yaml", schedule(1))
	require.NoError(t, err)
	want := []string{
		"s.yaml:3:45: tasks[0].dependent_event: waits on event 5, ",
		"s.yaml:4:45: tasks[1].dependent_event: waits on event 5, ",
		"s.yaml:5:45: tasks[2].dependent_event: waits on event 5, ",
		"s.yaml:102:45: tasks[99].dependent_event: waits on event 5, ",
	}
	require.Len(t, r.Warnings, len(want), "warnings")
	for i, w := range want {
		assert.Truef(t, strings.HasPrefix(r.Warnings[i], w), "warning %d: %q, want it to start %q", i, r.Warnings[i], w)
	}
	assert.Truef(t, strings.HasSuffix(r.Warnings[3], "(the last of 97 more like this)"), "last warning %q", r.Warnings[3])
	_, _, err = CheckText("s.yaml", schedule(1))
	require.Error(t, err, "CheckText accepts the untriggered waits")
	lines := strings.Split(err.Error(), "\n")
	require.Lenf(t, lines, 4, "CheckText:\n%s", err)
	require.Truef(t, strings.HasSuffix(lines[3], "(the last of 97 more like this)"), "CheckText:\n%s", err)
	assert.Truef(t, strings.HasPrefix(lines[3], want[3]), "CheckText:\n%s", err)
	// Eight events: 20 warnings are kept (three for each of six events,
	// two of the seventh's), the six with more get their last line with a
	// count, and the other 198 (the seventh's and eighth's) are counted.
	_, r, err = PlanText("s.yaml", schedule(8))
	require.NoError(t, err)
	require.Len(t, r.Warnings, 20+6+1, "warnings")
	assert.Equal(t, "(198 more warnings)", r.Warnings[len(r.Warnings)-1], "the last warning")
}

func TestAssign(t *testing.T) {
	s := &Schedule{
		NumWorkers:        4,
		Tasks:             slices.Repeat([]Task{NewTask(abi.TaskTypeAddCustom)}, 6),
		CubeTaskIndices:   []uint32{0, 1, 2},
		VectorTaskIndices: []uint32{3, 4, 5, 3, 4},
	}
	r, err := Plan(s)
	require.NoError(t, err)
	a := Assign(s, r)
	want := map[string][]uint32{
		"AIC/0": {0, 2}, "AIC/1": {1}, "AIC/2": nil,
		"AIV/0": {3, 5, 4}, "AIV/1": {4, 3}, "AIV/2": nil,
	}
	for name, q := range want {
		ct, _ := abi.ParseCoreType(name[:3])
		got := a.Queue(ct, uint32(name[4]-'0'))
		assert.Truef(t, slices.Equal(got, q), "%s runs %v, want %v", name, got, q)
	}
	s.Mode, s.CubeTaskIndices = AIVPipeline, nil
	r, err = Plan(s)
	require.NoError(t, err)
	a = Assign(s, r)
	assert.True(t, slices.Equal(a.Queue(abi.CoreTypeAIV, 3), s.VectorTaskIndices), "pipeline worker 3 runs")
}

// TestScheduleMutations parses and plans every single-node mutant of the
// valid schedules under testdata/schedules (yamltest.Mutants). None may
// panic; every parse problem and every planning error names the file and
// a line.
func TestScheduleMutations(t *testing.T) {
	files, err := filepath.Glob("testdata/schedules/ok_*.txtar")
	require.NoError(t, err, "no valid schedules")
	require.NotEmpty(t, files, "no valid schedules")
	const file = "mutant.yaml"
	total := 0
	for _, path := range files {
		ar, err := txtar.ParseFile(path)
		require.NoError(t, err)
		var data []byte
		for _, f := range ar.Files {
			if f.Name == "schedule.yaml" {
				data = f.Data
			}
		}
		total += yamltest.Mutants(t, data, func(what string, mutant []byte) {
			defer func() {
				assert.Nilf(t, recover(), "%s: %s: panic", path, what)
			}()
			s, err := Parse(file, mutant)
			if err != nil {
				yamltest.Positioned(t, path+": "+what, file, err)
				return
			}
			if _, err := Plan(s); err != nil {
				var pe *Error
				require.ErrorAsf(t, err, &pe, "%s: %s: planning error without file and line: %v", path, what, err)
				require.Equalf(t, file, pe.File, "%s: %s: planning error without file and line: %v", path, what, err)
				assert.GreaterOrEqualf(t, pe.Line, 1, "%s: %s: planning error without file and line: %v", path, what, err)
			}
		})
		// CheckText plans what it can of a schedule with problems in its
		// text: it must not panic on the defaults a bad value leaves.
		yamltest.Mutants(t, data, func(what string, mutant []byte) {
			defer func() {
				assert.Nilf(t, recover(), "%s: %s: CheckText panics", path, what)
			}()
			if _, _, err := CheckText(file, mutant); err != nil {
				yamltest.Positioned(t, path+": "+what, file, err)
			}
		})
	}
	assert.GreaterOrEqual(t, total, 200, "only")
	t.Logf("%d mutants", total)
}
