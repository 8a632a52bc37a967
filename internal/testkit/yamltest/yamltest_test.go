package yamltest

import (
	"errors"
	"testing"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
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
	assert.Equal(t, want, got)
	assert.Equal(t, len(all), n, "n")
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
	assert.Equal(t, 0, check(nil), "check(nil)")
	assert.Equal(t, 0, check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "f.yaml", Line: 2, Col: 1, Msg: "x"}}}))
	assert.Equal(t, 1, check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "f.yaml", Msg: "no line"}}}))
	assert.Equal(t, 1, check(&yamlpos.List{Errs: []*yamlpos.Error{{File: "g.yaml", Line: 1, Msg: "other file"}}}))
	assert.Equal(t, 1, check(errors.New("not a list")), "check(errors.New(\"not a list\"))")
	assert.Equal(t, 1, check(&yamlpos.List{}), "check(&yamlpos.List{})")
}
