package analyze

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
)

func section(rank uint32, inv *Invocation, capture string, makespan uint64) *Rank {
	return &Rank{Rank: rank, Invocation: inv, Capture: capture, CycleFrequencyMHz: 50, MakespanCycles: makespan,
		Regions: map[string]*Totals{}, Totals: &Totals{}}
}

func inv(id int64, step int64, dir string) *Invocation {
	return &Invocation{ID: id, Step: &step, Direction: &dir}
}

func TestInvocationLabels(t *testing.T) {
	step := int64(3)
	dir := "backward"
	for want, v := range map[string]*Invocation{
		"invocation 0":                    {},
		"invocation 1 (step 3)":           {ID: 1, Step: &step},
		"invocation 2 (backward)":         {ID: 2, Direction: &dir},
		"invocation 7 (step 3, backward)": {ID: 7, Step: &step, Direction: &dir},
	} {
		if got := v.String(); got != want {
			t.Errorf("v.String() = %q, want %q", got, want)
		}
	}
	if got := section(4, nil, "a", 0).label(); got != "rank 4" {
		t.Errorf("section(4, nil, \"a\", 0).label() = %q, want %q", got, "rank 4")
	}
	if got := section(4, &Invocation{ID: 7, Step: &step, Direction: &dir}, "a", 0).label(); got != "rank 4 invocation 7 (step 3, backward)" {
		t.Errorf("got %q, want %q", got, "rank 4 invocation 7 (step 3, backward)")
	}
}

// TestCompareInvocations: sections are paired by (rank, invocation id),
// not by their order; a section on one side only, or twice on one side,
// is an error naming it.
func TestCompareInvocations(t *testing.T) {
	base := NewReport([]*Rank{
		section(0, inv(0, 3, "forward"), "f0", 100), section(0, inv(1, 3, "backward"), "b0", 200),
		section(1, inv(0, 3, "forward"), "f1", 300),
	})
	next := NewReport([]*Rank{
		section(1, inv(0, 4, "forward"), "F1", 330), section(0, inv(1, 4, "backward"), "B0", 150),
		section(0, inv(0, 4, "forward"), "F0", 100),
	})
	d, err := Compare(base, next, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ranks) != 3 {
		t.Fatalf("len(d.Ranks) = %d, want 3: %v", len(d.Ranks), d.Ranks)
	}
	type pair struct {
		base, new string
		abs       float64
	}
	var got []pair
	for _, r := range d.Ranks {
		got = append(got, pair{r.BaseCapture, r.NewCapture, r.Makespan.Abs})
	}
	if want := []pair{{"f0", "F0", 0}, {"b0", "B0", -50}, {"f1", "F1", 30}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if *d.Ranks[1].Invocation.Step != int64(4) {
		t.Errorf("labelled with the new side's invocation: *d.Ranks[1].Invocation.Step = %v, want %v", *d.Ranks[1].Invocation.Step, int64(4))
	}
	var text bytes.Buffer
	if err := d.WriteText(&text, 0); err != nil {
		t.Fatal(err)
	}
	if got := text.String(); !strings.Contains(got, "== rank 0 invocation 1 (step 4, backward): b0 -> B0 ==\n") {
		t.Errorf("text.String() = %q, want it to contain %q", got, "== rank 0 invocation 1 (step 4, backward): b0 -> B0 ==\n")
	}
	if got := text.String(); strings.Contains(got, "no change") {
		t.Errorf("text.String() = %q, want no %q", got, "no change")
	}

	// The cross table of the base: the slowest is rank 1's invocation 0.
	if base.CrossRank == nil {
		t.Fatalf("base.CrossRank is nil, want non-nil")
	}
	if base.CrossRank.SlowestRank != uint32(1) {
		t.Errorf("base.CrossRank.SlowestRank = %v, want %v", base.CrossRank.SlowestRank, uint32(1))
	}
	if base.CrossRank.SlowestInvocation == nil {
		t.Fatalf("base.CrossRank.SlowestInvocation is nil, want non-nil")
	}
	if *base.CrossRank.SlowestInvocation != int64(0) {
		t.Errorf("*base.CrossRank.SlowestInvocation = %v, want %v", *base.CrossRank.SlowestInvocation, int64(0))
	}
	if base.CrossRank.SpreadCycles != uint64(200) {
		t.Errorf("base.CrossRank.SpreadCycles = %v, want %v", base.CrossRank.SpreadCycles, uint64(200))
	}
	js, err := json.Marshal(base.CrossRank.Ranks[1])
	if err != nil {
		t.Fatal(err)
	}
	if d := golden.JSONDiff(string(js), `{"rank":0,"invocation":{"invocation_id":1,"step":3,"direction":"backward"},"capture":"b0","makespan_cycles":200,"makespan_us":0,`+
		`"compute_cycles":0,"wait_cycles":0,"trigger_cycles":0,"other_cycles":0,"idle_cycles":0,"busy_pct":0,"wait_pct":0,"busiest_stage":"","slow":false}`); d != "" {
		t.Error(d)
	}
	// Plain ranks keep their JSON: no invocation keys.
	plain, err := json.Marshal(NewReport([]*Rank{section(0, nil, "r0", 1), section(1, nil, "r1", 2)}).CrossRank)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(plain); strings.Contains(got, "invocation") {
		t.Errorf("string(plain) = %q, want no %q", got, "invocation")
	}
	if got := string(plain); !strings.Contains(got, `"slow_ranks":[{"rank":1}]`) {
		t.Errorf("rank 1's makespan is twice rank 0's: string(plain) = %q, want it to contain %q", got, `"slow_ranks":[{"rank":1}]`)
	}

	for _, c := range []struct {
		base, new []*Rank
		want      string
	}{
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, inv(1, 1, "forward"), "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(2, 1, "forward"), "C", 1)},
			"rank 0 invocation 1 (step 1, forward) (b) is not in the new analysis"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, nil, "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(0, 1, "forward"), "B", 1)},
			"the new analysis has rank 0 invocation 0 (step 1, forward) twice (A and B)"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(0, inv(0, 2, "forward"), "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(0, inv(1, 1, "forward"), "B", 1)},
			"the base analysis has rank 0 invocation 0 (step 2, forward) twice (a and b)"},
		{[]*Rank{section(0, inv(0, 1, "forward"), "a", 1), section(1, nil, "b", 1)},
			[]*Rank{section(0, inv(0, 1, "forward"), "A", 1), section(1, nil, "B", 1), section(2, nil, "C", 1)},
			"rank 2 (C) is not in the base analysis"},
	} {
		_, err := Compare(NewReport(c.base), NewReport(c.new), false)
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
