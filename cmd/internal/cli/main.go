// Package cli is the cycleabi command line: its root command and every
// subcommand, each in its own file (the work is done by the packages they
// call); the exit codes and a program's run (program.go); the flags that
// say how captures are read (layout, kernel family, frequency, names,
// ranks, an invocation window), which fill package input's Options
// (*flags.go), with input's errors mapped to exit codes (load.go); and
// analyze's run over the inputs, which analyze, diff, report and export
// share (inputs.go).
//
// Run executes one command line with the streams it is given; the package
// keeps no state of its own, so runs may go on side by side (the tests'
// do).
package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// commands returns the subcommands, each built afresh for one run.
func commands(p *Program) []*cobra.Command {
	return []*cobra.Command{
		newAnalyzeCmd(), newDecodeCmd(), newDiffCmd(), newDumpCmd(), NewExportCmd(),
		newMergeCmd(), newPlanCmd(), newReportCmd(), newSynthCmd(), newValidateCmd(),
	}
}

// newRootCmd is cycleabi's command tree.
func newRootCmd(p *Program) *cobra.Command {
	root := &cobra.Command{
		Use:   "cycleabi",
		Short: "Plan, simulate, validate and decode MegaKernel cycle-trace captures",
		Long: HelpText(`cycleabi works with the profiling buffer a MegaKernel writes on Ascend NPUs:
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
		Version: VersionText(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return Usage(err) })
	for _, c := range commands(p) {
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

// Run executes the command line args (without the program name) as
// cycleabi, reading stdin and writing stdout and stderr, and returns the
// process exit code. ctx is the commands' context.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&Program{Name: "cycleabi", Args: args, Stdin: stdin, Stdout: stdout, Stderr: stderr}).Run(ctx)
}
