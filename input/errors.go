package input

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/plan"
)

// Error is an error of loading, with its kind: Invalid says an input was
// read and is invalid (a capture that breaks the ABI, a trace that cannot
// be read back, a capture that does not match the schedule); otherwise it
// is a usage or I/O problem (a refused option, a file that cannot be
// read). The command line maps the two to its exit codes 1 and 2, in one
// place (cmd/internal/cli's ExitCode); callers return an Error as it is.
type Error struct {
	Invalid bool
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// invalid marks err as an invalid input.
func invalid(err error) error { return &Error{Invalid: true, Err: err} }

// usage marks err as a usage or I/O problem.
func usage(err error) error { return &Error{Err: err} }

// classify marks an error from opening, resolving or reading a capture:
// a capture that breaks the ABI is invalid; a refused request value or
// anything else, such as a missing file, is a usage or I/O problem,
// worded with the flag that gave the value (WordRequest).
func classify(err error) error {
	var p *capture.Problem
	if errors.As(err, &p) {
		return invalid(err)
	}
	return usage(WordRequest(err))
}

// WordRequest words a capture.RequestError with the flag that gave the
// refused value (--cube-slots, a capacity flag); other errors are
// returned as they are.
func WordRequest(err error) error {
	var re *capture.RequestError
	if err == nil {
		return nil
	}
	if !errors.As(err, &re) {
		return err
	}
	switch re.Part {
	case capture.PartCubeSlots:
		return fmt.Errorf("--cube-slots %d: %w", re.Value, re.Err)
	case capture.PartCapacity:
		return fmt.Errorf("--%s %d: %w", plan.CapacityFlag(re.CoreType), re.Value, re.Err)
	}
	return fmt.Errorf("--cube-slots with the capacity flags: %w", re.Err)
}
