package kernelnames

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/yamltest"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNames(t *testing.T) {
	yamlText := `# a kernel's names
stages:
  0x10001: Prefetch
  65542: Shutdown          # overrides the schema's TerminateTask
graph_stages:
  0: Dispatch
  0x1f: Combine
tasks:
  7: Dispatch
  0x11: "Combine \"late\""
`
	jsonText := `{
  "stages": {"0x10001": "Prefetch", "65542": "Shutdown"},
  "graph_stages": {"0": "Dispatch", "0x1f": "Combine"},
  "tasks": {"7": "Dispatch", "17": "Combine \"late\""}
}`
	want := &Names{
		Stages: map[uint32]string{0x10001: "Prefetch", 0x10006: "Shutdown", 0x30000: "Dispatch", 0x3001f: "Combine"},
		Tasks:  TaskNamesOf(map[uint32]string{7: "Dispatch", 17: `Combine "late"`}),
	}
	for name, text := range map[string]string{"names.yaml": yamlText, "names.json": jsonText} {
		got, err := Parse(name, []byte(text))
		require.NoErrorf(t, err, "%s", name)
		assert.Truef(t, sameNames(got, want), "%s: got %+v, want %+v", name, got, want)
	}
	// A name is any scalar but null, as written: the one string rule of
	// every YAML reader (yamlpos.Reader).
	got, err := Parse("n.yaml", []byte("tasks:\n  1: 123\n  2: true\n  3: 0x10\n"))
	require.NoErrorf(t, err, "scalar names: got %+v", got)
	assert.Equalf(t, map[uint32]string{1: "123", 2: "true", 3: "0x10"}, maps.Collect(got.Tasks.All()), "scalar names: got %+v", got)
	// Valid JSON go-yaml refused: a surrogate pair (Python's json.dump
	// writes one for every emoji), a raw DEL.
	got, err = Parse("n.json", []byte("{\"tasks\":{\"0\":\"\\ud83d\\ude00\", \"1\": \"a\x7fb\"}}"))
	require.NoErrorf(t, err, "JSON escapes: got %+v", got)
	assert.Equalf(t, map[uint32]string{0: "😀", 1: "a\x7fb"}, maps.Collect(got.Tasks.All()), "JSON escapes: got %+v", got)
	for _, empty := range []string{"", "# nothing\n", "null\n", "stages:\ntasks: {}\n"} {
		got, err := Parse("empty.yaml", []byte(empty))
		require.NoErrorf(t, err, "%q: got %+v", empty, got)
		require.Emptyf(t, got.Stages, "%q: got %+v", empty, got)
		assert.Equalf(t, 0, got.Tasks.Len(), "%q: got %+v", empty, got)
	}
}

func TestParseNamesErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"stages: [1, 2]\n", `n.yaml:1:9: stages: expected a mapping of id -> name, got a list`},
		{"- 1\n", `n.yaml:1:1: expected a mapping with stages, graph_stages and tasks, got a list`},
		{"stage:\n  1: x\n", "n.yaml:1:1: stage: unknown key \"stage\"; did you mean stages?\nknown keys: stages, graph_stages, tasks"},
		{"tasks:\n  1: a\ntasks:\n  2: b\n", `n.yaml:3:1: tasks: duplicate key "tasks"`},
		{"tasks:\n  abc: x\n", `n.yaml:2:3: tasks.abc: key "abc" is not an id (decimal, or hex with 0x)`},
		{"tasks:\n  -1: x\n", `n.yaml:2:3: tasks.-1: key "-1" is not an id (decimal, or hex with 0x)`},
		{"tasks:\n  017: x\n", `n.yaml:2:3: tasks.017: key "017" is not an id (decimal, or hex with 0x)`},
		{"tasks:\n  4294967296: x\n", `n.yaml:2:3: tasks.4294967296: 4294967296 is past the largest id 0xffffffff`},
		{"tasks:\n  99999999999999999999999: x\n", `n.yaml:2:3: tasks.99999999999999999999999: id 99999999999999999999999 does not fit in 64 bits`},
		{"graph_stages:\n  0x10000: x\n", `n.yaml:2:3: graph_stages.0x10000: 0x10000 is past the largest id 0xffff`},
		{"tasks:\n  16: a\n  0x10: b\n", `n.yaml:3:3: tasks.0x10: id 16 is already named at line 2`},
		{"tasks:\n  1:\n", `n.yaml:2:5: tasks.1: expected a name, got null`},
		{"tasks:\n  1: [a]\n", `n.yaml:2:6: tasks.1: expected a name, got a list`},
		{"tasks:\n  1: '  '\n", `n.yaml:2:6: tasks.1: a name must not be empty`},
		{"stages:\n  0x30002: A\ngraph_stages:\n  2: B\n", `n.yaml:4:3: graph_stages.2: desc_id 0x30002 is already named at line 2`},
		{"stages: {\n", `n.yaml:1:1: invalid YAML or JSON: did not find expected node content`},
		{"tasks:\n  1: a\n 2: b\n", `n.yaml:2:1: invalid YAML or JSON: did not find expected key`},
		// Nothing may follow the document: not a second object, not text,
		// not a second YAML document (each fast path refuses it too).
		{`{"tasks": {"1": "a"}} {"tasks": {"2": "b"}}`, `n.yaml:1:23: text after the end of the document`},
		{"{\"tasks\": {\"1\": \"a\"}}\n garbage [", `n.yaml:2:2: text after the end of the document`},
		{"tasks:\n  1: a\n---\ntasks:\n  2: b\n", `n.yaml:3:1: a second document starts here; the file must hold one`},
		{"tasks:\n  1: a\n...\ngarbage [\n", `n.yaml:4:1: text after the end of the document`},
	} {
		_, err := Parse("n.yaml", []byte(tc.text))
		if !assert.Errorf(t, err, "%q: no error, want %s", tc.text, tc.want) {
			continue
		}
		_, ok := err.(*Errors)
		assert.Truef(t, ok, "%q: error %T, want Errors", tc.text, err)
		assert.Truef(t, strings.HasPrefix(err.Error(), tc.want), "%q:\n\nwant %s", tc.text, tc.want)
	}
}

// Every problem in a file is reported, not just the first.
func TestParseNamesReportsAll(t *testing.T) {
	_, err := Parse("n.yaml", []byte("tasks:\n  x: a\n  2:\n  3: c\nbogus: 1\n"))
	list, ok := err.(*Errors)
	require.Truef(t, ok, "got %v, want 3 errors", err)
	require.Equalf(t, 3, list.Len(), "got %v, want 3 errors", err)
	for i, line := range []int{2, 3, 5} {
		e := list.Errs[i]
		assert.Equalf(t, line, e.Line, "error %d at line: %v", i, e)
	}
}

func TestLoadNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.names.yaml")
	require.NoError(t, os.WriteFile(path, []byte("graph_stages: {3: Gate}\n"), 0o644))
	n, err := Load(path)
	require.NoErrorf(t, err, "got %+v", n)
	require.Equalf(t, "Gate", n.Stages[abi.GraphStageBase+3], "got %+v", n)
	_, err = Load(path + ".missing")
	assert.ErrorIs(t, err, fs.ErrNotExist, "missing file")
}

func TestEventName(t *testing.T) {
	names := &Names{
		Stages: map[uint32]string{0x30001: "Dispatch", 0x20067: "MyMatMul"},
		Tasks:  TaskNamesOf(map[uint32]string{5: "Combine"}),
	}
	rec := func(desc, task, index, owner uint32) *abi.ProfileRecord {
		return &abi.ProfileRecord{DescID: desc, TaskID: task, StageTaskIndex: index, OwnerID: owner}
	}
	const none = abi.InvalidOwnerID
	for _, tc := range []struct {
		names    *Names
		r        *abi.ProfileRecord
		detailed bool
		want     string
	}{
		{nil, rec(0x10000, 5, 0, none), false, "WaitDependency"},
		{names, rec(0x10000, 5, 0, none), false, "Combine_WaitDependency"},
		{names, rec(0x10007, 5, 0, none), false, "Combine_TriggerEvent"},
		{names, rec(0x10006, 5, 0, none), false, "TerminateTask"},  // not prefixed
		{names, rec(0x10000, 6, 0, none), false, "WaitDependency"}, // task without a stage
		{names, rec(0x10001, 5, 0, none), false, "DescId_65537"},
		{names, rec(0x20067, 5, 0, none), false, "MyMatMul"}, // user stage overrides the schema
		{nil, rec(0x20067, 5, 0, none), false, "TaskType_MatMul"},
		{nil, rec(0x200fa, 5, 0, none), false, "TaskType_250"},
		{names, rec(0x30001, 5, 0, none), false, "Dispatch"},
		{names, rec(0x30005, 5, 0, none), false, "GraphStage_5"},
		{nil, rec(0x40000, 5, 0, none), false, "DescId_262144"},
		{nil, rec(7, 5, 0, none), false, "DescId_7"},
		{names, rec(0x10007, 5, 2, none), true, "Combine_TriggerEvent_task3"},
		{names, rec(0x10007, 5, 2, 9), true, "Expert9_Combine_TriggerEvent_task3"},
		{nil, rec(0x20067, 5, 0xFFFFFFFF, 0), true, "Expert0_TaskType_MatMul_task4294967296"},
		{nil, rec(0x20067, 5, 0, 9), false, "TaskType_MatMul"}, // owner only in detailed names
	} {
		assert.Equalf(t, tc.want, tc.names.EventName(tc.r, tc.detailed, "Expert"), "%+v detailed=%v", *tc.r, tc.detailed)
	}
}

// TestParseNamesMutations parses every single-node mutant of a names file
// (yamltest.Mutants) through Parse, fast paths included. None may
// panic; every problem names the file and a line.
func TestParseNamesMutations(t *testing.T) {
	text := "stages:\n  0x10001: Prefetch\n  65542: Shutdown\ngraph_stages:\n  0: Dispatch\n  0x1f: Combine\ntasks:\n  7: Dispatch\n  0x11: \"Combine late\"\n"
	const file = "mutant.yaml"
	n := yamltest.Mutants(t, []byte(text), func(what string, mutant []byte) {
		defer func() {
			assert.Nilf(t, recover(), "%s: panic", what)
		}()
		_, err := Parse(file, mutant)
		yamltest.Positioned(t, what, file, err)
	})
	assert.GreaterOrEqual(t, n, 30, "only")
}

// A names file the fast paths do not read is read as YAML nodes, under the
// YAML cap: past it the error names the cap, the variable that raises it,
// and where the fast path stopped. A file the fast path reads is not held
// to that cap.
func TestParseNamesYAMLCap(t *testing.T) {
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "30")
	fast := "tasks:\n  1: Dispatch\n  2: Combine\n  3: Gate\n"
	n, err := Parse("n.yaml", []byte(fast))
	require.NoError(t, err, "fast path")
	require.Equalf(t, 3, n.Tasks.Len(), "fast path: %+v", n)
	slow := "tasks:\n  1: Dispatch\n  2: 'Com bine'\n  3: Gate\n"
	_, err = Parse("n.yaml", []byte(slow))
	var le *yamlpos.LimitError
	require.ErrorAsf(t, err, &le, "got %T %v, want a LimitError", err, err)
	for _, want := range []string{"n.yaml: 47 bytes is more than the cap of 30 bytes", "CYCLEABI_MAX_YAML_BYTES", "stopped at line 3, column 1"} {
		assert.Containsf(t, err.Error(), want, "%v\nlacks", err)
	}
}

// sameNames reports whether a and b name the same stages and tasks,
// however their tables are laid out.
func sameNames(a, b *Names) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Stages, b.Stages) && reflect.DeepEqual(maps.Collect(a.Tasks.All()), maps.Collect(b.Tasks.All()))
}
