package input

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefuseTraces: a JSON trace among a window's captures is refused,
// named by its manifest line, as a usage error; captures and a file that
// cannot be read pass (what reads them reports the latter).
func TestRefuseTraces(t *testing.T) {
	t.Parallel()
	assert.NoError(t, RefuseTraces([]string{exampleCapture, "no-such-file.bin"}, nil), "captures")
	err := RefuseTraces([]string{exampleCapture, statedTrace}, []string{"w.yaml:1", "w.yaml:2"})
	want := "w.yaml:2: " + statedTrace + ": a JSON trace states its own ranks and invocations: give it as an argument, without --invocation-manifest, --step or --direction"
	var ie *Error
	require.EqualError(t, err, want, "a trace in a window")
	require.ErrorAs(t, err, &ie, "a trace in a window")
	assert.False(t, ie.Invalid, "a trace in a window")
}

// TestLoadNames: no names file is nil names; one that cannot be read is a
// usage error naming it.
func TestLoadNames(t *testing.T) {
	t.Parallel()
	n, err := LoadNames("")
	require.Nil(t, n, "LoadNames(\"\")")
	require.NoError(t, err, "LoadNames(\"\")")
	n, err = LoadNames(exampleNames)
	assert.NoError(t, err, "LoadNames(%s)", exampleNames)
	assert.NotNil(t, n, "LoadNames(%s): want its names", exampleNames)
	var ie *Error
	_, err = LoadNames("no-such.yaml")
	if assert.ErrorAs(t, err, &ie, "a missing names file: want a usage error") {
		assert.False(t, ie.Invalid, "a missing names file: %v; want a usage error, not an invalid one", err)
	}
}
