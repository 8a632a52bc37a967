package validate_test

import (
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// layoutOf is the layout of a resolution, for tests that only need it.
func layoutOf(r *capture.Resolved, err error) (abi.Layout, error) {
	if err != nil {
		return abi.Layout{}, err
	}
	return r.Layout, nil
}
