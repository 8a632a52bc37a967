// Package cli is the cycleabi command line: its root command and every
// subcommand, shared by the binaries in cmd/.
//
// Run executes one command line with the streams it is given; the package
// keeps no state of its own, so runs may go on side by side (the tests'
// do). Each subcommand lives in its own file; the work is done by the
// packages they call.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// program is one run of a command line: the streams it writes and, for
// export, how it writes Parquet.
type program struct {
	// name is the program's name, for --version and the errors' prefix.
	name string
	// args is the command line, without the program's name.
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// newExporter starts an export (package export's Create, which only
	// cycleabi-export links); nil in cycleabi, whose export command runs
	// cycleabi-export instead (exportbin.go).
	newExporter func(dir string) (Exporter, error)
	// exportOnly makes the export command the root: cycleabi-export's
	// command tree.
	exportOnly bool
}

// commands returns the subcommands, each built afresh for one run.
func (p *program) commands() []*cobra.Command {
	return []*cobra.Command{
		newAnalyzeCmd(), newDecodeCmd(), newDiffCmd(), newDumpCmd(), newExportCmd(p),
		newMergeCmd(), newPlanCmd(), newReportCmd(), newSynthCmd(), newValidateCmd(),
	}
}

func (p *program) newRootCmd() *cobra.Command {
	if p.exportOnly {
		return p.newExportRootCmd()
	}
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
	for _, c := range p.commands() {
		if guide := guideOf(c.Name()); guide != "" {
			c.Long = strings.TrimRight(c.Long, "\n") + "\n\nIn the cycleabi repository: docs/cli/" + c.Name() + ".md (this page) and " + guide + "."
		}
		root.AddCommand(c)
	}
	return root
}

// guideOf names the guide in docs/ that explains a command, for the last
// line of its --help ("" for none).
func guideOf(command string) string {
	switch command {
	case "plan", "synth":
		return "docs/plan.md"
	case "validate":
		return "docs/validate.md"
	case "dump":
		return "docs/capture-to-trace.md"
	case "decode":
		return "docs/decode.md (docs/perfetto.md for --format perfetto)"
	case "merge":
		return "docs/merge.md"
	case "analyze", "diff", "report":
		return "docs/analyze.md"
	case "export":
		return "docs/cluster.md"
	}
	return ""
}

// versionText is what --version prints after "cycleabi version ": the
// program's build and the ABI it reads.
func versionText() string {
	return fmt.Sprintf("%s\nABI version %d, fingerprint %s", buildinfo.Version(), abi.Version, abi.FingerprintHex)
}

// Run executes the command line args (without the program name) as
// cycleabi, reading stdin and writing stdout and stderr, and returns the
// process exit code. ctx is the commands' context.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&program{name: "cycleabi", args: args, stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx)
}

func (p *program) run(ctx context.Context) int {
	root := p.newRootCmd()
	root.SetArgs(p.args)
	// What cobra writes itself (--help, --version) ignores write errors;
	// stdout remembers the first, so `cycleabi --help > /dev/full` fails
	// as any other write to a full disk does.
	stdout := &checkedWriter{w: p.stdout}
	root.SetOut(stdout)
	root.SetErr(p.stderr)
	root.SetIn(p.stdin)
	err := root.ExecuteContext(ctx)
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
			fmt.Fprintln(p.stderr, p.name+":", ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown command, bad args) are usage errors.
	fmt.Fprintln(p.stderr, p.name+":", err)
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
