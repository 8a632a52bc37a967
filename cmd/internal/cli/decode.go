package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/perfetto"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/plan"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type decodeFlags struct {
	layout        LayoutFlags
	output        string
	format        string
	soc           string
	freqMHz       float64
	detailedNames bool
	namesFile     string
	family        FamilyFlags
	ownerLabel    string
	ranks         []uint
	deviceIDs     []uint
	invocations   InvocationFlags
	flows         string
	maxFlows      int
	negativeTS    string
	partial       bool
	strict        bool
	upstream      bool
	upstreamReq   string
}

func newDecodeCmd() *cobra.Command {
	var f decodeFlags
	cmd := &cobra.Command{
		Use:   "decode CAPTURE... [flags]",
		Short: "Turn captures into a Chrome/Perfetto trace",
		Long: HelpText(`decode checks each capture against the ABI (a raw buffer, a NumPy .npy
file, or a MegaKernel Chrome JSON trace, plain or gzip) and writes one
trace of them all: Chrome Trace Event JSON, or with --format perfetto (the
default for -o NAME.pftrace) Perfetto's own protobuf, a quarter the size.
Open either in https://ui.perfetto.dev ("Open trace file"). One process
per rank, one thread per core that wrote records (AIC/3, AIV/17), one
slice per record, in time order; timestamps in µs from the earliest core
entry, at --soc's system-counter frequency or --freq-mhz.

  layout      found from the capture, as validate finds it; --cube-slots,
              and {capacity flags}, give it instead
  names       --names FILE names stages, graph stages and task stages; a
              kernel family (--kernel-name, --kernel-family, else found
              from the records and said) names its own
  arrows      --plan SCHEDULE adds dependency arrows (--flows, --max-flows)
  ranks       several captures go into one trace; ranks from --rank, else
              from the file names (rank3.bin)
  windows     --invocation-manifest FILE, or --step/--direction per
              capture: a rank's launches at their real times
              (--invocation-gap-us lays them end to end)
  early       records before time 0 are shifted so none is negative
              (--negative-ts keep writes them negative, as the reference)
  truncated   an error; --partial decodes what the file holds and says
              what is missing

The trace is written under a temporary name and renamed into place: a
failed or interrupted decode leaves nothing and the previous trace as it
was. -o NAME.gz writes gzip; -o - writes to stdout; an output that is one
of the inputs is refused.

Exit status: 0 on success, 1 when a capture is invalid (the message names
the file, byte offset, slot and record) or, with --strict, an input drew a
warning about what it holds (a JSON trace's name cut to the cap on a name,
a rank, invocation or core its metadata describes with no events, a kernel
family the records leave open; the trace is written all the same), 2 for
usage or I/O errors, 141
when the reader of -o - goes away; SIGINT, SIGTERM and SIGHUP remove the
temporary file and end decode with the signal.`),
		Example: HelpText(`  cycleabi decode examples/moe_layer.bin --names examples/moe_layer.names.yaml
  cycleabi decode capture.npy --soc Ascend950 --detailed-names -o trace.json.gz
  cycleabi decode rank0.bin rank1.bin rank2.bin rank3.bin -o moe.json
  cycleabi decode capture.bin --names kernel.names.yaml -o trace.pftrace
  cycleabi decode a.bin b.bin --rank 4 --rank 5 {capacity args 32 48}
  cycleabi decode fwd.bin bwd.bin --step 3 --step 3 --direction forward --direction backward
  cycleabi decode --invocation-manifest window.yaml -o window.json`),
		Args: CapturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runDecode(cmd, args, &f) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.output, "output", "o", "trace.json", `trace file; "-" for stdout; a name ending in .gz is gzip-compressed (default: trace.json, or trace.pftrace with --format perfetto)`)
	fs.StringVar(&f.format, "format", "", `trace format: json (Chrome Trace Event JSON) or perfetto (native Perfetto protobuf); default: perfetto for a -o name ending in .pftrace or .perfetto-trace (before any .gz), else json`)
	f.layout.Register(fs, "schedule (YAML or JSON) the kernel ran: the dependency arrows come from it, and its host plan stands in when the capture's headers state no layout")
	RegisterFrequency(fs, &f.soc, &f.freqMHz)
	fs.BoolVar(&f.detailedNames, "detailed-names", false, `owner and task number in event names ("Owner3_TaskType_MatMul_task2")`)
	RegisterNames(fs, &f.namesFile)
	f.family.Register(fs, "MegaKernel", "kernel name in the process name")
	fs.StringVar(&f.ownerLabel, "owner-label", "Owner", "prefix of the owner id in detailed names; default: the kernel family's owner label (Expert for MegaMoe), else Owner")
	RegisterRanks(fs, &f.ranks)
	fs.UintSliceVar(&f.deviceIDs, "device-id", nil, "device id of each capture, repeated in order (default: the rank)")
	fs.StringVar(&f.flows, "flows", "releasing", "dependency arrows with --plan: releasing, all or none")
	fs.IntVar(&f.maxFlows, "max-flows", 0, "at most this many dependency arrows per capture (0: no cap)")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 when an input drew a warning (a trace's name cut or rank missing, a kernel family left open), once the trace is written")
	fs.BoolVar(&f.partial, "partial", false, "decode a truncated capture as far as the file goes, and say what is missing (slots and records, by byte offset)")
	fs.StringVar(&f.negativeTS, "negative-ts", negativeShift, "records that start before time 0: shift moves every timestamp later by the same time so that none is negative (Perfetto drops negative ones); keep writes them negative, as the reference decoder does (JSON only)")
	// pflag prints "(default [])" after an empty uint list; the usage
	// already says what the default is.
	fs.Lookup("rank").DefValue, fs.Lookup("device-id").DefValue = "", ""
	// The usage states the default, which depends on --format.
	fs.Lookup("output").DefValue = ""
	f.invocations.Register(fs)
	fs.BoolVar(&f.upstream, "upstream-compat", false, "write the trace as hyper-parallel's export_chrome_trace writes it (json.dumps of its _parse_cycle_buffer dict, or of its window of invocations), byte for byte; the captures are raw buffers, described by --upstream-config")
	fs.StringVar(&f.upstreamReq, "upstream-config", "", `with --upstream-compat: JSON file ("-" for stdin) giving each capture's _CycleTraceConfig fields, the window and upstream's tables, as cycleabi.hyper_parallel writes it (see docs/python.md)`)
	return cmd
}

func runDecode(cmd *cobra.Command, paths []string, f *decodeFlags) error {
	fs := cmd.Flags()
	if f.upstream || fs.Changed("upstream-config") {
		return runDecodeUpstream(cmd, paths, f)
	}
	req, err := f.layout.Request(fs)
	if err != nil {
		return Usage(err)
	}
	req.Partial = f.partial
	flowMode, err := flows.ParseMode(f.flows)
	if err != nil {
		return Usage(fmt.Errorf("--flows: %w", err))
	}
	if f.maxFlows < 0 {
		return Usage(fmt.Errorf("--max-flows %d: must be 0 (no cap) or more", f.maxFlows))
	}
	if f.layout.PlanFile == "" && (fs.Changed("flows") || fs.Changed("max-flows")) {
		return Usage(errors.New("--flows and --max-flows need --plan SCHEDULE (the schedule the kernel ran)"))
	}
	// --flows none leaves the schedule to the layout: no arrows, and no
	// check of the capture against its task table.
	var sched *plan.Schedule
	if flowMode != flows.None {
		sched = f.layout.Schedule
	}
	invs, err := f.invocations.Resolve(paths, f.ranks)
	if err != nil {
		return Usage(err)
	}
	if invs != nil {
		paths = invs.Captures()
	}
	format, err := traceFormat(f.format, f.output)
	if err != nil {
		return Usage(err)
	}
	switch {
	case f.negativeTS != negativeShift && f.negativeTS != negativeKeep:
		return Usage(fmt.Errorf("--negative-ts %q: want shift or keep", f.negativeTS))
	case f.negativeTS == negativeKeep && format == formatPerfetto:
		return Usage(errors.New("--negative-ts keep: a Perfetto protobuf trace holds no negative timestamp (its writer always shifts them); keep goes with --format json"))
	}
	if format == formatPerfetto && !fs.Changed("output") {
		f.output = "trace.pftrace"
	}
	if w := formatNameMismatch(format, f.output); w != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "cycleabi: warning: %s\n", w)
	}
	// Once the output's name is final, before any capture is read.
	if err := outfile.SameFile(f.output, append([]string{f.namesFile, f.layout.PlanFile, f.invocations.Manifest}, paths...)...); err != nil {
		return Usage(err)
	}
	// The JSON writer scans each capture again for its cores when it
	// comes to write it (the Perfetto writer lays out every rank's
	// tracks first).
	l, err := input.Load(input.Options{
		Paths: paths, Window: invs, Request: req, LayoutGiven: LayoutFlagsGiven(fs.Changed, &f.layout),
		Schedule: sched, Ranks: f.ranks,
		SoC: f.soc, FreqMHz: f.freqMHz, SoCGiven: fs.Changed("soc"), FreqGiven: fs.Changed("freq-mhz"),
		NamesFile: f.namesFile, Family: f.family.Options(),
		DeviceIDs: f.deviceIDs, OwnerLabel: f.ownerLabel, OwnerLabelGiven: fs.Changed("owner-label"),
		DetailedNames: f.detailedNames, DetailedNamesGiven: fs.Changed("detailed-names"),
		DropSlots: format == formatJSON,
	})
	defer l.Close()
	warned := PrintInputs(cmd, l, err, true)
	if err != nil {
		var p *capture.Problem
		if !f.partial && errors.As(err, &p) && p.Code == capture.CodeTruncated {
			return fmt.Errorf("%w\n(decode --partial decodes what the file holds and lists what is missing)", err)
		}
		return err
	}
	inputs, records := renderInputs(l.Sources, f, flowMode)

	out, err := render.CreateOutput(f.output, cmd.OutOrStdout())
	if err != nil {
		return Usage(err)
	}
	var overlaps []string
	opts := render.WriteOptions{AbsoluteTime: f.invocations.Absolute, FlowStats: make([]flows.Stats, len(inputs)),
		ShiftNegativeTS: f.negativeTS == negativeShift, Overlaps: &overlaps}
	if fs.Changed("invocation-gap-us") {
		opts.InvocationGapUs = &f.invocations.GapUs
	}
	bar := ProgressBar(cmd.ErrOrStderr(), records)
	if bar != nil {
		opts.Progress = func(n int) { bar.Add(n) }
	}
	write := chromejson.Write
	if format == formatPerfetto {
		write = perfetto.Write
	}
	err = write(out, inputs, opts)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		out.Abort()
		var u *perfetto.Unrepresentable
		if errors.As(err, &u) {
			return Invalid(err) // a record the format cannot hold
		}
		return Usage(err)
	}
	if err := out.Commit(); err != nil {
		return Usage(err)
	}

	warned += summarizeDecode(cmd.ErrOrStderr(), inputs, opts.FlowStats, overlaps, decodeSummary{
		records: records, where: outputPhrase(f.output, out.Replaces()), withFlows: sched != nil, flowMode: flowMode, format: format,
	})
	return StrictWarned(cmd, f.strict, warned)
}

// decodeSummary is what decode's closing line says besides the inputs.
type decodeSummary struct {
	records   uint64
	where     string // the output, as outputPhrase names it
	withFlows bool   // a schedule gave the dependency arrows
	flowMode  flows.Mode
	format    string
}

// summarizeDecode writes decode's warnings (each capture's, its arrows',
// the window's overlaps) and its closing line to stderr, and returns how
// many warnings it wrote: --strict exits 1 on them (dropped records, as
// validate --strict does; decode --strict exited 0 on them).
func summarizeDecode(stderr io.Writer, inputs []render.Input, stats []flows.Stats, overlaps []string, sum decodeSummary) (warned int) {
	var arrows, orphans uint64
	warn := func(format string, args ...any) {
		fmt.Fprintf(stderr, format, args...)
		warned++
	}
	for i, in := range inputs {
		for _, w := range append(slices.Clip(in.Decoded.Capture.Warnings), in.Decoded.Problems...) {
			warn("cycleabi: warning: %v\n", &w)
		}
		for i, w := range in.Decoded.Warnings.Lines() {
			if i == 0 && in.Decoded.Warnings.Dropped > 0 {
				w += "; plan larger capacities; run validate for offsets"
			}
			warn("cycleabi: warning: %s: %s\n", rankedName(in), w)
		}
		if w := flows.Warning(stats[i]); w != "" {
			warn("cycleabi: warning: %s: %s\n", rankedName(in), w)
		}
		arrows += stats[i].Arrows
		orphans += stats[i].WaitsWithoutProducer
	}
	for _, w := range overlaps {
		warn("cycleabi: warning: %s\n", w)
	}
	layout := ""
	if len(inputs) == 1 {
		layout = "; layout " + LayoutPhrase(inputs[0].Decoded.Layout)
	} else {
		for _, in := range inputs {
			fmt.Fprintf(stderr, "cycleabi: %s: layout %s\n", rankedName(in), LayoutPhrase(in.Decoded.Layout))
		}
	}
	arrowsPhrase := ""
	if sum.withFlows {
		arrowsPhrase = fmt.Sprintf(", %d dependency arrows (%s), %d waits without producer", arrows, sum.flowMode, orphans)
	}
	viewers := "https://ui.perfetto.dev"
	if sum.format == formatPerfetto {
		viewers = "https://ui.perfetto.dev (Open trace file) or trace_processor"
	}
	fmt.Fprintf(stderr, "cycleabi: %d records from %d capture(s)%s written to %s%s; open it in %s\n", sum.records, len(inputs), arrowsPhrase, sum.where, layout, viewers)
	return warned
}

// rankedName names input in on decode's stderr with its rank, "rank0.bin
// (rank 0)", unless its name states the rank already: a capture of a JSON
// trace of several ("two.json (rank 1)", "w.json (rank 2, invocation 4)")
// said it twice.
func rankedName(in render.Input) string {
	name, rank := in.Decoded.Capture.Name, in.Config.Rank
	if strings.Contains(name, fmt.Sprintf(" (rank %d)", rank)) || strings.Contains(name, fmt.Sprintf(" (rank %d, ", rank)) {
		return name
	}
	return fmt.Sprintf("%s (rank %d)", name, rank)
}

const (
	formatJSON     = "json"
	formatPerfetto = "perfetto"
)

// The values of --negative-ts.
const (
	negativeShift = "shift"
	negativeKeep  = "keep"
)

// traceFormat resolves --format: as given, else perfetto when the output
// name (less a .gz) ends in .pftrace or .perfetto-trace, else json.
func traceFormat(flag, output string) (string, error) {
	switch flag {
	case formatJSON, formatPerfetto:
		return flag, nil
	case "":
		name := strings.TrimSuffix(output, ".gz")
		if strings.HasSuffix(name, ".pftrace") || strings.HasSuffix(name, ".perfetto-trace") {
			return formatPerfetto, nil
		}
		return formatJSON, nil
	}
	return "", fmt.Errorf("--format %q: want json or perfetto", flag)
}

// formatNameMismatch says, when the output's name (less a .gz) claims the
// other format than the one being written, what a tool that goes by the
// name will get wrong; "" when they agree or the name claims neither.
func formatNameMismatch(format, output string) string {
	name := strings.TrimSuffix(output, ".gz")
	switch {
	case format == formatJSON && (strings.HasSuffix(name, ".pftrace") || strings.HasSuffix(name, ".perfetto-trace")):
		return fmt.Sprintf("%s: writing JSON (--format json) to a name that says a Perfetto protobuf trace", output)
	case format == formatPerfetto && strings.HasSuffix(name, ".json"):
		return fmt.Sprintf("%s: writing a Perfetto protobuf trace (--format perfetto) to a name that says JSON", output)
	}
	return ""
}

// renderInputs are the trace writer's inputs for the sources srcs under
// decode's flags, and their records in all. Each source's
// interpretations (device id, detailed names, owner label: a trace
// converted keeps what it states unless a flag says otherwise) are
// input.Load's.
func renderInputs(srcs []*input.Source, f *decodeFlags, flowMode flows.Mode) ([]render.Input, uint64) {
	inputs := make([]render.Input, len(srcs))
	var records uint64
	for i, s := range srcs {
		c := &inputs[i].Config
		*c = render.Config{KernelName: s.Kernel, OwnerLabel: s.OwnerLabel, Names: s.Names}
		c.KernelFamily, c.KernelFamilyFrom = s.FamilyStated()
		inputs[i].Decoded = s.Decoded
		c.Rank, c.DeviceID = s.Rank, s.DeviceID
		c.FrequencyMHz, c.SoCName = s.FrequencyMHz, s.SoC
		c.DetailedNames, c.FlowMode, c.MaxFlows, c.Deps = s.DetailedNames, flowMode, f.maxFlows, s.Deps
		c.WindowIndex, c.Invocation = s.WindowIndex, s.Invocation
		records += s.Decoded.Summary.Records
	}
	return inputs, records
}

// runDecodeUpstream is decode --upstream-compat: the captures, described by
// --upstream-config, written as upstream's export_chrome_trace writes them
// (chromejson.WriteUpstream).
func runDecodeUpstream(cmd *cobra.Command, paths []string, f *decodeFlags) error {
	fs := cmd.Flags()
	if !f.upstream {
		return Usage(errors.New("--upstream-config goes with --upstream-compat"))
	}
	var other []string
	fs.Visit(func(fl *pflag.Flag) {
		if fl.Name != "upstream-compat" && fl.Name != "upstream-config" && fl.Name != "output" {
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) > 0 {
		return Usage(fmt.Errorf("--upstream-compat takes its configuration from --upstream-config, not %s", strings.Join(other, ", ")))
	}
	if f.upstreamReq == "" {
		return Usage(errors.New("--upstream-compat needs --upstream-config FILE (each capture's _CycleTraceConfig fields)"))
	}
	if err := outfile.SameFile(f.output, append([]string{f.upstreamReq}, paths...)...); err != nil {
		return Usage(err)
	}
	var req []byte
	var err error
	if f.upstreamReq == "-" {
		req, err = io.ReadAll(cmd.InOrStdin())
	} else {
		req, err = os.ReadFile(f.upstreamReq)
	}
	if err != nil {
		return Usage(err)
	}
	x, err := chromejson.ReadUpstreamRequest(f.upstreamReq, req)
	if err != nil {
		return Usage(fmt.Errorf("--upstream-config: %w", err))
	}
	if len(x.Invocations) != len(paths) {
		return Usage(fmt.Errorf("--upstream-config %s describes %d invocations, and %d captures are given", f.upstreamReq, len(x.Invocations), len(paths)))
	}
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return Usage(err)
		}
		x.Invocations[i].Name, x.Invocations[i].Buffer = p, b
	}
	out, err := render.CreateOutput(f.output, cmd.OutOrStdout())
	if err != nil {
		return Usage(err)
	}
	if err := chromejson.WriteUpstream(out, x); err != nil {
		out.Abort()
		var bad *chromejson.UpstreamError
		if errors.As(err, &bad) {
			return Invalid(err)
		}
		return Usage(err)
	}
	if err := out.Commit(); err != nil {
		return Usage(err)
	}
	return nil
}
