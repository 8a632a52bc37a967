package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// Exit codes shared by every subcommand.
const (
	ExitOK      = 0 // success
	ExitInvalid = 1 // the input was read and is invalid (or findings under --strict)
	ExitUsage   = 2 // bad flags or arguments, or an I/O error
)

// ExitError carries the exit code a subcommand wants; ExitCode gives
// every other error its own.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// Invalid marks err as "the input is Invalid" (exit 1).
func Invalid(err error) error { return &ExitError{Code: ExitInvalid, Err: err} }

// Usage marks err as a Usage or I/O problem (exit 2).
func Usage(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// Silent exits with code without printing anything more (the command has
// already reported).
func Silent(code int) error { return &ExitError{Code: code} }

// ExitCode is the exit status err ends a run with, the one place an
// error becomes an exit code (Run's, and validate's for each input):
//
//   - nil: ExitOK;
//   - the reader of the output gone (a broken pipe): outfile.BrokenPipeStatus;
//   - an ExitError: the code the command gave it (Invalid, Usage, Silent);
//   - package input's Error: ExitInvalid when an input was read and is
//     invalid, ExitUsage for a refused option or a file that cannot be read;
//   - a capture.Problem, a capture that breaks the ABI: ExitInvalid;
//   - anything else (cobra's own errors, a flag's, I/O): ExitUsage.
func ExitCode(err error) int {
	var ee *ExitError
	var ie *input.Error
	var p *capture.Problem
	switch {
	case err == nil:
		return ExitOK
	case outfile.BrokenPipe(err):
		return outfile.BrokenPipeStatus
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ie):
		if ie.Invalid {
			return ExitInvalid
		}
		return ExitUsage
	case errors.As(err, &p):
		return ExitInvalid
	}
	return ExitUsage
}

// Program is one run of a command line: the streams it reads and writes.
type Program struct {
	// Name is the program's Name, for --version and the errors' prefix.
	Name string
	// Args is the command line, without the program's name.
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// VersionText is what --version prints after "cycleabi version ": the
// program's build and the ABI it reads.
func VersionText() string {
	return fmt.Sprintf("%s\nABI version %d, fingerprint %s", buildinfo.Version(), abi.Version, abi.FingerprintHex)
}

func (p *Program) Run(ctx context.Context) int {
	root := newRootCmd(p)
	root.SetArgs(p.Args)
	// What cobra writes itself (--help, --version) ignores write errors;
	// stdout remembers the first, so `cycleabi --help > /dev/full` fails
	// as any other write to a full disk does.
	stdout := &checkedWriter{w: p.Stdout}
	root.SetOut(stdout)
	root.SetErr(p.Stderr)
	root.SetIn(p.Stdin)
	err := root.ExecuteContext(ctx)
	if err == nil && stdout.Err != nil {
		cause := stdout.Err
		var pe *fs.PathError
		if errors.As(cause, &pe) {
			cause = pe.Err
		}
		err = Usage(&outfile.Error{Path: "standard output", Err: cause})
	}
	code := ExitCode(err)
	var ee *ExitError
	switch {
	case err == nil:
	case outfile.BrokenPipe(err):
		// The reader of our output went away (| head): exit quietly, as
		// cat does; deferred cleanups have run.
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintln(p.Stderr, p.Name+":", ee.Err)
		}
	default:
		fmt.Fprintln(p.Stderr, p.Name+":", err)
	}
	return code
}

// checkedWriter is a writer that keeps its first write error.
type checkedWriter struct {
	w   io.Writer
	Err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.Err == nil {
		c.Err = err
	}
	return n, err
}
