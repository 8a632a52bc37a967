package input

import (
	"fmt"

	"github.com/megakernel/cycleabi/decode/kernelnames"
)

// What validate and dump share of Load. They read one path at a time
// (OpenInput, then each of its Sources) rather than through Load: Load
// decodes every input before it returns, keeping each capture's summary
// and a parked file (memory grows with the number of captures, where
// validate's stays flat by reading one at a time), and it stops
// at the first capture that does not decode, where validate reports every
// finding of every capture by its own walk; dump shows one capture's
// bytes, decoded or not. The options they take are read as Load reads
// them: the layout request, FamilyOptions.Resolve, the window
// (Window.Resolve), the names file (LoadNames), and a trace among a
// window's captures is refused in the same words (RefuseTraces).

// traceInWindow says why a JSON trace is not a capture of a window.
const traceInWindow = "a JSON trace states its own ranks and invocations: give it as an argument, without --invocation-manifest, --step or --direction"

// LoadNames reads the names file at path (--names), nil for "". A file
// that cannot be read or parsed is a usage error.
func LoadNames(path string) (*kernelnames.Names, error) {
	if path == "" {
		return nil, nil
	}
	names, err := kernelnames.Load(path)
	if err != nil {
		if what := Misgiven(path, "--names"); what != "" {
			return nil, usage(fmt.Errorf("--names %s is not a names file: %s", path, what))
		}
		return nil, usage(fmt.Errorf("--names: %w", err))
	}
	return names, nil
}

// RefuseTraces refuses a JSON trace among the captures of a window
// (labelled by a manifest, --step or --direction: a trace states its own
// labels), naming the manifest's line (places[i], when given). A file that
// cannot be read is left to what reads it to report.
func RefuseTraces(paths, places []string) error {
	for i, p := range paths {
		if in, err := TellInput(p); err == nil && in.IsTrace {
			return refuseTrace(paths, places, i)
		}
	}
	return nil
}

// refuseTrace is the error for the JSON trace paths[i] among a window's
// captures, named by its manifest line (places[i], when given): Load's
// and RefuseTraces' one wording.
func refuseTrace(paths, places []string, i int) error {
	where := paths[i]
	if i < len(places) && places[i] != "" {
		where = places[i] + ": " + paths[i]
	}
	return usage(fmt.Errorf("%s: %s", where, traceInWindow))
}
