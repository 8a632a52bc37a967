package cli

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/validate"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	layout      LayoutFlags
	invocations InvocationFlags
	format      string
	strict      bool
	maxFindings int
	family      FamilyFlags
}

func newValidateCmd() *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate CAPTURE... [flags]",
		Short: "Check captures against every ABI invariant and report every violation",
		Long: HelpText(`validate walks each capture (a raw buffer, or a NumPy .npy file) once and
reports everything wrong with it, where decode stops at the first problem.

Errors are exactly the conditions under which decode fails, so validate
reports no error exactly when decode succeeds (with the same layout flags).
Warnings are what decodes but deserves a look: dropped records (with the
capacity that would have held them), nonzero header padding, bytes after the
layout, records out of start order, before their core's entry, or
overlapping on one core, a core with records but entry_cycle 0, unknown
descriptors, task types and core types, and capacities that differ from the
host plan (--plan).

The layout (cube slot count and capacities) is found from the capture: the
file size, the first header of each region and where the next region's
first header sits must agree on exactly one layout; the summary line says
how it was found. When several layouts fit, or none, validate says so and
lists the candidates. --cube-slots, and {capacity flags},
give it instead (what 'cycleabi plan --format flags' prints); values the
headers contradict are a layout-mismatch error naming both. --plan SCHEDULE
plans the schedule as 'cycleabi plan' does: a cube slot count or live
record_capacity that differs from the plan is a plan-mismatch warning, a
core the plan gives tasks that wrote no record (and dropped none) an
idle-worker warning naming it, and the plan's layout stands in when the
headers state none.

Text output: one line per finding, sorted by file offset,

  error slot-identity AIV/17 @0x1a2c0: core_type=1 block_id=5, expected AIV/17
  warning overlap AIV/3 record 2 @0x3d40: start_cycle=1300 before end_cycle=1500 of record 0, expected records of one core not to overlap

then a summary line per capture: records, dropped, errors and warnings by
code, the layout, and the ABI version and fingerprint it was checked
against. At most --max-findings findings of each code are shown (the lowest
offsets); the counts are always exact. --max-findings 0 shows every finding
up to 65536 per code, a bound that keeps memory in check on a capture with
millions of findings; the summary says how many of a code are shown.

--format json writes one document (schema version 1):

  {"version": 1, "abi": {"version": 1, "fingerprint": "..."},
   "strict": false, "max_findings": 100 (0: all, up to 65536), "ok": true,
   "captures": [{"file", "format": "raw"|"npy"|null, "buffer_offset",
     "buffer_size", "layout": {"cube_slots", "capacities": {"AIC", "AIV"},
     "size", "source": "headers"|"host"|"plan", "cube_slots_source":
     "headers"|"size"|"host"|"plan", "capacity_sources": {"AIC", "AIV"},
     "evidence": [{"what", "slot", "offset", "derived"}], "how"} | null,
     "records", "dropped",
     "errors", "warnings", "ok",
     "codes": {CODE: {"severity", "count", "shown", "truncated"}},
     "findings": [{"severity", "code", "offset", "offset_hex",
       "slot" | null, "record" | null, "value", "expected", "message", "hint"}],
     "io_error" (only for a capture that could not be read)}]}

--invocation-manifest FILE validates the captures a window's manifest lists
(as decode reads it) instead of CAPTURE arguments. --step and --direction,
once per capture in order, are checked as decode checks them, so a decode
command line of a window validates unchanged; the findings do not depend
on them.

A MegaKernel Chrome JSON trace (what hyper-parallel's profiler export or
'cycleabi decode' writes; plain or gzip, told by its content) stands in for
captures: its ranks (and a window's invocations) are read back from the
events' args, its names, frequency, dropped count and layout from the trace,
and what a trace cannot carry (cores that wrote nothing, per-core dropped
counts) is said in notes; a name cut to 4,096 bytes is a name-capped
warning, a rank, invocation or core the trace's metadata describes with
no events a missing-capture warning. See docs/json-traces.md.

Exit status: 0 when no capture has an error (warnings allowed), 1 when one
has (or has warnings, with --strict), 2 for usage or I/O errors.`),
		Example: `  cycleabi validate examples/moe_layer.bin
  cycleabi validate rank*.bin --format json > report.json
  cycleabi validate capture.npy --plan examples/moe_layer.yaml --strict
  cycleabi validate capture.bin $(cycleabi plan schedule.yaml --format flags)`,
		Args: CapturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runValidate(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.layout.Register(fs, "schedule (YAML or JSON) whose plan the capture is checked against")
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 on warnings too, and on a capture whose ids need a kernel family no flag names")
	f.family.Register(fs, "MegaKernel", "")
	fs.IntVar(&f.maxFindings, "max-findings", validate.DefaultMaxFindings, "findings shown per code (counts stay exact); 0 = all, up to 65536 per code")
	f.invocations.RegisterLabels(fs)
	return cmd
}

func runValidate(cmd *cobra.Command, paths []string, f *validateFlags) error {
	fs := cmd.Flags()
	if f.format != "text" && f.format != "json" {
		return Usage(fmt.Errorf("--format must be text or json, got %q", f.format))
	}
	if f.maxFindings < 0 {
		return Usage(fmt.Errorf("--max-findings must be at least 0 (0 shows every finding), got %d", f.maxFindings))
	}
	req, err := f.layout.Request(fs)
	if err != nil {
		return Usage(err)
	}
	labelled := f.invocations.Labelled()
	paths, places, err := f.invocations.Captures(paths)
	if err != nil {
		return Usage(err)
	}
	if labelled {
		// As the other commands: a trace's labels are its own, never the
		// manifest's (validate ignored them).
		if err := input.RefuseTraces(paths, places); err != nil {
			return err
		}
	}
	fam, err := f.family.Resolve("")
	if err != nil {
		return Usage(err)
	}
	o := validate.Options{Layout: req, MaxFindings: f.maxFindings, Family: fam, DescIDs: f.strict}
	if f.maxFindings == 0 {
		o.MaxFindings = -1
	}

	if os.Getenv("GOMAXPROCS") == "" {
		// One P more than the goroutines that read: with every P busy, a
		// goroutine blocked in a read (about 25 µs for the scan's 256 KiB)
		// has its P handed to another thread by the runtime, a wake-up and
		// a thread switch per read, which a spare P saves (docs/performance.md). A GOMAXPROCS the user set is left as it is.
		n := runtime.GOMAXPROCS(0)
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n + 1))
		o.Walkers = n
	}
	out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	code, printed := ExitOK, false
	fail := func(c int) { code = max(code, c) }
	var doc *validate.DocumentWriter
	if f.format == "json" {
		doc = validate.NewDocumentWriter(f.strict, o.MaxFindings)
		defer doc.Close()
	}
	var family func(*jsontrace.Source) (abi.Family, string)
	if f.family.Family == "" {
		family = func(src *jsontrace.Source) (abi.Family, string) { return f.family.TraceFamily(src, f.strict) }
	}
	err = validateAll(paths, o, family, func(i int, r *validate.Result, notes []string, unnamed string, err error) error {
		for _, n := range notes {
			fmt.Fprintf(stderr, "cycleabi: note: %s\n", n)
		}
		if err != nil {
			if places != nil {
				err = fmt.Errorf("%s: %w", places[i], err)
			}
			fmt.Fprintf(stderr, "cycleabi: %v\n", err)
			// The exit code checkPath gave it: a trace that cannot be read
			// back is invalid input, a file that cannot be read an I/O
			// error.
			fail(ExitCode(err))
			if doc != nil {
				doc.AddIOError(paths[i], err)
			}
			return nil
		}
		if !r.OK() || f.strict && r.Warnings() > 0 {
			fail(ExitInvalid)
		}
		// A trace's capture whose ids need a family no flag or kernel
		// name picked (TraceFamily), as a capture file's below.
		if f.strict && r.OK() && unnamed != "" {
			fmt.Fprintf(stderr, "cycleabi: --strict: %s\n", unnamed)
			fail(ExitInvalid)
		}
		// A capture file (a trace's captures always carry notes) whose ids
		// need a family no flag named.
		if f.strict && r.OK() && len(notes) == 0 {
			if msg := f.family.Unnamed(paths[i], r.DescIDs); msg != "" {
				fmt.Fprintf(stderr, "cycleabi: --strict: %s\n", msg)
				fail(ExitInvalid)
			}
		}
		if doc != nil {
			doc.Add(r)
			return nil
		}
		if printed {
			fmt.Fprintln(out)
		}
		printed = true
		if err := validate.WriteText(out, r); err != nil {
			return Usage(err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if doc != nil {
		if _, err := doc.WriteTo(out); err != nil {
			return Usage(err)
		}
	}
	if code != ExitOK {
		return Silent(code)
	}
	return nil
}

// validateAll validates every capture, at most o.Walkers (else
// GOMAXPROCS) at once, and hands each result to done in argument order as
// soon as it and those before it are in: at most a few times as many
// results as are validated at once wait to be handed on (each holds a
// bounded buffer and its kept findings), so memory does not grow with the
// number of captures. It stops at done's first error. A JSON trace gives
// a result per capture it holds (each rank, or invocation of a window),
// each with what the trace could not carry (notes, "NAME: note").
//
// family, when not nil, gives the family a trace's capture is validated
// under and what --strict refuses of it (input.FamilyOptions.TraceFamily).
func validateAll(paths []string, o validate.Options, family func(*jsontrace.Source) (abi.Family, string), done func(i int, r *validate.Result, notes []string, unnamed string, err error) error) error {
	n := o.Walkers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	// A path's results wait in its slot of the ring until handed on; a
	// worker takes path i only once path i-len(ring) has been.
	ring := make([]chan []checked, 4*n)
	for i := range ring {
		ring[i] = make(chan []checked, 1)
	}
	free := make(chan struct{}, len(ring))
	for range len(ring) {
		free <- struct{}{}
	}
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, len(paths)) {
		wg.Go(func() {
			for {
				select {
				case <-free:
				case <-stop:
					return
				}
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				ring[i%len(ring)] <- checkPath(paths[i], o, family)
			}
		})
	}
	var err error
outer:
	for i := range paths {
		rs := <-ring[i%len(ring)]
		free <- struct{}{}
		for _, c := range rs {
			if err = done(i, c.r, c.notes, c.unnamed, c.err); err != nil {
				break outer
			}
		}
	}
	close(stop)
	wg.Wait()
	return err
}

// checked is one capture validated: its result, or the error that kept it
// from one, and for a capture of a JSON trace what the trace could not
// carry.
type checked struct {
	r       *validate.Result
	notes   []string
	unnamed string // what --strict refuses of a trace's capture's ids
	err     error
}

// checkPath validates the capture at path, or each capture of the JSON
// trace at path. The input is opened as every command opens one
// (OpenInput), one path at a time, so that a run over many captures holds
// only the few being validated.
func checkPath(path string, o validate.Options, family func(*jsontrace.Source) (abi.Family, string)) []checked {
	in, err := input.OpenInput(path)
	if err != nil {
		return []checked{{err: err}}
	}
	defer in.Close()
	var out []checked
	for _, src := range in.Sources() {
		if src == nil {
			r, err := validate.CheckFile(path, o)
			if err != nil {
				err = Usage(err)
			}
			return append(out, checked{r: r, err: err})
		}
		if src.FreqErr != nil {
			// validate takes no --freq-mhz: the events' frequency is
			// the trace's, and it gives none that holds.
			return append(out, checked{err: Invalid(fmt.Errorf("%w (to decode, analyze or report it)", src.FreqErr))})
		}
		so, unnamed := o, ""
		if family != nil {
			so.Family, unnamed = family(src)
		}
		r, err := src.Validate(so)
		if err != nil {
			return append(out, checked{err: Usage(err)})
		}
		c := checked{r: r, unnamed: unnamed}
		for _, n := range src.Notes {
			c.notes = append(c.notes, src.Name+": "+n)
		}
		out = append(out, c)
	}
	return out
}
