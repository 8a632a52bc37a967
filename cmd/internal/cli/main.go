// Package cli is the cycleabi command line: its root command and every
// subcommand, shared by the binaries in cmd/.
//
// Each subcommand lives in its own file and registers itself with
// addCommand; the work is done by the packages they call.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/spf13/cobra"
)

// Exit codes shared by every subcommand.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // the input was read and is invalid (or findings under --strict)
	exitUsage   = 2 // bad flags or arguments, or an I/O error
)

// exitError carries the exit code a subcommand wants; errors without one
// exit with exitUsage when cobra rejected the command line, exitInvalid otherwise.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// invalid marks err as "the input is invalid" (exit 1).
func invalid(err error) error { return &exitError{code: exitInvalid, err: err} }

// usage marks err as a usage or I/O problem (exit 2).
func usage(err error) error { return &exitError{code: exitUsage, err: err} }

// silent exits with code without printing anything more (the command has
// already reported).
func silent(code int) error { return &exitError{code: code} }

// exitCode is the exit code err carries, exitUsage when it carries none.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}

var subcommands []func() *cobra.Command

// addCommand registers a subcommand constructor; called from init in each
// subcommand's file.
func addCommand(newCmd func() *cobra.Command) { subcommands = append(subcommands, newCmd) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "cycleabi",
		Short: "Plan, simulate, validate and decode MegaKernel cycle-trace captures",
		Long: helpText(`cycleabi works with the profiling buffer a MegaKernel writes on Ascend NPUs:
every {core types} core appends {record size}-byte cycle records into its own slot of one
device buffer. The byte layout comes from abi/schema.yaml.

  plan      size the buffer from a task schedule
  synth     simulate the device writing a capture for a schedule
  validate  check a capture against every invariant, report every violation
  dump      show a capture's bytes field by field
  decode    turn captures into a Chrome/Perfetto trace (open in ui.perfetto.dev)
  merge     place a decoded trace inside the framework's trace, under its outer kernel
  analyze   where each core's time went, stats per task type and stage, the critical path
  diff      compare two captures or analyze reports
  report    one self-contained HTML page of the analysis, with charts
  export    the records as Parquet tables, for DuckDB, Spark or Trino`),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Printed as "cycleabi version " + Version: cobra's default,
		// which (unlike SetVersionTemplate) keeps text/template out of
		// the binary (2.5 MB, 1.2 MiB of RSS).
		Version: versionText(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	for _, newCmd := range subcommands {
		c := newCmd()
		if guide, ok := guides[c.Name()]; ok {
			c.Long = strings.TrimRight(c.Long, "\n") + "\n\nIn the cycleabi repository: docs/cli/" + c.Name() + ".md (this page) and " + guide + "."
		}
		root.AddCommand(c)
	}
	return root
}

// guides names the guide in docs/ that explains each command, for the last
// line of its --help.
var guides = map[string]string{
	"plan":     "docs/plan.md",
	"synth":    "docs/plan.md",
	"validate": "docs/validate.md",
	"dump":     "docs/capture-to-trace.md",
	"decode":   "docs/decode.md (docs/perfetto.md for --format perfetto)",
	"merge":    "docs/merge.md",
	"analyze":  "docs/analyze.md",
	"diff":     "docs/analyze.md",
	"report":   "docs/analyze.md",
	"export":   "docs/cluster.md",
}

// versionText is what --version prints after "cycleabi version ": the
// program's build and the ABI it reads.
func versionText() string {
	return fmt.Sprintf("%s\nABI version %d, fingerprint %s", buildinfo.Version(), abi.Version, abi.FingerprintHex)
}

// Main executes the command line args (without the program name) and
// returns the process exit code.
func Main(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetContext(context.WithValue(context.Background(), commandLine{}, args))
	// What cobra writes itself (--help, --version) ignores write errors;
	// stdout remembers the first, so `cycleabi --help > /dev/full` fails
	// as any other write to a full disk does.
	stdout := &checkedWriter{w: os.Stdout}
	root.SetOut(stdout)
	err := root.Execute()
	if err == nil && stdout.err != nil {
		cause := stdout.err
		var pe *fs.PathError
		if errors.As(cause, &pe) {
			cause = pe.Err
		}
		err = usage(&outfile.Error{Path: "standard output", Err: cause})
	}
	if err == nil {
		return exitOK
	}
	if outfile.BrokenPipe(err) {
		// The reader of our output went away (| head): exit quietly, as
		// cat does; deferred cleanups have run.
		return outfile.BrokenPipeStatus
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "cycleabi:", ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown command, bad args) are usage errors.
	fmt.Fprintln(os.Stderr, "cycleabi:", err)
	return exitUsage
}

// checkedWriter is a writer that keeps its first write error.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
