package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/spf13/cobra"
)

type analyzeFlags struct {
	in          AnalyzeInputs
	invocations InvocationFlags
	format      string
	table       string
	top         int
	output      string
	strict      bool
	perRank     bool
}

func newAnalyzeCmd() *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze CAPTURE... [flags]",
		Short: "Where each core's time went, stats per task type and stage, the critical path",
		Long: `analyze checks each capture as decode does (same layout flags), walks its
records once and reports, per rank:

  - where each entered core's time went: compute (TaskType and GraphStage
    descriptors), wait (WaitDependency), trigger (TriggerEvent), other, and
    idle (its span minus the union of its records), with totals per region
    (AIC, AIV) and rank, busy % (compute/span) and imbalance (the largest
    compute of a core with records over their mean);
  - count, total, mean, p50, p90, p99 (nearest rank) and max cycles per task
    type, per stage (task stages and graph stages from --names), per owner,
    and of wait records by the stage of the waiting task;
  - with --plan SCHEDULE (the schedule the kernel ran), the critical path:
    back from the record that ends last, through each wait's releasing
    producer, as segments (compute, wait, trigger, other, gap, launch) and
    its time by kind and by stage. Without a schedule only per-core chains
    are known.

Several captures (one per rank, ranks as decode finds them) get a section
each and a cross-rank table (makespan per rank, the slowest, the spread).
Invocations of a window (several captures of a rank, as decode takes them:
--invocation-manifest FILE, or --step and/or --direction once per capture)
get a section each, labelled with the invocation id, step and direction,
and the cross table has one row per invocation.

Past 16 ranks (or invocations) the text leads with the cluster's summary,
the one 'cycleabi report' puts first on its page: the slowest rank, its
makespan against the median and the stage where it is furthest over that
stage's median, the spread, the slow ranks, the drops, and each note or
warning once with the ranks it concerns. The cross-rank tables follow,
the Ranks table cut to the --top slowest (a line says how many rows it
left out), then the sections of the 3 slowest ranks by makespan only,
each heading saying which slowest it is. --per-rank writes every rank's
section, then the cross-rank tables, as up to 16 ranks.

--format text (default; --top rows per table, 0 for all: the cores table
keeps the cores with the most compute, past 16 ranks the Ranks table the
slowest ranks, and a line says how many rows each table left out), json,
markdown, or csv with --table
cores|types|stages|owners|waits|path (every row).

A MegaKernel Chrome JSON trace (what hyper-parallel's profiler export or
'cycleabi decode' writes; plain or gzip, told by its content) stands in for
captures: its ranks (and a window's invocations) are read back from the
events' args, its names, frequency, dropped count and layout from the trace,
and what a trace cannot carry (cores that wrote nothing, per-core dropped
counts) is said in notes; a name cut to 4,096 bytes, or a rank, invocation
or core the trace's metadata describes with no events, in warnings. See
docs/json-traces.md.

--strict exits 1 when the inputs drew a warning, after writing the
analysis: a trace's name cut to the cap on a name, a rank, invocation or
core its metadata describes with no events, a kernel family the records
leave open or contradict (the warnings of validate --strict, where they
are findings).

Exit status: 0 on success, 1 when a capture is invalid or does not match
the schedule (or, with --strict, an input drew a warning), 2 for usage or
I/O errors.`,
		Example: `  cycleabi analyze examples/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml
  cycleabi analyze rank0.bin rank1.bin --format json -o analysis.json
  cycleabi analyze capture.bin --format csv --table stages
  cycleabi analyze --invocation-manifest window.yaml --plan moe.yaml --format json -o window.analysis.json`,
		Args: CapturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runAnalyze(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.in.Register(fs)
	f.invocations.RegisterLabels(fs)
	fs.StringVar(&f.format, "format", "text", "text, json, markdown or csv")
	fs.StringVar(&f.table, "table", "", "with --format csv: cores, types, stages, owners, waits or path")
	fs.IntVar(&f.top, "top", 10, "rows per table in text and markdown, the cores table included (0: all)")
	fs.StringVarP(&f.output, "output", "o", "-", `output file; "-" for stdout`)
	fs.BoolVar(&f.perRank, "per-rank", false, "with --format text past 16 ranks: every rank's section, not the summary and the 3 slowest")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 when an input drew a warning (a trace's name cut or rank missing, a kernel family left open), once the analysis is written")
	return cmd
}

// compareInputs says on stderr where the inputs of the two analyses of d
// differ, and with strict refuses to compare them (exit 1).
func compareInputs(cmd *cobra.Command, d *analyze.Diff, strict bool) error {
	if len(d.InputDifferences) == 0 {
		return nil
	}
	if strict {
		return Invalid(fmt.Errorf("--strict: the analyses were made with different inputs: %s", strings.Join(d.InputDifferences, "; ")))
	}
	for _, line := range d.InputDifferences {
		fmt.Fprintf(cmd.ErrOrStderr(), "cycleabi: warning: inputs differ: %s\n", line)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "cycleabi: warning: the changes may come from the inputs, not from the kernel; give both the same flags (--strict refuses)")
	return nil
}

func runAnalyze(cmd *cobra.Command, paths []string, f *analyzeFlags) error {
	switch f.format {
	case "text", "json", "markdown":
		if f.table != "" {
			return Usage(errors.New("--table goes with --format csv"))
		}
	case "csv":
		if f.table == "" {
			return Usage(fmt.Errorf("--format csv needs --table (one of %v)", analyze.Tables))
		}
	default:
		return Usage(fmt.Errorf("--format %q: expected text, json, markdown or csv", f.format))
	}
	if f.perRank && f.format != "text" {
		return Usage(fmt.Errorf("--per-rank goes with --format text (%s writes every rank)", f.format))
	}
	if f.top < 0 {
		return Usage(fmt.Errorf("--top %d: must be 0 (all) or more", f.top))
	}
	invs, err := f.invocations.Resolve(paths, f.in.Ranks)
	if err != nil {
		return Usage(err)
	}
	inputs := paths
	if invs != nil {
		inputs = append([]string{f.invocations.Manifest}, invs.Captures()...)
	}
	if err := outfile.SameFile(f.output, f.in.Files(inputs)...); err != nil {
		return Usage(err)
	}
	rep, err := f.in.Run(cmd, paths, invs)
	if err != nil {
		return err
	}
	err = writeOutput(cmd, f.output, func(w io.Writer) error {
		switch f.format {
		case "json":
			return rep.WriteJSON(w)
		case "markdown":
			return rep.WriteMarkdown(w, f.top)
		case "csv":
			return rep.WriteCSV(w, f.table)
		}
		if f.perRank {
			return rep.WriteTextPerRank(w, f.top)
		}
		return rep.WriteText(w, f.top)
	})
	if err != nil {
		return err
	}
	return StrictWarned(cmd, f.strict, f.in.Warned)
}

// writeOutput writes a report to path ("-": stdout) as decode writes its
// trace: under a temporary name, renamed into place once complete.
func writeOutput(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	_, err := writeOutputFile(cmd, path, write)
	return err
}

// writeOutputFile is writeOutput, returning the output it committed (its
// size and whether it replaced a file) for the command to say so.
func writeOutputFile(cmd *cobra.Command, path string, write func(io.Writer) error) (*render.Output, error) {
	out, err := render.CreateOutput(path, cmd.OutOrStdout())
	if err != nil {
		return nil, Usage(err)
	}
	if err := write(out); err != nil {
		out.Abort()
		return nil, err // its exit code is ExitCode's: a write error's is ExitUsage
	}
	if err := out.Commit(); err != nil {
		return nil, Usage(err)
	}
	return out, nil
}

// outputPhrase names an output in a command's summary: "stdout" for "-",
// else the path, saying when it replaced a file that was there (a
// default name such as trace.json is easily replaced by mistake).
func outputPhrase(path string, replaced bool) string {
	switch {
	case path == outfile.Stdout:
		return "stdout"
	case replaced:
		return path + " (replaced the file that was there)"
	}
	return path
}
