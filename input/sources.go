package input

import (
	"slices"

	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/sniff"
	"github.com/megakernel/cycleabi/validate"
)

// Sources are the captures a command reads, each a capture file or one
// capture (a rank, or an invocation of a window) of a MegaKernel JSON
// trace, which package jsontrace reads back into captures. decode,
// analyze, report and diff take their inputs through LoadSources (Load); it,
// and validate one path at a time (OpenInput), open each path as an
// Input, so each reads a trace wherever it reads a capture.
type Sources struct {
	// paths[i] is the file source i came from; trace[i] is its trace
	// capture, nil for a capture file.
	paths  []string
	Traces []*jsontrace.Source
	// Ranks and invocations are each source's: from the flags or the
	// file name for a capture file (as before), from the trace for a
	// trace's; invocations is nil when the sources are no window.
	Ranks       []uint32
	Invocations []*render.Invocation
	// RankFrom is where each source's rank came from: FromFlag (--rank),
	// FromFileName, FromManifest, FromTrace, or FromDefault (0 for a
	// single capture).
	RankFrom []From
	// KernelNames are the window manifest's or the trace's kernel names,
	// "" where the command's own applies.
	KernelNames []string
	// Decoded are the sources once decode ran.
	Decoded []*decode.Decoded
	opened  []*Input
}

// Close releases the captures and the traces' scratch files.
func (s *Sources) Close() {
	for _, d := range s.Decoded {
		if d != nil {
			d.Capture.Close()
		}
	}
	for _, in := range s.opened {
		in.Close()
	}
}

// Input is one path a command reads: a capture file, or a MegaKernel
// JSON trace (plain or gzip), told apart by content. Every command that
// reads captures opens its paths through OpenInput (LoadSources through
// TellInput and read, to refuse the flags a trace states before reading
// one), so each reads a trace wherever it reads a capture, with the same
// errors and exit codes.
type Input struct {
	path string
	// IsTrace says the file is a JSON trace; trace is the trace read back
	// into captures, nil until read.
	IsTrace bool
	trace   *jsontrace.Trace
}

// TellInput tells a JSON trace from a capture by the content of the file
// at path. A file that cannot be opened or read is a usage or I/O error.
func TellInput(path string) (*Input, error) {
	s, err := sniff.File(path)
	if err != nil {
		return nil, usage(err)
	}
	return &Input{path: path, IsTrace: s.Kind == sniff.JSON && s.Trace}, nil
}

// read reads a trace back into its captures; a capture file is left to
// what reads it (decode, validate). A trace that cannot be read back is
// invalid input; a file that cannot be read, or a scratch file that
// cannot be written, a usage or I/O error.
func (in *Input) read() error {
	if !in.IsTrace || in.trace != nil {
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

// Sources are the captures the input holds once read: for a capture file
// one, nil (the file itself); for a trace one per rank, or per invocation
// of a window, in the trace's order (by rank, then invocation id).
func (in *Input) Sources() []*jsontrace.Source {
	if in.trace == nil {
		return []*jsontrace.Source{nil}
	}
	return in.trace.Sources
}

// Close releases a trace's scratch file.
func (in *Input) Close() {
	if in.trace != nil {
		in.trace.Close()
		in.trace = nil
	}
}

// OpenInput tells what the file at path holds and reads it into its
// captures (Input.Sources). Close the input when done.
func OpenInput(path string) (*Input, error) {
	in, err := TellInput(path)
	if err == nil {
		err = in.read()
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// LoadSources resolves paths (or the window invs, when not nil) into
// sources, reads the traces among them back into captures and decodes
// every capture under req (traces under the layout they state). flagRanks
// is --rank; layoutGiven says a layout flag was set. dropSlots drops the
// active slots of each of several captures once decoded (see decodeAll).
func LoadSources(paths []string, flagRanks []uint, invs *InvocationSet, req capture.Request, layoutGiven, dropSlots bool) (*Sources, error) {
	s := &Sources{}
	if invs != nil {
		paths = invs.Captures
	}
	ins := make([]*Input, len(paths))
	firstTrace := -1
	for i, p := range paths {
		var err error
		if ins[i], err = TellInput(p); err != nil {
			if w := invs.Where(); w != nil {
				// A manifest's entry: named by its line, as decode names
				// a capture it cannot read (a FIFO lost the prefix).
				return s, usage(fmt.Errorf("%s: %w", w[i], errors.Unwrap(err)))
			}
			return s, err
		}
		if ins[i].IsTrace && firstTrace < 0 {
			firstTrace = i
		}
	}
	if firstTrace < 0 {
		s.paths, s.Traces = paths, make([]*jsontrace.Source, len(paths))
		if invs != nil {
			s.Ranks, s.RankFrom, s.KernelNames = invs.Ranks, invs.RankFrom, invs.KernelNames
			for i := range invs.Invocations {
				s.Invocations = append(s.Invocations, &invs.Invocations[i])
			}
		} else {
			var err error
			if s.Ranks, s.RankFrom, err = captureRanks(paths, flagRanks); err != nil {
				return s, usage(err)
			}
			s.KernelNames = make([]string, len(paths))
		}
		var places []string
		if invs != nil {
			places = invs.where()
		}
		var err error
		s.Decoded, err = decodeAll(paths, req, places, dropSlots)
		return s, err
	}
	switch {
	case invs != nil:
		return s, refuseTrace(paths, invs.Where(), firstTrace)
	case len(flagRanks) > 0:
		return s, usage(fmt.Errorf("%s: --rank goes with captures: a JSON trace states its ranks", paths[firstTrace]))
	case layoutGiven:
		return s, usage(fmt.Errorf("%s: --cube-slots and the capacity flags go with captures: a JSON trace states its layout", paths[firstTrace]))
	}
	var capPaths []string
	for i, p := range paths {
		if !ins[i].IsTrace {
			capPaths = append(capPaths, p)
		}
	}
	var capRanks []uint32
	var capFrom []From
	if len(capPaths) > 0 {
		var err error
		if capRanks, capFrom, err = captureRanks(capPaths, nil); err != nil {
			return s, usage(err)
		}
	}
	// Until every source is in order, close() releases the captures.
	capDecoded, err := decodeAll(capPaths, req, nil, false)
	s.Decoded = capDecoded
	if err != nil {
		return s, err
	}
	var ordered []*decode.Decoded
	window := false
	k := 0
	for i, p := range paths {
		if !ins[i].IsTrace {
			s.paths = append(s.paths, p)
			s.Traces = append(s.Traces, nil)
			s.Ranks, s.RankFrom = append(s.Ranks, capRanks[k]), append(s.RankFrom, capFrom[k])
			s.Invocations = append(s.Invocations, nil)
			s.KernelNames = append(s.KernelNames, "")
			ordered = append(ordered, capDecoded[k])
			k++
			continue
		}
		if err := ins[i].read(); err != nil {
			return s, err
		}
		s.opened = append(s.opened, ins[i])
		for _, src := range ins[i].Sources() {
			d, err := src.Decode()
			if err != nil {
				return s, classify(err)
			}
			s.paths = append(s.paths, p)
			s.Traces = append(s.Traces, src)
			s.Ranks, s.RankFrom = append(s.Ranks, src.Rank), append(s.RankFrom, FromTrace)
			s.Invocations = append(s.Invocations, src.Invocation)
			// The trace's kernelName is where a kernel family is chosen
			// from, as a manifest's kernel_name is.
			s.KernelNames = append(s.KernelNames, src.KernelName)
			ordered = append(ordered, d)
			window = window || src.Invocation != nil
		}
	}
	s.Decoded = ordered
	if !window {
		s.Invocations = nil
	}
	return s, s.checkUnique()
}

// checkUnique refuses two sources of one rank (and invocation).
func (s *Sources) checkUnique() error {
	type key struct {
		rank uint32
		inv  int64
	}
	seen := map[key]int{}
	for i, r := range s.Ranks {
		k := key{rank: r, inv: -1}
		if s.Invocations != nil {
			if s.Invocations[i] == nil {
				return usage(fmt.Errorf("%s is not an invocation of a window and %s is: give every capture its invocation, or none", s.Name(i), s.Name(firstInvocation(s.Invocations))))
			}
			k.inv = s.Invocations[i].ID
		}
		if j, dup := seen[k]; dup {
			what := fmt.Sprintf("rank %d", r)
			if k.inv >= 0 {
				what = fmt.Sprintf("invocation %d of rank %d", k.inv, r)
			}
			return usage(fmt.Errorf("%s and %s are both %s", s.Name(j), s.Name(i), what))
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

// Name labels source i in messages.
func (s *Sources) Name(i int) string {
	if s.Traces[i] != nil {
		return s.Traces[i].Name
	}
	return s.paths[i]
}

// Notes are what source i's trace could not carry (none for a capture).
func (s *Sources) Notes(i int) []string {
	if s.Traces[i] == nil {
		return nil
	}
	return s.Traces[i].Notes
}

// Warnings are what of source i's trace was not taken as it stands (a
// name cut, a rank, invocation or core missing), and for any source the
// cores far outside the launch (decode.Decoded.Stale).
func (s *Sources) Warnings(i int) []string {
	var w []string
	if s.Traces[i] != nil {
		w = s.Traces[i].Warnings
	}
	if d := s.Decoded[i]; d != nil && len(d.Stale) > 0 {
		// A core far outside the launch (an earlier launch's slot)
		// stretches the makespan: said wherever the capture is read.
		w = slices.Clone(w)
		for _, st := range d.Stale {
			w = append(w, st.Message())
		}
	}
	return w
}

// Names returns the Names source i is named with: the Names file's when
// given, else its trace's.
func (s *Sources) Names(i int, file *kernelnames.Names) *kernelnames.Names {
	if file != nil || s.Traces[i] == nil {
		return file
	}
	return s.Traces[i].Names
}

// Frequency returns source i's system-counter Frequency and SoC name: its
// trace's, unless --soc or --freq-mhz was given (then mhz and soc, which
// the flags resolved to).
func (s *Sources) Frequency(i int, flagsGiven bool, mhz float64, soc string) (float64, string) {
	t := s.Traces[i]
	if flagsGiven || t == nil || t.FrequencyMHz == 0 {
		return mhz, soc
	}
	if t.SoCName != "" {
		soc = t.SoCName
	}
	return t.FrequencyMHz, soc
}

// Check validates source i as validate does a capture file.
func (s *Sources) Check(i int, o validate.Options) (*validate.Result, error) {
	if s.Traces[i] != nil {
		return s.Traces[i].Validate(o)
	}
	return validate.CheckFile(s.paths[i], o)
}
