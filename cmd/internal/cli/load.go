package cli

import (
	"errors"

	"github.com/megakernel/cycleabi/input"
)

// Load is input.Load, its errors carrying their exit codes (ExitForInput).
func Load(o input.Options) (*input.Loaded, error) {
	l, err := input.Load(o)
	return l, ExitForInput(err)
}

// OpenInput is input.OpenInput, its errors carrying their exit codes.
func OpenInput(path string) (*input.Input, error) {
	in, err := input.OpenInput(path)
	return in, ExitForInput(err)
}

// TellInput is input.TellInput, its errors carrying their exit codes.
func TellInput(path string) (*input.Input, error) {
	in, err := input.TellInput(path)
	return in, ExitForInput(err)
}

// ExitForInput gives an error of package input its exit code: an invalid input
// 1, a usage or I/O problem 2. The error reads as it did.
func ExitForInput(err error) error {
	var ie *input.Error
	if err == nil || !errors.As(err, &ie) {
		return err
	}
	if ie.Invalid {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	return &ExitError{Code: ExitUsage, Err: err}
}
