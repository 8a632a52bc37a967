package yamltest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/megakernel/cycleabi/internal/yamlpos"
)

func TestMutants(t *testing.T) {
	var got []string
	n := Mutants(t, []byte("a: [1]\n"), func(what string, mutant []byte) {
		got = append(got, what+" => "+string(mutant))
	})
	all := []string{
		"delete a => {}\n",
		"delete a[0] => a: []\n",
		"replace a[0] with !!null => a: [~]\n",
		"replace a[0] with !!seq => a: [[]]\n",
		"replace a[0] with !!map => a: [{}]\n",
		"replace a with !!null => a: ~\n",
		"replace a with !!seq => a: []\n",
		"replace a with !!map => a: {}\n",
		"replace the document with !!null => ~\n",
		"replace the document with !!seq => []\n",
		"replace the document with !!map => {}\n",
	}
	want := all
	if testing.Short() { // every ShortStride-th, from the first
		want = nil
		for i := 0; i < len(all); i += ShortStride {
			want = append(want, all[i])
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if n != len(all) {
		t.Errorf("n = %v, want %v (every mutant made is counted)", n, len(all))
	}
}

// recorder is a testing.TB that keeps what Positioned reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

func TestPositioned(t *testing.T) {
	check := func(err error) int {
		r := &recorder{TB: t}
		Positioned(r, "case", "f.yaml", err)
		return len(r.errs)
	}
	if got := check(nil); got != 0 {
		t.Errorf("check(nil) = %v, want 0", got)
	}
	if got := check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "f.yaml", Line: 2, Col: 1, Msg: "x"}}}); got != 0 {
		t.Errorf("got %v, want 0", got)
	}
	if got := check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "f.yaml", Msg: "no line"}}}); got != 1 {
		t.Errorf("got %v, want 1", got)
	}
	if got := check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "g.yaml", Line: 1, Msg: "other file"}}}); got != 1 {
		t.Errorf("got %v, want 1", got)
	}
	if got := check(errors.New("not a list")); got != 1 {
		t.Errorf("check(errors.New(\"not a list\")) = %v, want 1", got)
	}
	if got := check(&yamlpos.List{}); got != 1 {
		t.Errorf("check(&yamlpos.List{}) = %v, want 1", got)
	}
}
