package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/sniff"
	"github.com/megakernel/cycleabi/validate"
)

// sources are the captures a command reads, each a capture file or one
// capture (a rank, or an invocation of a window) of a MegaKernel JSON
// trace, which package jsontrace reads back into captures. decode,
// analyze, report and diff take their inputs through loadSources; it,
// and validate one path at a time, open each path as an input, so each
// reads a trace wherever it reads a capture.
type sources struct {
	// paths[i] is the file source i came from; trace[i] is its trace
	// capture, nil for a capture file.
	paths  []string
	traces []*jsontrace.Source
	// ranks and invocations are each source's: from the flags or the
	// file name for a capture file (as before), from the trace for a
	// trace's; invocations is nil when the sources are no window.
	ranks       []uint32
	invocations []*render.Invocation
	// kernelNames are the window manifest's or the trace's kernel names,
	// "" where the command's own applies.
	kernelNames []string
	// decoded are the sources once decode ran.
	decoded []*decode.Decoded
	opened  []*input
}

// close releases the captures and the traces' scratch files.
func (s *sources) close() {
	for _, d := range s.decoded {
		if d != nil {
			d.Capture.Close()
		}
	}
	for _, in := range s.opened {
		in.close()
	}
}

// input is one path a command reads: a capture file, or a MegaKernel
// JSON trace (plain or gzip), told apart by content. Every command that
// reads captures opens its paths through openInput (loadSources through
// tellInput and read, to refuse the flags a trace states before reading
// one), so each reads a trace wherever it reads a capture, with the same
// errors and exit codes.
type input struct {
	path string
	// isTrace says the file is a JSON trace; trace is the trace read back
	// into captures, nil until read.
	isTrace bool
	trace   *jsontrace.Trace
}

// tellInput tells a JSON trace from a capture by the content of the file
// at path. A file that cannot be opened or read is a usage or I/O error.
func tellInput(path string) (*input, error) {
	s, err := sniff.File(path)
	if err != nil {
		return nil, usage(err)
	}
	return &input{path: path, isTrace: s.Kind == sniff.JSON && s.Trace}, nil
}

// read reads a trace back into its captures; a capture file is left to
// what reads it (decode, validate). A trace that cannot be read back is
// invalid input; a file that cannot be read, or a scratch file that
// cannot be written, a usage or I/O error.
func (in *input) read() error {
	if !in.isTrace || in.trace != nil {
		return nil
	}
	t, err := jsontrace.Read(in.path, "")
	if err != nil {
		var ie *jsontrace.Error
		if errors.As(err, &ie) {
			return invalid(err)
		}
		return usage(err)
	}
	in.trace = t
	return nil
}

// sources are the captures the input holds once read: for a capture file
// one, nil (the file itself); for a trace one per rank, or per invocation
// of a window, in the trace's order (by rank, then invocation id).
func (in *input) sources() []*jsontrace.Source {
	if in.trace == nil {
		return []*jsontrace.Source{nil}
	}
	return in.trace.Sources
}

// close releases a trace's scratch file.
func (in *input) close() {
	if in.trace != nil {
		in.trace.Close()
		in.trace = nil
	}
}

// openInput tells what the file at path holds and reads it into its
// captures (see input.sources). Close the input when done.
func openInput(path string) (*input, error) {
	in, err := tellInput(path)
	if err == nil {
		err = in.read()
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// loadSources resolves paths (or the window invs, when not nil) into
// sources, reads the traces among them back into captures and decodes
// every capture under req (traces under the layout they state). flagRanks
// is --rank; layoutGiven says a layout flag was set. dropSlots drops the
// active slots of each of several captures once decoded (see decodeAll).
func loadSources(paths []string, flagRanks []uint, invs *invocationSet, req capture.Request, layoutGiven, dropSlots bool) (*sources, error) {
	s := &sources{}
	if invs != nil {
		paths = invs.captures
	}
	ins := make([]*input, len(paths))
	anyTrace := false
	for i, p := range paths {
		var err error
		if ins[i], err = tellInput(p); err != nil {
			return s, err
		}
		anyTrace = anyTrace || ins[i].isTrace
	}
	if !anyTrace {
		s.paths, s.traces = paths, make([]*jsontrace.Source, len(paths))
		if invs != nil {
			s.ranks, s.kernelNames = invs.ranks, invs.kernelNames
			for i := range invs.invocations {
				s.invocations = append(s.invocations, &invs.invocations[i])
			}
		} else {
			var err error
			if s.ranks, err = captureRanks(paths, flagRanks); err != nil {
				return s, usage(err)
			}
			s.kernelNames = make([]string, len(paths))
		}
		var places []string
		if invs != nil {
			places = invs.where()
		}
		var err error
		s.decoded, err = decodeAll(paths, req, places, dropSlots)
		return s, err
	}
	switch {
	case invs != nil:
		return s, usage(errors.New("a JSON trace states its own ranks and invocations: give it as an argument, without --invocation-manifest, --step or --direction"))
	case len(flagRanks) > 0:
		return s, usage(errors.New("--rank goes with captures: a JSON trace states its ranks"))
	case layoutGiven:
		return s, usage(errors.New("--cube-slots and the capacity flags go with captures: a JSON trace states its layout"))
	}
	var capPaths []string
	for i, p := range paths {
		if !ins[i].isTrace {
			capPaths = append(capPaths, p)
		}
	}
	var capRanks []uint32
	if len(capPaths) > 0 {
		var err error
		if capRanks, err = captureRanks(capPaths, nil); err != nil {
			return s, usage(err)
		}
	}
	// Until every source is in order, close() releases the captures.
	capDecoded, err := decodeAll(capPaths, req, nil, false)
	s.decoded = capDecoded
	if err != nil {
		return s, err
	}
	var ordered []*decode.Decoded
	window := false
	k := 0
	for i, p := range paths {
		if !ins[i].isTrace {
			s.paths = append(s.paths, p)
			s.traces = append(s.traces, nil)
			s.ranks = append(s.ranks, capRanks[k])
			s.invocations = append(s.invocations, nil)
			s.kernelNames = append(s.kernelNames, "")
			ordered = append(ordered, capDecoded[k])
			k++
			continue
		}
		if err := ins[i].read(); err != nil {
			return s, err
		}
		s.opened = append(s.opened, ins[i])
		for _, src := range ins[i].sources() {
			d, err := src.Decode()
			if err != nil {
				return s, exitFor(err)
			}
			s.paths = append(s.paths, p)
			s.traces = append(s.traces, src)
			s.ranks = append(s.ranks, src.Rank)
			s.invocations = append(s.invocations, src.Invocation)
			// The trace's kernelName is where a kernel family is chosen
			// from, as a manifest's kernel_name is.
			s.kernelNames = append(s.kernelNames, src.KernelName)
			ordered = append(ordered, d)
			window = window || src.Invocation != nil
		}
	}
	s.decoded = ordered
	if !window {
		s.invocations = nil
	}
	return s, s.checkUnique()
}

// checkUnique refuses two sources of one rank (and invocation).
func (s *sources) checkUnique() error {
	type key struct {
		rank uint32
		inv  int64
	}
	seen := map[key]int{}
	for i, r := range s.ranks {
		k := key{rank: r, inv: -1}
		if s.invocations != nil {
			if s.invocations[i] == nil {
				return usage(fmt.Errorf("%s is not an invocation of a window and %s is: give every capture its invocation, or none", s.name(i), s.name(firstInvocation(s.invocations))))
			}
			k.inv = s.invocations[i].ID
		}
		if j, dup := seen[k]; dup {
			what := fmt.Sprintf("rank %d", r)
			if k.inv >= 0 {
				what = fmt.Sprintf("invocation %d of rank %d", k.inv, r)
			}
			return usage(fmt.Errorf("%s and %s are both %s", s.name(j), s.name(i), what))
		}
		seen[k] = i
	}
	return nil
}

func firstInvocation(invs []*render.Invocation) int {
	for i, v := range invs {
		if v != nil {
			return i
		}
	}
	return 0
}

// name labels source i in messages.
func (s *sources) name(i int) string {
	if s.traces[i] != nil {
		return s.traces[i].Name
	}
	return s.paths[i]
}

// notes are what source i's trace could not carry (none for a capture).
func (s *sources) notes(i int) []string {
	if s.traces[i] == nil {
		return nil
	}
	return s.traces[i].Notes
}

// names returns the names source i is named with: the names file's when
// given, else its trace's.
func (s *sources) names(i int, file *kernelnames.Names) *kernelnames.Names {
	if file != nil || s.traces[i] == nil {
		return file
	}
	return s.traces[i].Names
}

// frequency returns source i's system-counter frequency and SoC name: its
// trace's, unless --soc or --freq-mhz was given (then mhz and soc, which
// the flags resolved to).
func (s *sources) frequency(i int, flagsGiven bool, mhz float64, soc string) (float64, string) {
	t := s.traces[i]
	if flagsGiven || t == nil || t.FrequencyMHz == 0 {
		return mhz, soc
	}
	if t.SoCName != "" {
		soc = t.SoCName
	}
	return t.FrequencyMHz, soc
}

// check validates source i as validate does a capture file.
func (s *sources) check(i int, o validate.Options) (*validate.Result, error) {
	if s.traces[i] != nil {
		return s.traces[i].Validate(o)
	}
	return validate.CheckFile(s.paths[i], o)
}

// printNotes writes what each trace could not carry to stderr, once per
// note and trace.
func (s *sources) printNotes(w io.Writer) {
	for i, t := range s.traces {
		if t == nil {
			continue
		}
		for _, n := range t.Notes {
			fmt.Fprintf(w, "cycleabi: note: %s: %s\n", s.name(i), n)
		}
	}
}

// layoutFlagsGiven reports whether a flag that states a capture's layout
// (--cube-slots, a capacity flag) was set.
func layoutFlagsGiven(changed func(string) bool, f *layoutFlags) bool {
	if changed("cube-slots") {
		return true
	}
	for _, c := range f.capacities {
		if changed(capacityFlagName(c.coreType)) {
			return true
		}
	}
	return false
}
