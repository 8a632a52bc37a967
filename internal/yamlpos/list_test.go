package yamlpos

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

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
	if got := l.Len(); got != 10+4+1 {
		t.Errorf("l.Len() = %v, want %v", got, 10+4+1)
	}
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
	if got := l.Error(); got != want {
		t.Errorf("l.Error() = %q, want %q", got, want)
	}
	var first *Error
	if !errors.As(l, &first) {
		t.Fatalf("errors.As(l, &first) = false, want true")
	}
	if first.Line != 1 {
		t.Errorf("first.Line = %v, want 1", first.Line)
	}

	// Negative SameMax: no per-message cap; a note is said once.
	all := List{SameMax: -1}
	for i := range 5 {
		e := At("n.yaml", &yaml.Node{Line: i + 1, Column: 1}, "", "same")
		e.Note = "known: a, b"
		all.Add(e)
	}
	if len(all.Errs) != 5 {
		t.Errorf("len(all.Errs) = %d, want 5: %v", len(all.Errs), all.Errs)
	}
	if got := strings.Count(all.Error(), "known: a, b"); got != 1 {
		t.Errorf("strings.Count(all.Error(), \"known: a, b\") = %v, want 1", got)
	}
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
		if r.Errs.Errs[0].Note != note {
			t.Errorf("%s: r.Errs.Errs[0].Note = %q, want %q", path, r.Errs.Errs[0].Note, note)
		}
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
			if s != "" {
				t.Errorf("%s: s = %q, want empty", got, s)
			}
		} else {
			if s != "; did you mean "+want+"?" {
				t.Errorf("%s: s = %q, want %q", got, s, "; did you mean "+want+"?")
			}
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
		if got, want := editDistance(a, b), lev(a, b); got != want {
			t.Fatalf("editDistance(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
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
	if want := []string{"first", "tasks[0]", "tasks[1]", "tasks[9]"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("seen = %v, want %v", seen, want)
	}
	if got := l.Len(); got != 12 {
		t.Errorf("l.Len() = %v, want 12", got)
	}
	if got := l.Error(); got != "first: first\ntasks[0]: same\ntasks[1]: same\ntasks[9]: same (the last of 7 more like this)\n(2 more warnings)" {
		t.Errorf("l.Error() = %q, want %q", got, "first: first\ntasks[0]: same\ntasks[1]: same\ntasks[9]: same (the last of 7 more like this)\n(2 more warnings)")
	}
}
