package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type analyzeFlags struct {
	in          analyzeInputs
	invocations invocationFlags
	format      string
	table       string
	top         int
	output      string
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

--format text (default; --top rows per table, 0 for all: the cores table
keeps the cores with the most compute, and a line says how many rows each
table left out), json, markdown, or csv with --table
cores|types|stages|owners|waits|path (every row).

A MegaKernel Chrome JSON trace (what hyper-parallel's profiler export or
'cycleabi decode' writes; plain or gzip, told by its content) stands in for
captures: its ranks (and a window's invocations) are read back from the
events' args, its names, frequency, dropped count and layout from the trace,
and what a trace cannot carry (cores that wrote nothing, per-core dropped
counts) is said in notes. See docs/json-traces.md.

Exit status: 0 on success, 1 when a capture is invalid or does not match
the schedule, 2 for usage or I/O errors.`,
		Example: `  cycleabi analyze examples/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml
  cycleabi analyze rank0.bin rank1.bin --format json -o analysis.json
  cycleabi analyze capture.bin --format csv --table stages
  cycleabi analyze --invocation-manifest window.yaml --plan moe.yaml --format json -o window.analysis.json`,
		Args: capturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runAnalyze(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.in.register(fs)
	f.invocations.registerLabels(fs)
	fs.StringVar(&f.format, "format", "text", "text, json, markdown or csv")
	fs.StringVar(&f.table, "table", "", "with --format csv: cores, types, stages, owners, waits or path")
	fs.IntVar(&f.top, "top", 10, "rows per table in text and markdown, the cores table included (0: all)")
	fs.StringVarP(&f.output, "output", "o", "-", `output file; "-" for stdout`)
	return cmd
}

// analyzeInputs decodes, checks and analyzes captures as analyze and diff
// share it.
type analyzeInputs struct {
	layout    layoutFlags
	soc       string
	freqMHz   float64
	namesFile string
	family    familyFlags
	// kernelUse is what else --kernel-name does in the command ("" for nothing).
	kernelUse string
	ranks     []uint
	// req is the layout request runEach read the captures with, and
	// families the kernel family of each capture (report validates them
	// with both too); sources what it read (closed once it returns:
	// report validates them while they are open).
	req      capture.Request
	families []abi.Family
	sources  *sources
	// analyze, when not nil, analyzes each capture in Analyze's stead (export
	// writes the records as the analysis walks them); discard drops each
	// analysis once each has seen it, so that memory does not grow with the
	// number of captures when no report is wanted.
	analyze func(d *decode.Decoded, o analyze.Options) (*analyze.Rank, error)
	discard bool
}

func (in *analyzeInputs) register(fs *pflag.FlagSet) {
	in.layout.register(fs, "schedule (YAML or JSON) the kernel ran: the critical path and the flow counts need it; its host plan stands in when the capture's headers state no layout, as for decode")
	fs.StringVar(&in.soc, "soc", "ascend910b", "SoC whose system-counter frequency the cycles count at (µs figures)")
	fs.Float64Var(&in.freqMHz, "freq-mhz", 0, "system-counter frequency in MHz; overrides --soc")
	fs.StringVar(&in.namesFile, "names", "", "YAML or JSON file naming stages, graph stages and task stages")
	in.family.register(fs, "MegaKernel", in.kernelUse)
	fs.UintSliceVar(&in.ranks, "rank", nil, "rank of each capture, repeated in order (default: from the file name, else 0)")
	fs.Lookup("rank").DefValue = ""
}

// files are the files analyze reads for paths: the captures, the
// schedule and the names file, none of which its output may replace.
func (in *analyzeInputs) files(paths []string) []string {
	return append([]string{in.layout.planFile, in.namesFile}, paths...)
}

// run analyzes paths, one capture per rank, or with invs (non-nil) the
// invocations of a window, whose captures and ranks it gives.
func (in *analyzeInputs) run(cmd *cobra.Command, paths []string, invs *invocationSet) (*analyze.Report, error) {
	return in.runEach(cmd, paths, invs, nil)
}

// runEach is run, calling each (when not nil) with every capture while it
// is open: its index, the decoded capture, its analysis and the options
// it was analyzed with (report bins its timeline there).
func (in *analyzeInputs) runEach(cmd *cobra.Command, paths []string, invs *invocationSet, each func(i int, d *decode.Decoded, r *analyze.Rank, o analyze.Options) error) (*analyze.Report, error) {
	fs := cmd.Flags()
	req, err := in.layout.request(fs)
	if err != nil {
		return nil, usage(err)
	}
	in.req = req
	mhz, soc, err := frequency(in.soc, fs.Changed("soc"), in.freqMHz, fs.Changed("freq-mhz"))
	if err != nil {
		return nil, usage(err)
	}
	if err := in.family.check(); err != nil {
		return nil, usage(err)
	}
	var names *kernelnames.Names
	if in.namesFile != "" {
		if names, err = kernelnames.Load(in.namesFile); err != nil {
			return nil, usage(err)
		}
	}
	sched := in.layout.schedule
	src, err := loadSources(paths, in.ranks, invs, req, layoutFlagsGiven(fs.Changed, &in.layout), false)
	defer src.close()
	if err != nil {
		return nil, err
	}
	in.sources = src
	inputNames := make([]*kernelnames.Names, len(src.decoded))
	in.families = make([]abi.Family, len(src.decoded))
	for i := range src.decoded {
		// A manifest's kernel_name, or a trace's kernelName, chooses the
		// family; a --kernel-name that differs is refused.
		kernel, err := in.family.kernel(fs.Changed("kernel-name"), src, i)
		if err != nil {
			return nil, usage(err)
		}
		fam, err := in.family.resolve(kernel)
		if err != nil {
			return nil, usage(err)
		}
		inputNames[i], in.families[i] = src.names(i, names).WithFamily(fam), fam
	}
	deps, err := dependenciesAll(src.decoded, sched, inputNames)
	if err != nil {
		return nil, err
	}
	results := make([]*analyze.Rank, len(src.decoded))
	for i, d := range src.decoded {
		f, _ := src.frequency(i, fs.Changed("soc") || fs.Changed("freq-mhz"), mhz, soc)
		o := analyze.Options{Rank: src.ranks[i], FrequencyMHz: f, Names: inputNames[i], Deps: deps[i], Notes: src.notes(i)}
		if src.invocations != nil {
			o.Invocation = invocationLabel(src.invocations[i], src.kernelNames[i])
		}
		analyzeOne := analyze.Analyze
		if in.analyze != nil {
			analyzeOne = in.analyze
		}
		results[i], err = analyzeOne(d, o)
		if err != nil {
			return nil, usage(err)
		}
		if each != nil {
			if err := each(i, d, results[i], o); err != nil {
				return nil, err
			}
		}
		if in.discard {
			results[i] = &analyze.Rank{Rank: results[i].Rank, Invocation: results[i].Invocation}
		}
	}
	rep := analyze.NewReport(results)
	inputs, err := in.recorded()
	if err != nil {
		return nil, usage(err)
	}
	rep.Inputs = &inputs
	return rep, nil
}

// recorded returns the inputs besides the captures that the analysis is
// made with, as the report records them for diff to compare: the kernel
// family the captures were read under (whatever chose it: --kernel-family,
// --kernel-name or a manifest's kernel_name; the distinct ones in capture
// order), and the --plan and --names files.
func (in *analyzeInputs) recorded() ([]analyze.Input, error) {
	var fams []string
	for _, f := range in.families {
		if !slices.Contains(fams, f.String()) {
			fams = append(fams, f.String())
		}
	}
	inputs := []analyze.Input{{Flag: "--kernel-family", Value: strings.Join(fams, ",")}}
	for _, f := range []struct{ flag, path string }{{"--plan", in.layout.planFile}, {"--names", in.namesFile}} {
		if f.path == "" {
			continue
		}
		input, err := analyze.FileInput(f.flag, f.path)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input)
	}
	return inputs, nil
}

// compareInputs says on stderr where the inputs of the two analyses of d
// differ, and with strict refuses to compare them (exit 1).
func compareInputs(cmd *cobra.Command, d *analyze.Diff, strict bool) error {
	if len(d.InputDifferences) == 0 {
		return nil
	}
	if strict {
		return invalid(fmt.Errorf("--strict: the analyses were made with different inputs: %s", strings.Join(d.InputDifferences, "; ")))
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
			return usage(errors.New("--table goes with --format csv"))
		}
	case "csv":
		if f.table == "" {
			return usage(fmt.Errorf("--format csv needs --table (one of %v)", analyze.Tables))
		}
	default:
		return usage(fmt.Errorf("--format %q: expected text, json, markdown or csv", f.format))
	}
	if f.top < 0 {
		return usage(fmt.Errorf("--top %d: must be 0 (all) or more", f.top))
	}
	invs, err := f.invocations.resolve(paths, f.in.ranks)
	if err != nil {
		return usage(err)
	}
	inputs := paths
	if invs != nil {
		inputs = append([]string{f.invocations.manifest}, invs.captures...)
	}
	if err := outfile.SameFile(f.output, f.in.files(inputs)...); err != nil {
		return usage(err)
	}
	rep, err := f.in.run(cmd, paths, invs)
	if err != nil {
		return err
	}
	return writeOutput(cmd, f.output, func(w io.Writer) error {
		switch f.format {
		case "json":
			return rep.WriteJSON(w)
		case "markdown":
			return rep.WriteMarkdown(w, f.top)
		case "csv":
			return rep.WriteCSV(w, f.table)
		}
		return rep.WriteText(w, f.top)
	})
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
		return nil, usage(err)
	}
	if err := write(out); err != nil {
		out.Abort()
		var ue *exitError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, usage(err)
	}
	if err := out.Commit(); err != nil {
		return nil, usage(err)
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
