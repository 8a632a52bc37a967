package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/report"
	"github.com/megakernel/cycleabi/validate"
	"github.com/spf13/cobra"
)

type reportFlags struct {
	in            AnalyzeInputs
	invocations   InvocationFlags
	base          []string
	baseManifest  string
	output        string
	allowMismatch bool
	strict        bool
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report CAPTURE... [flags]",
		Short: "Write one self-contained HTML page: where the time went, at a glance",
		Long: `report analyzes the captures as 'cycleabi analyze' does (same flags, same
numbers) and writes one HTML page with no outside resource (inline SVG and
CSS, a few lines of script to sort tables), to open in any browser, attach
to a pull request or print:

  1. Summary: kernel, ranks, ABI, layout, records, dropped records and
     what 'cycleabi validate' reports (a red banner when anything was
     dropped or found), makespan, busy % per region; of several ranks,
     the slowest rank and stage, the spread and the drops first, what the
     ranks share said once and the ranks that differ named, each rank's
     own findings folded;
  2. Timeline overview: a row per entered core (idle throughout when it
     wrote no record), binned to 900 columns, compute colored by task type,
     and the critical path over it (--plan);
  3. Where each core's time went: compute/wait/trigger/other/idle per core
     with records (every entered core in its table),
     imbalance per region;
  4. Task types and stages: total time and count/mean/p50/p90/p99/max;
  5. Critical path (--plan): its segments as a Gantt, by kind and by stage;
  6. Ranks (several captures; right after the summary): makespan per
     rank by rank number, on an axis that starts near the fastest, with
     the median and the slow-rank threshold (invocations of a window, as
     analyze takes them: a section each). Ranks run by rank number,
     whatever order the captures were given in;
  7. Compared with base (--base CAPTURE, repeated, or one analyze --format
     json report; or --base-invocation-manifest FILE, a window): the diff
     table, deltas colored by sign. Sections are paired by rank and, for
     invocations of a window, invocation id. A base window can also be
     given as its analysis: 'cycleabi analyze --invocation-manifest
     BASE.yaml --format json -o base.json', then --base base.json.
     A base analyzed with other inputs (kernel family, frequency, SoC,
     --plan, --names) is compared with a warning naming them, on stderr and
     in the section; --strict refuses it.

--strict means what it means in analyze, decode and export, and diff:
exit 1 when an input drew a warning (a trace's name cut or rank missing,
a kernel family left open or not fitting, a stale slot), once the page is
written; and refuse a base analyzed with other inputs.

Task types and stages keep one color (from their name) in every chart and
every report. The page stays small whatever the capture: charts are binned,
at most 96 rows (cores are grouped beyond), 2000 Gantt bars and 1000 rows
per table.

A MegaKernel Chrome JSON trace (what hyper-parallel's profiler export or
'cycleabi decode' writes; plain or gzip, told by its content) stands in for
captures: its ranks (and a window's invocations) are read back from the
events' args, its names, frequency, dropped count and layout from the trace,
and what a trace cannot carry (cores that wrote nothing, per-core dropped
counts) is said in notes; a name cut to 4,096 bytes, or a rank, invocation
or core the trace's metadata describes with no events, in warnings. See
docs/json-traces.md.

Exit status: 0 on success, 1 when a capture is invalid or does not match
the schedule (or the base's ABI differs), 2 for usage or I/O errors.`,
		Example: `  cycleabi report examples/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml -o report.html
  cycleabi report rank0.bin rank1.bin --base before/rank0.bin --base before/rank1.bin -o report.html
  cycleabi report --invocation-manifest after.yaml --base-invocation-manifest before.yaml -o report.html`,
		Args: CapturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.in.KernelUse = "kernel name in the page's title"
	f.in.Register(fs)
	f.invocations.RegisterLabels(fs)
	fs.StringArrayVar(&f.base, "base", nil, "capture to compare with (repeat for several ranks), or one analyze --format json report (of a window too)")
	fs.Var((*FileName)(&f.baseManifest), "base-invocation-manifest", "a window to compare with: its manifest, as --invocation-manifest takes it (instead of --base)")
	fs.StringVarP(&f.output, "output", "o", "report.html", `output file; "-" for stdout`)
	fs.BoolVar(&f.allowMismatch, "allow-abi-mismatch", false, "compare with a base of another ABI fingerprint")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 when an input drew a warning, once the page is written (as analyze); refuse (exit 1) a base analyzed with other inputs (kernel family, frequency, SoC, --plan, --names)")
	return cmd
}

func runReport(cmd *cobra.Command, paths []string, f *reportFlags) error {
	invs, err := f.invocations.Resolve(paths, f.in.Ranks)
	if err != nil {
		return Usage(err)
	}
	inputs := append([]string{}, paths...)
	if invs != nil {
		inputs = append([]string{f.invocations.Manifest}, invs.Captures()...)
	}
	var baseInvs *input.InvocationSet
	if f.baseManifest != "" {
		if len(f.base) > 0 {
			return Usage(errors.New("give the base either with --base or with --base-invocation-manifest, not both"))
		}
		if baseInvs, err = (&InvocationFlags{Manifest: f.baseManifest}).Resolve(nil, nil); err != nil {
			return Usage(fmt.Errorf("--base-invocation-manifest: %w", err))
		}
		inputs = append(append(inputs, f.baseManifest), baseInvs.Captures()...)
	}
	if err := outfile.SameFile(f.output, append(f.in.Files(inputs), f.base...)...); err != nil {
		return Usage(err)
	}
	in := &report.Input{Kernel: f.in.Family.KernelName}
	// Only the timelines the page can draw are made and kept: memory
	// does not grow with the ranks by a timeline each.
	var timelines report.Timelines
	checks := map[*analyze.Rank]*validate.Result{}
	rep, err := f.in.RunEach(cmd, paths, invs, func(i int, d *decode.Decoded, r *analyze.Rank, o analyze.Options) error {
		if i == 0 {
			timelines.Expect(len(f.in.Sources)) // every source is decoded before the first is analyzed
		}
		var tl *analyze.Timeline
		if timelines.Wants(r) {
			var err error
			if tl, err = analyze.NewTimeline(d, r, o, report.TimelineBins); err != nil {
				return Usage(err)
			}
		}
		timelines.Add(r, tl)
		// What validate says of each capture, with the same layout
		// request (errors cannot be left: decode failed on them above;
		// warnings can).
		src := f.in.Sources[i]
		check, err := src.Check(validate.Options{Layout: f.in.Req, Family: src.Family, MaxFindings: 1})
		if err != nil {
			return Usage(err)
		}
		checks[r] = check
		return nil
	})
	if err != nil {
		return err
	}
	// The report is in rank order, not the order the captures came in.
	in.Report, in.Timelines = rep, timelines.List(rep)
	for _, k := range rep.Ranks {
		in.Checks = append(in.Checks, checks[k])
	}
	if len(f.base) > 0 || baseInvs != nil {
		if in.Base, err = reportBase(cmd, &f.in, f.base, baseInvs); err != nil {
			return err
		}
		if in.Diff, err = analyze.Compare(in.Base, rep, f.allowMismatch); err != nil {
			return Invalid(err) // as for diff: ABIs or sections that do not pair
		}
		if err := compareInputs(cmd, in.Diff, f.strict); err != nil {
			return err
		}
	}
	out, err := writeOutputFile(cmd, f.output, func(w io.Writer) error { return report.Write(w, in) })
	if err != nil {
		return err
	}
	open := "; open it in a browser"
	if f.output == outfile.Stdout {
		open = ""
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "cycleabi: report of %d capture(s) written to %s, %s%s\n",
		len(rep.Ranks), outputPhrase(f.output, out.Replaces()), pageSize(out.Written()), open)
	return StrictWarned(cmd, f.strict, f.in.Warned)
}

// pageSize renders a page's size: "48213 bytes (47.1 KiB)".
func pageSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%s)", n, humanBytes(uint64(n)))
}

// reportBase analyzes the base captures with the report's flags (one
// path may be an analyze --format json report instead), or the base
// window invs (non-nil) gives. --rank applies to the base when it has as
// many captures as the report.
func reportBase(cmd *cobra.Command, in *AnalyzeInputs, paths []string, invs *input.InvocationSet) (*analyze.Report, error) {
	b := *in
	if len(b.Ranks) != len(paths) || invs != nil {
		b.Ranks = nil
	}
	if invs != nil {
		return b.Run(cmd, nil, invs)
	}
	if len(paths) == 1 {
		return diffInput(cmd, &b, paths[0])
	}
	return b.Run(cmd, paths, nil)
}
