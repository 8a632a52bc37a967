package cli

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/tracemerge"
	"github.com/spf13/cobra"
)

type mergeFlags struct {
	output           string
	kernelPattern    string
	kernelIndex      int
	allowHostWrapper bool
	upstream         bool
	outerPID         string
	rank             int64
}

func newMergeCmd() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge FRAMEWORK_TRACE MEGAKERNEL_TRACE -o MERGED",
		Short: "Place a MegaKernel trace inside the framework's trace, under its outer kernel",
		Long: `merge puts the per-core timeline cycleabi decode wrote (MEGAKERNEL_TRACE)
into the framework's own Chrome trace (FRAMEWORK_TRACE: torch profiler /
Kineto, or CANN msprof's trace.json; an object with traceEvents or a bare
array of events; .json or .json.gz; ts/dur numbers or strings of decimals),
under the outer device kernel that ran it. The framework trace is streamed:
its events and other top-level keys are copied through unchanged
(invalid UTF-8 replaced by U+FFFD).

Outer kernels are chosen by the rules of hyper-parallel's merger
(docs/merge.md). Candidates are complete events (ph X or none) with a
numeric finite ts >= 0 and dur > 0 (numbers or strings of them), on
--outer-pid when given. A device kernel has a cat holding kernel, npu,
ascend or aicore, or a Task Type arg holding kernel, ai_core, aicore, aic
or aiv. By default names must match the kernelName's CamelCase words joined
by [_]?, ignoring case (HyperMegaMoe matches HyperMegaMoe_abc123 and
hyper_mega_moe); --kernel-pattern REGEX replaces that. Of the matching
candidates only the best-scored are kept (device, category and name
tokens; tiling and workspace helpers score low), in ts order; the
invocations (in time order) take them from --kernel-index. When the default
pattern matches nothing, the device kernels in ts order from --kernel-index
are searched for the contiguous run whose durations are closest to the
invocations' spans, with a warning (usedFallbackKernelSelection). A chosen
host-only event (cpu_op, user_annotation, ...) is refused unless
--allow-host-wrapper.

Each invocation's events keep their relative times and durations; the
earliest is placed at its outer kernel's ts (exact decimal arithmetic), on
the outer kernel's pid, on new threads <kernelName>/<AIC|AIV>/<block> whose
tids collide with none in the framework trace, sorted just after the outer
kernel's thread. Dependency arrows (decode --plan) come along. Args gain
parent_kernel, parent_kernel_ts, parent_kernel_dur, cycle_trace_rank and
cycle_trace_device_id. The merged trace's megaKernelTraceMerge object
records what was done (upstream's keys: kernelPattern, alignments with
outerKernelScore, ..., warnings); warnings also go to stderr, one per line.

Memory does not grow with the framework trace: merge keeps --kernel-index
plus one candidate per invocation, and, for the fallback, the earliest
262,144 device kernels (8 MiB; out of ts order, it reads the trace again
for each further 262,144).

--upstream-compat writes what hyper-parallel's own merger writes, for
tools that compare with it (cycleabi.hyper_parallel.merge_chrome_traces
uses it): times placed in float64 arithmetic (outer ts + ts - first ts,
as Python adds them: 10010.523000000001), never as strings; threads of
their own per invocation, tids from one past the pid's largest, sorted
before the pid's threads; megaKernelTraceMerge with upstream's keys only
(float figures, invocationId null for a trace without invocation ids);
no dependency arrows and no megaKernelCycleTrace carried
(docs/python.md lists what still differs).

A multi-rank MegaKernel trace is merged one rank at a time (--rank R), each
into its own device's framework trace.

Exit status: 0 on success, 1 when an input cannot be merged (malformed,
non-finite times, an unknown megaKernelCycleTrace schemaVersion, no or too
few outer kernels), 2 for usage or I/O errors.`,
		Example: `  cycleabi decode rank0.bin --kernel-name HyperMegaMoe -o mk.json
  cycleabi merge torch_trace.json mk.json -o merged.json
  cycleabi merge trace.json.gz mk.json --kernel-pattern 'MegaMoe_[0-9a-f]+$' --kernel-index 2 -o merged.json.gz
  cycleabi merge msprof_trace.json multi_rank.json --rank 3 -o merged_r3.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return Usage(errors.New("merge needs FRAMEWORK_TRACE and MEGAKERNEL_TRACE"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, args, &f) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.output, "output", "o", "", `merged trace (required); "-" for stdout; a name ending in .gz is gzip-compressed`)
	fs.StringVar(&f.kernelPattern, "kernel-pattern", "", "regular expression outer kernel names must match (default: the kernelName's CamelCase words joined by [_]?, ignoring case)")
	fs.IntVar(&f.kernelIndex, "kernel-index", 0, "index, among the best-scored matching outer kernels in ts order (in the fallback: the device kernels), of the one the first invocation goes under")
	fs.BoolVar(&f.allowHostWrapper, "allow-host-wrapper", false, "accept host-only outer events (cpu_op, user_annotation, ...) when selection picks them, with a warning")
	fs.StringVar(&f.outerPID, "outer-pid", "", "take outer kernels only from this pid (compared as text: 7 matches pid 7 and \"7\")")
	fs.Int64Var(&f.rank, "rank", 0, "rank to merge from a multi-rank MegaKernel trace")
	fs.BoolVar(&f.upstream, "upstream-compat", false, "write what hyper-parallel's merger writes: float64 times, threads per invocation, its megaKernelTraceMerge keys only")
	return cmd
}

func runMerge(cmd *cobra.Command, args []string, f *mergeFlags) error {
	fs := cmd.Flags()
	if f.output == "" {
		return Usage(errors.New("merge needs -o MERGED"))
	}
	if f.kernelIndex < 0 {
		return Usage(fmt.Errorf("--kernel-index must be >= 0, got %d", f.kernelIndex))
	}
	if fs.Changed("rank") && f.rank < 0 {
		return Usage(fmt.Errorf("--rank must be >= 0, got %d", f.rank))
	}
	if err := outfile.SameFile(f.output, args...); err != nil {
		return Usage(err)
	}
	o := tracemerge.Options{
		Framework: args[0], MegaKernel: args[1],
		KernelPattern: f.kernelPattern, KernelPatternSet: fs.Changed("kernel-pattern"),
		KernelIndex: f.kernelIndex, AllowHostWrapper: f.allowHostWrapper, Rank: -1,
		Upstream: f.upstream,
	}
	if fs.Changed("outer-pid") {
		o.OuterPID = &f.outerPID
	}
	if fs.Changed("rank") {
		o.Rank = f.rank
	}
	out, err := render.CreateOutput(f.output, cmd.OutOrStdout())
	if err != nil {
		return Usage(err)
	}
	res, err := tracemerge.Merge(out, o)
	if err != nil {
		out.Abort()
		var ie *tracemerge.InputError
		var se *tracemerge.SelectionError
		if errors.As(err, &ie) || errors.As(err, &se) {
			return Invalid(err)
		}
		return Usage(err)
	}
	if err := out.Commit(); err != nil {
		return Usage(err)
	}
	stderr := cmd.ErrOrStderr()
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "cycleabi: warning: %s\n", w)
	}
	where := f.output
	if where == "-" {
		where = "stdout"
	}
	fmt.Fprintf(stderr, "cycleabi: %d events of %d invocation(s) merged into %s\n", res.MergedEventCount, res.MergedInvocationCount, where)
	return nil
}
