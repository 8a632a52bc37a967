package input

import (
	"errors"
	"testing"
)

// TestRefuseTraces: a JSON trace among a window's captures is refused,
// named by its manifest line, as a usage error; captures and a file that
// cannot be read pass (what reads them reports the latter).
func TestRefuseTraces(t *testing.T) {
	t.Parallel()
	if err := RefuseTraces([]string{exampleCapture, "no-such-file.bin"}, nil); err != nil {
		t.Errorf("captures: %v", err)
	}
	err := RefuseTraces([]string{exampleCapture, statedTrace}, []string{"w.yaml:1", "w.yaml:2"})
	want := "w.yaml:2: " + statedTrace + ": a JSON trace states its own ranks and invocations: give it as an argument, without --invocation-manifest, --step or --direction"
	var ie *Error
	if err == nil || err.Error() != want || !errors.As(err, &ie) || ie.Invalid {
		t.Errorf("a trace in a window: %v; want the usage error %q", err, want)
	}
}

// TestLoadNames: no names file is nil names; one that cannot be read is a
// usage error naming it.
func TestLoadNames(t *testing.T) {
	t.Parallel()
	if n, err := LoadNames(""); n != nil || err != nil {
		t.Errorf(`LoadNames("") = %v, %v; want nil, nil`, n, err)
	}
	if n, err := LoadNames(exampleNames); n == nil || err != nil {
		t.Errorf("LoadNames(%s) = %v, %v; want its names", exampleNames, n, err)
	}
	var ie *Error
	if _, err := LoadNames("no-such.yaml"); !errors.As(err, &ie) || ie.Invalid {
		t.Errorf("a missing names file: %v; want a usage error", err)
	}
}
