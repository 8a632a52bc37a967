package yamlpos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

// One mistake at many places is its first SameMax places, the last one
// with the count of the rest, and its note once; other problems keep
// their places; Max still caps the kept ones in all; the counts are exact.
func TestListSameMistakeOnce(t *testing.T) {
	r := Reader{File: "s.yaml", Errs: List{Max: 6}}
	known := []string{"MatMul", "GroupedMatMul"}
	for i := range 10 {
		r.Unknown(&yaml.Node{Line: i + 1, Column: 3}, fmt.Sprintf("tasks[%d].task_type", i), "task type", "GroupedMatmul", known)
		if i%3 == 0 {
			r.Errorf(&yaml.Node{Line: i + 1, Column: 9}, fmt.Sprintf("tasks[%d].trigger_event", i), "event %d is negative", -i)
		}
	}
	r.Unknown(&yaml.Node{Line: 20, Column: 1}, "tasks[20].tsk_type", "key", "tsk_type", []string{"task_type", "owner_id"})
	l := &r.Errs
	assert.Equal(t, 10+4+1, l.Len(), "l.Len()")
	want := strings.Join([]string{
		`s.yaml:1:3: tasks[0].task_type: unknown task type "GroupedMatmul"; did you mean GroupedMatMul?`,
		`s.yaml:1:9: tasks[0].trigger_event: event 0 is negative`,
		`s.yaml:2:3: tasks[1].task_type: unknown task type "GroupedMatmul"; did you mean GroupedMatMul?`,
		`s.yaml:3:3: tasks[2].task_type: unknown task type "GroupedMatmul"; did you mean GroupedMatMul?`,
		`s.yaml:4:9: tasks[3].trigger_event: event -3 is negative`,
		`s.yaml:7:9: tasks[6].trigger_event: event -6 is negative`,
		`s.yaml:10:3: tasks[9].task_type: unknown task type "GroupedMatmul"; did you mean GroupedMatMul? (the last of 7 more like this)`,
		`(2 more errors)`, // event -9 and the key: past Max
		`known task types: MatMul, GroupedMatMul`,
	}, "\n")
	assert.Equal(t, want, l.Error(), "l.Error()")
	var first *Error
	require.ErrorAs(t, l, &first, "errors.As(l, &first) = false, want true")
	assert.Equal(t, 1, first.Line, "first.Line")

	// Negative SameMax: no per-message cap; a note is said once.
	all := List{SameMax: -1}
	for i := range 5 {
		e := At("n.yaml", &yaml.Node{Line: i + 1, Column: 1}, "", "same")
		e.Note = "known: a, b"
		all.Add(e)
	}
	assert.Len(t, all.Errs, 5, "len(all.Errs)")
	assert.Equal(t, 1, strings.Count(all.Error(), "known: a, b"), "strings.Count(all.Error(), \"known: a, b\")")
}

func TestUnknownKeyNotes(t *testing.T) {
	for path, note := range map[string]string{
		"colour":                 "known keys: a, b",
		"tasks[3].colour":        "known keys of an entry of tasks[]: a, b",
		"[0].colour":             "known keys of an entry: a, b",
		"layout.colour":          "known keys of layout: a, b",
		"s[1].fields[22].colour": "known keys of an entry of s[].fields[]: a, b",
	} {
		r := Reader{File: "f.yaml"}
		r.Unknown(&yaml.Node{Line: 1, Column: 1}, path, "key", "colour", []string{"a", "b"})
		assert.Equalf(t, note, r.Errs.Errs[0].Note, "%s: r.Errs.Errs[0].Note", path)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"Terminate", "MatMul", "GroupedMatMul", "SwiGLU", "SwiGLUGrad", "event_driven", "aiv_pipeline", "num_workers", "owner_id", "direction"}
	for got, want := range map[string]string{
		"GroupedMatmul":                 "GroupedMatMul", // case
		"matmul":                        "MatMul",
		"MatMull":                       "MatMul", // one edit
		"GrupedMatMal":                  "GroupedMatMul",
		"swiglu_grad":                   "SwiGLUGrad",
		"num_worker":                    "num_workers",
		"owner":                         "owner_id", // a prefix
		"dir":                           "direction",
		"event-driven":                  "event_driven",
		"Terminat":                      "Terminate",
		"pipelined":                     "", // too far from all
		"x":                             "",
		"":                              "",
		"MatMul":                        "", // known already
		strings.Repeat("MatMul", 10000): "",
	} {
		s := Suggest(got, known)
		if want == "" {
			assert.Emptyf(t, s, "%s: s", got)
		} else {
			assert.Equalf(t, "; did you mean "+want+"?", s, "%s: s", got)
		}
	}
}

// editDistance is the Levenshtein distance: checked against its
// recursive definition on short random strings.
func TestEditDistance(t *testing.T) {
	var lev func(a, b []rune) int
	lev = func(a, b []rune) int {
		switch {
		case len(a) == 0:
			return len(b)
		case len(b) == 0:
			return len(a)
		case a[0] == b[0]:
			return lev(a[1:], b[1:])
		}
		return 1 + min(lev(a[1:], b), lev(a, b[1:]), lev(a[1:], b[1:]))
	}
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SliceOfN(rapid.RuneFrom([]rune("abcé")), 0, 6)
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		require.Equalf(t, lev(a, b), editDistance(a, b), "editDistance(%q, %q)", string(a), string(b))
	})
}

// Merge keeps each problem's place in its message's count; Each visits
// the kept problems and each message's last (to locate them); What names
// the problems past Max.
func TestListMergeEach(t *testing.T) {
	var o List
	for i := range 10 {
		o.Add(&Error{Path: fmt.Sprintf("tasks[%d]", i), Msg: "same"})
	}
	o.Add(&Error{Path: "x", Msg: "other"})
	l := List{Max: 3, What: "warnings"}
	l.Add(&Error{Path: "first", Msg: "first"})
	l.Merge(&o)
	var seen []string
	l.Each(func(e *Error) { seen = append(seen, e.Path) })
	assert.Equal(t, []string{"first", "tasks[0]", "tasks[1]", "tasks[9]"}, seen, "seen")
	assert.Equal(t, 12, l.Len(), "l.Len()")
	assert.Equal(t, "first: first\ntasks[0]: same\ntasks[1]: same\ntasks[9]: same (the last of 7 more like this)\n(2 more warnings)", l.Error(), "l.Error()")
}
