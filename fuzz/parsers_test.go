package fuzz_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/cppgen"
	"github.com/megakernel/cycleabi/internal/docgen"
	"github.com/megakernel/cycleabi/internal/gogen"
	"github.com/megakernel/cycleabi/internal/schema"
	"github.com/megakernel/cycleabi/plan"
)

// maxText is the largest text file (schema, names file) a parser target
// looks at; schedules get maxInput.
const maxText = 64 << 10

// addFiles adds the contents of the files matching each pattern as seeds.
func addFiles(f *testing.F, patterns ...string) {
	f.Helper()
	n := 0
	for _, p := range patterns {
		paths, err := filepath.Glob(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			n++
		}
	}
	if n == 0 {
		f.Fatalf("no seed files match %v", patterns)
	}
}

// FuzzSchemaLoad loads arbitrary text as an ABI schema. Load never panics;
// an error is a schema.ErrorList whose every entry names the file and a
// line (and prints them first); a schema it accepts loads again to the
// same fingerprint, and every emitter (Go, C++, docs) renders it without
// panicking.
func FuzzSchemaLoad(f *testing.F) {
	addFiles(f, "../abi/schema.yaml", "../internal/schema/testdata/*.yaml", "../internal/schema/testdata/invalid/*.yaml",
		"../internal/cppgen/testdata/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxText {
			return
		}
		const file = "fuzz.yaml"
		s, err := schema.Load(file, data)
		if err != nil {
			var list *schema.ErrorList
			if !errors.As(err, &list) || list.Len() == 0 {
				t.Fatalf("Load error is not a non-empty schema.ErrorList: %T %v", err, err)
			}
			for _, e := range list.Errs {
				if e.File != file || e.Line < 1 {
					t.Fatalf("schema error without file and line: %+v", e)
				}
				if prefix := fmt.Sprintf("%s:%d:", file, e.Line); !strings.HasPrefix(e.Error(), prefix) {
					t.Fatalf("schema error %q does not start with %q", e.Error(), prefix)
				}
			}
			return
		}
		again, err := schema.Load(file, data)
		if err != nil || again.Fingerprint != s.Fingerprint || again.Canonical() != s.Canonical() {
			t.Fatalf("loading the same schema twice: %v, fingerprints %x and %x", err, s.Fingerprint, again.Fingerprint)
		}
		// The emitters may refuse a schema (a name that collides in one
		// language); they must not panic on one the model accepted.
		_, _ = cppgen.Generate(s)
		_, _ = gogen.Generate(s)
		_, _ = docgen.Generate(s)
	})
}

// FuzzNamesFile parses arbitrary text as a kernel's names file. ParseNames
// never panics; an error is a list of NamesErrors each naming the file and
// a line; names it accepts are the names StageName and TaskStage give back,
// and EventName uses them.
func FuzzNamesFile(f *testing.F) {
	addFiles(f, "../examples/*.names.yaml")
	for _, seed := range []string{
		"stages:\n  0x10001: Prefetch\ngraph_stages:\n  0: Dispatch\n  1: ExpertFFN\ntasks:\n  0: Dispatch\n  0x11: Combine\n",
		`{"stages": {"65537": "Prefetch"}, "graph_stages": {"3": "Gate"}, "tasks": {"17": "Combine"}}`,
		"graph_stages:\n  0x10000: TooBig\n",
		"tasks:\n  -1: Negative\n",
		"stages: [1, 2]\n",
		"stages:\n  1: a\n  1: b\n",
		"graph_stages: {0: \"\"}\n",
		"tasks: &a {0: x}\nstages: *a\n",
		"\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxText {
			return
		}
		const file = "names.yaml"
		n, err := decode.ParseNames(file, data)
		if err != nil {
			var list *decode.NamesErrors
			var one *decode.NamesError
			switch {
			case errors.As(err, &list):
				if list.Len() == 0 {
					t.Fatalf("empty NamesErrors")
				}
				for _, e := range list.Errs {
					checkNamesError(t, e, file)
				}
			case errors.As(err, &one):
				checkNamesError(t, one, file)
			default:
				t.Fatalf("ParseNames error is not a NamesError: %T %v", err, err)
			}
			return
		}
		for id, name := range n.Stages {
			if got := n.StageName(id); got != name {
				t.Fatalf("StageName(%#x) = %q, the file says %q", id, got, name)
			}
			r := abi.ProfileRecord{DescID: id, OwnerID: abi.InvalidOwnerID}
			if got := n.EventName(&r, false, ""); !strings.HasSuffix(got, name) {
				t.Fatalf("EventName of desc_id %#x = %q, does not end in %q", id, got, name)
			}
		}
		for id, name := range n.Tasks {
			if got, ok := n.TaskStage(id); !ok || got != name {
				t.Fatalf("TaskStage(%d) = %q, %v; the file says %q", id, got, ok, name)
			}
			r := abi.ProfileRecord{DescID: abi.RuntimeStageWaitDependency, TaskID: id, OwnerID: abi.InvalidOwnerID}
			if got := n.EventName(&r, false, ""); !strings.HasPrefix(got, name+"_") {
				t.Fatalf("EventName of a wait of task %d = %q, not prefixed with %q", id, got, name)
			}
		}
	})
}

func checkNamesError(t *testing.T, e *decode.NamesError, file string) {
	t.Helper()
	if e.File != file || e.Line < 1 {
		t.Fatalf("names error without file and line: %+v", e)
	}
}

// FuzzSchedule parses arbitrary text as a schedule and plans it. Parse
// never panics and its errors are a plan.ErrorList, each naming the file
// and a line; Plan never panics, and its error is a *plan.Error naming a
// line; a plan it makes is consistent: capacities aligned, the smallest
// that hold the busiest worker's records (0 for AIC in an AIV pipeline),
// at least MinCubeSlots cube slots holding every worker, and a buffer
// size equal to its layout's.
func FuzzSchedule(f *testing.F) {
	paths, err := filepath.Glob("../plan/testdata/schedules/*.txtar")
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
	addFiles(f, "../examples/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxInput {
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
	for _, c := range []struct {
		name     string
		required uint64
		capacity uint32
	}{{"AIC", r.AICRequiredRecords, r.AICRecordCapacity}, {"AIV", r.AIVRequiredRecords, r.AIVRecordCapacity}} {
		if c.capacity%abi.RecordCapacityAlignment != 0 || uint64(c.capacity) < c.required || uint64(c.capacity) >= c.required+abi.RecordCapacityAlignment {
			t.Fatalf("%s capacity %d for %d required records", c.name, c.capacity, c.required)
		}
	}
	if r.Mode == plan.AIVPipeline && r.AICRecordCapacity != 0 {
		t.Fatalf("AIV pipeline with AIC capacity %d", r.AICRecordCapacity)
	}
	if r.CubeSlotCount < abi.MinCubeSlots || r.AICWorkers > r.CubeSlotCount || uint64(r.AIVWorkers) > 2*uint64(r.CubeSlotCount) {
		t.Fatalf("%d cube slots for %d AIC and %d AIV workers", r.CubeSlotCount, r.AICWorkers, r.AIVWorkers)
	}
	l, err := r.Layout()
	if err != nil {
		t.Fatalf("the plan's layout: %v", err)
	}
	if l.Size() != r.BufferSize {
		t.Fatalf("buffer size %d, layout size %d", r.BufferSize, l.Size())
	}
}
