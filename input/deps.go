package input

import (
	"errors"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/plan"
)

// dependencies indexes the event producers of decoded capture d under s
// (nil without a schedule), read under its names (which may be nil: its
// kernel family classes its records). A capture that does not match the
// schedule is invalid input (exit 1).
func dependencies(d *decode.Decoded, s *plan.Schedule, names *kernelnames.Names) (*flows.Dependencies, error) {
	if s == nil {
		return nil, nil
	}
	deps, err := flows.NewDependenciesNamed(d, s, names)
	if err != nil {
		var m *flows.ScheduleMismatch
		if errors.As(err, &m) {
			return nil, invalid(err)
		}
		return nil, usage(err)
	}
	return deps, nil
}
