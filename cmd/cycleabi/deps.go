package main

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/plan"
)

// loadSchedule parses the schedule of --plan for its task table (nil
// without one). layoutFlags plans the same file for the layout.
func loadSchedule(path string) (*plan.Schedule, error) {
	if path == "" {
		return nil, nil
	}
	s, err := plan.ParseFile(path)
	if err != nil {
		return nil, fmt.Errorf("--plan: %w", err)
	}
	return s, nil
}

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
