package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/input"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// AnalyzeInputs decodes, checks and analyzes captures as analyze and diff
// share it.
type AnalyzeInputs struct {
	layout    LayoutFlags
	soc       string
	freqMHz   float64
	namesFile string
	Family    FamilyFlags
	// KernelUse is what else --kernel-name does in the command ("" for nothing).
	KernelUse string
	Ranks     []uint
	// Req is the layout request RunEach read the captures with (report
	// validates them with it too); Sources what it read, each with its
	// kernel family (closed once it returns: report validates them while
	// they are open).
	Req     capture.Request
	Sources []*input.Source
	// clocks are the distinct cycle frequencies (MHz) and SoCs the
	// captures were read at, in capture order (recorded for diff).
	mhzs, socs []string
	// analyze, when not nil, analyzes each capture in Analyze's stead (export
	// writes the records as the analysis walks them); discard drops each
	// analysis once each has seen it, so that memory does not grow with the
	// number of captures when no report is wanted.
	analyze func(d *decode.Decoded, o analyze.Options) (*analyze.Rank, error)
	discard bool
	// Warned counts the warnings RunEach's inputs drew (PrintInputs): a
	// trace's, a source's stale cores, the kernel family's.
	Warned int
}

func (in *AnalyzeInputs) Register(fs *pflag.FlagSet) {
	in.layout.Register(fs, "schedule (YAML or JSON) the kernel ran: the critical path and the flow counts need it; its host plan stands in when the capture's headers state no layout, as for decode")
	RegisterFrequency(fs, &in.soc, &in.freqMHz)
	RegisterNames(fs, &in.namesFile)
	in.Family.Register(fs, "MegaKernel", in.KernelUse)
	RegisterRanks(fs, &in.Ranks)
}

// StrictWarned ends a --strict run (strict set) of cmd whose inputs drew
// n warnings, once its output is written: with n > 0 it says so and
// returns exit status 1; else nil.
func StrictWarned(cmd *cobra.Command, strict bool, n int) error {
	if !strict || n == 0 {
		return nil
	}
	fmt.Fprintln(cmd.ErrOrStderr(), ProgramName(cmd)+": --strict: the inputs drew the warnings above; the output is written")
	return Silent(ExitInvalid)
}

// Options are the options in's flags give for reading paths (or the
// window invs) under the layout request req.
func (in *AnalyzeInputs) Options(fs *pflag.FlagSet, paths []string, invs *input.InvocationSet, req capture.Request) input.Options {
	return input.Options{
		Paths: paths, Window: invs, Request: req, LayoutGiven: LayoutFlagsGiven(fs.Changed, &in.layout),
		Schedule: in.layout.Schedule, Ranks: in.Ranks,
		SoC: in.soc, FreqMHz: in.freqMHz, SoCGiven: fs.Changed("soc"), FreqGiven: fs.Changed("freq-mhz"),
		NamesFile: in.namesFile, Family: in.Family.Options(),
	}
}

// Files are the files analyze reads for paths: the captures, the
// schedule and the names file, none of which its output may replace.
func (in *AnalyzeInputs) Files(paths []string) []string {
	return append([]string{in.layout.PlanFile, in.namesFile}, paths...)
}

// Run analyzes paths, one capture per rank, or with invs (non-nil) the
// invocations of a window, whose captures and ranks it gives.
func (in *AnalyzeInputs) Run(cmd *cobra.Command, paths []string, invs *input.InvocationSet) (*analyze.Report, error) {
	return in.RunEach(cmd, paths, invs, nil)
}

// RunEach is run, calling each (when not nil) with every capture while it
// is open: its index, the decoded capture, its analysis and the options
// it was analyzed with (report bins its timeline there).
func (in *AnalyzeInputs) RunEach(cmd *cobra.Command, paths []string, invs *input.InvocationSet, each func(i int, d *decode.Decoded, r *analyze.Rank, o analyze.Options) error) (*analyze.Report, error) {
	fs := cmd.Flags()
	req, err := in.layout.Request(fs)
	if err != nil {
		return nil, Usage(err)
	}
	in.Req = req
	o := in.Options(fs, paths, invs, req)
	l, err := input.Load(o)
	defer l.Close()
	in.Warned = PrintInputs(cmd, l, err, false)
	if err != nil {
		return nil, err
	}
	in.Sources = l.Sources
	results := make([]*analyze.Rank, len(l.Sources))
	for i, s := range l.Sources {
		d, f, soc := s.Decoded, s.FrequencyMHz, s.SoC
		if m := strconv.FormatFloat(f, 'f', -1, 64); !slices.Contains(in.mhzs, m) {
			in.mhzs = append(in.mhzs, m)
		}
		if !slices.Contains(in.socs, soc) {
			in.socs = append(in.socs, soc)
		}
		o := analyze.Options{Rank: s.Rank, FrequencyMHz: f, Names: s.Names, Deps: s.Deps, Notes: s.Notes(), Warnings: s.Warnings()}
		if s.Invocation != nil {
			o.Invocation = invocationLabel(s.Invocation, s.OwnKernel)
		}
		o.TraceCores = s.Trace != nil
		analyzeOne := analyze.Analyze
		if in.analyze != nil {
			analyzeOne = in.analyze
		}
		results[i], err = analyzeOne(d, o)
		if err != nil {
			if errors.As(err, new(*input.Error)) {
				return nil, err // export's record no int64 of ns holds: invalid input (ExitCode)
			}
			return nil, Usage(err)
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
		return nil, Usage(err)
	}
	rep.Inputs = &inputs
	return rep, nil
}

// recorded returns the inputs besides the captures that the analysis is
// made with, as the report records them for diff to compare: the kernel
// family the captures were read under (whatever chose it: --kernel-family,
// --kernel-name, a manifest's kernel_name, a trace's kernelFamily or the
// data; the distinct ones in capture order), the cycle frequency and SoC
// they were read at (whatever gave them: --freq-mhz, --soc, a trace, the
// default), and the --plan and --names files.
func (in *AnalyzeInputs) recorded() ([]analyze.Input, error) {
	var fams []string
	for _, s := range in.Sources {
		if f := s.Family.String(); !slices.Contains(fams, f) {
			fams = append(fams, f)
		}
	}
	inputs := []analyze.Input{{Flag: "--kernel-family", Value: strings.Join(fams, ",")},
		{Flag: "--freq-mhz", Value: strings.Join(in.mhzs, ",")}, {Flag: "--soc", Value: strings.Join(in.socs, ",")}}
	for _, f := range []struct{ flag, path string }{{"--plan", in.layout.PlanFile}, {"--names", in.namesFile}} {
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
