package main

import (
	"errors"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/plan"
)

// dependenciesAll indexes the event producers of each decoded capture
// under s (nil entries without a schedule). A capture that does not match
// the schedule is invalid input (exit 1).
func dependenciesAll(decoded []*decode.Decoded, s *plan.Schedule) ([]*decode.Dependencies, error) {
	deps := make([]*decode.Dependencies, len(decoded))
	if s == nil {
		return deps, nil
	}
	for i, d := range decoded {
		var err error
		if deps[i], err = decode.NewDependencies(d, s); err != nil {
			var m *decode.ScheduleMismatch
			if errors.As(err, &m) {
				return nil, invalid(err)
			}
			return nil, usage(err)
		}
	}
	return deps, nil
}
