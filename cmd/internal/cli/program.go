package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// Exit codes shared by every subcommand.
const (
	ExitOK      = 0 // success
	ExitInvalid = 1 // the input was read and is invalid (or findings under --strict)
	ExitUsage   = 2 // bad flags or arguments, or an I/O error
)

// ExitError carries the exit code a subcommand wants; errors without one
// exit with exitUsage when cobra rejected the command line, exitInvalid otherwise.
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

// ExitCode is the exit code err carries (an input.Error's too: ExitForInput),
// exitUsage when it carries none.
func ExitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.As(ExitForInput(err), &ee) {
		return ee.Code // package input's Error
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
	if err == nil {
		return ExitOK
	}
	if outfile.BrokenPipe(err) {
		// The reader of our output went away (| head): exit quietly, as
		// cat does; deferred cleanups have run.
		return outfile.BrokenPipeStatus
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(p.Stderr, p.Name+":", ee.Err)
		}
		return ee.Code
	}
	// Errors cobra raises itself (unknown command, bad args) are usage errors.
	fmt.Fprintln(p.Stderr, p.Name+":", err)
	return ExitUsage
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
