package input

import (
	"errors"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/plan"
)

// DependenciesAll indexes the event producers of each decoded capture
// under s (nil entries without a schedule), each read under its names
// (names[i], which may be nil: its kernel family classes its records). A
// capture that does not match the schedule is invalid input (exit 1).
func DependenciesAll(decoded []*decode.Decoded, s *plan.Schedule, names []*kernelnames.Names) ([]*flows.Dependencies, error) {
	deps := make([]*flows.Dependencies, len(decoded))
	if s == nil {
		return deps, nil
	}
	for i, d := range decoded {
		var err error
		if deps[i], err = flows.NewDependenciesNamed(d, s, names[i]); err != nil {
			var m *flows.ScheduleMismatch
			if errors.As(err, &m) {
				return nil, invalid(err)
			}
			return nil, usage(err)
		}
	}
	return deps, nil
}
