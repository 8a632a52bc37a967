package clibase

import (
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
	// Req is the layout request runEach read the captures with, and
	// families the kernel family of each capture (report validates them
	// with both too); sources what it read (closed once it returns:
	// report validates them while they are open).
	Req      capture.Request
	Families []abi.Family
	Sources  *Sources
	// analyze, when not nil, analyzes each capture in Analyze's stead (export
	// writes the records as the analysis walks them); discard drops each
	// analysis once each has seen it, so that memory does not grow with the
	// number of captures when no report is wanted.
	analyze func(d *decode.Decoded, o analyze.Options) (*analyze.Rank, error)
	discard bool
}

func (in *AnalyzeInputs) Register(fs *pflag.FlagSet) {
	in.layout.Register(fs, "schedule (YAML or JSON) the kernel ran: the critical path and the flow counts need it; its host plan stands in when the capture's headers state no layout, as for decode")
	RegisterFrequency(fs, &in.soc, &in.freqMHz)
	RegisterNames(fs, &in.namesFile)
	in.Family.Register(fs, "MegaKernel", in.KernelUse)
	RegisterRanks(fs, &in.Ranks)
}

// Files are the Files analyze reads for paths: the captures, the
// schedule and the names file, none of which its output may replace.
func (in *AnalyzeInputs) Files(paths []string) []string {
	return append([]string{in.layout.PlanFile, in.namesFile}, paths...)
}

// Run analyzes paths, one capture per rank, or with invs (non-nil) the
// invocations of a window, whose captures and ranks it gives.
func (in *AnalyzeInputs) Run(cmd *cobra.Command, paths []string, invs *InvocationSet) (*analyze.Report, error) {
	return in.RunEach(cmd, paths, invs, nil)
}

// RunEach is run, calling each (when not nil) with every capture while it
// is open: its index, the decoded capture, its analysis and the options
// it was analyzed with (report bins its timeline there).
func (in *AnalyzeInputs) RunEach(cmd *cobra.Command, paths []string, invs *InvocationSet, each func(i int, d *decode.Decoded, r *analyze.Rank, o analyze.Options) error) (*analyze.Report, error) {
	fs := cmd.Flags()
	req, err := in.layout.Request(fs)
	if err != nil {
		return nil, Usage(err)
	}
	in.Req = req
	mhz, soc, err := Frequency(in.soc, fs.Changed("soc"), in.freqMHz, fs.Changed("freq-mhz"))
	if err != nil {
		return nil, Usage(err)
	}
	if err := in.Family.Check(); err != nil {
		return nil, Usage(err)
	}
	var names *kernelnames.Names
	if in.namesFile != "" {
		if names, err = kernelnames.Load(in.namesFile); err != nil {
			return nil, Usage(err)
		}
	}
	sched := in.layout.Schedule
	src, err := LoadSources(paths, in.Ranks, invs, req, LayoutFlagsGiven(fs.Changed, &in.layout), false)
	defer src.Close()
	if err != nil {
		return nil, err
	}
	in.Sources = src
	inputNames := make([]*kernelnames.Names, len(src.Decoded))
	in.Families = make([]abi.Family, len(src.Decoded))
	for i := range src.Decoded {
		// A manifest's kernel_name, or a trace's kernelName, chooses the
		// family; a --kernel-name that differs is refused.
		kernel, err := in.Family.Kernel(fs.Changed("kernel-name"), src, i)
		if err != nil {
			return nil, Usage(err)
		}
		fam, err := in.Family.Resolve(kernel)
		if err != nil {
			return nil, Usage(err)
		}
		inputNames[i], in.Families[i] = src.Names(i, names).WithFamily(fam), fam
	}
	deps, err := DependenciesAll(src.Decoded, sched, inputNames)
	if err != nil {
		return nil, err
	}
	results := make([]*analyze.Rank, len(src.Decoded))
	for i, d := range src.Decoded {
		f, _ := src.Frequency(i, fs.Changed("soc") || fs.Changed("freq-mhz"), mhz, soc)
		o := analyze.Options{Rank: src.Ranks[i], FrequencyMHz: f, Names: inputNames[i], Deps: deps[i], Notes: src.notes(i)}
		if src.Invocations != nil {
			o.Invocation = invocationLabel(src.Invocations[i], src.KernelNames[i])
		}
		analyzeOne := analyze.Analyze
		if in.analyze != nil {
			analyzeOne = in.analyze
		}
		results[i], err = analyzeOne(d, o)
		if err != nil {
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
// --kernel-name or a manifest's kernel_name; the distinct ones in capture
// order), and the --plan and --names files.
func (in *AnalyzeInputs) recorded() ([]analyze.Input, error) {
	var fams []string
	for _, f := range in.Families {
		if !slices.Contains(fams, f.String()) {
			fams = append(fams, f.String())
		}
	}
	inputs := []analyze.Input{{Flag: "--kernel-family", Value: strings.Join(fams, ",")}}
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
