package emit

import (
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblems: a collision is reported at the schema element involved
// (the earlier one's when the later is the file's own name), and Err lists
// the problems in file order whatever order they were found in.
func TestProblems(t *testing.T) {
	var f File
	f.Lang = "C++"
	require.NoError(t, f.Err("s.yaml"), "no problem recorded, Err")
	f.Declare("kA", "enum A", schema.Pos{Line: 9, Col: 3})
	f.Declare("kA", "the header's own kA", schema.Pos{}) // blamed on line 9
	f.Declare("kB", "the header's own kB", schema.Pos{})
	f.Declare("kB", "constant B", schema.Pos{Line: 4, Col: 5})
	f.ErrorAt(schema.Pos{Line: 9, Col: 1}, "first on line %d", 9)
	f.P("x = %d", 1)
	want := "s.yaml:4:5: C++ name kB of constant B is already taken by the header's own kB\n" +
		"s.yaml:9:1: first on line 9\n" +
		"s.yaml:9:3: C++ name kA of the header's own kA is already taken by enum A"
	err := f.Err("s.yaml")
	assert.EqualErrorf(t, err, want, "Err =\n%v\nwant\n%s", err, want)
	assert.Equal(t, "x = 1\n", f.Buf.String(), "P wrote")
}
