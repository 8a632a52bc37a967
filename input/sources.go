package input

import (
	"errors"
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/sniff"
)

// Input is one path a command reads: a capture file, or a MegaKernel
// JSON trace (plain or gzip), told apart by content. Every command that
// reads captures opens its paths through OpenInput (Load through
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

// loadSources resolves o's paths (or its window, when not nil) into
// sources, reads the traces among them back into captures and decodes
// every capture under o.Request (traces under the layout they state),
// each with its rank (Rank) and invocation. The sources read so far are
// l's, for Close, whatever the error. o.DropSlots drops the active slots
// of each of several captures once decoded (see decodeAll).
func (l *Loaded) loadSources(o Options) error {
	paths, invs := o.Paths, o.Window
	if invs != nil {
		paths = invs.Captures()
	}
	ins := make([]*Input, len(paths))
	firstTrace := -1
	for i, p := range paths {
		var err error
		if ins[i], err = TellInput(p); err != nil {
			if w := invs.Where(); w != nil {
				// A manifest's entry: named by its line, as decode names
				// a capture it cannot read (a FIFO lost the prefix).
				return usage(fmt.Errorf("%s: %w", w[i], errors.Unwrap(err)))
			}
			return err
		}
		if ins[i].IsTrace && firstTrace < 0 {
			firstTrace = i
		}
	}
	if firstTrace < 0 {
		var places []string
		if invs != nil {
			places = invs.where()
			for i := range invs.Entries {
				e := &invs.Entries[i]
				l.Sources = append(l.Sources, &Source{Path: e.Capture, Rank: e.Rank, RankFrom: e.RankFrom, Invocation: &e.Invocation, OwnKernel: e.KernelName})
			}
		} else {
			var err error
			if l.Sources, err = captureSources(paths, o.Ranks); err != nil {
				return usage(err)
			}
		}
		return decodeAll(l.Sources, o.Request, places, o.DropSlots)
	}
	switch {
	case invs != nil:
		return refuseTrace(paths, invs.Where(), firstTrace)
	case len(o.Ranks) > 0:
		return usage(fmt.Errorf("%s: --rank goes with captures: a JSON trace states its ranks", paths[firstTrace]))
	case o.LayoutGiven:
		return usage(fmt.Errorf("%s: --cube-slots and the capacity flags go with captures: a JSON trace states its layout", paths[firstTrace]))
	}
	var capPaths []string
	for i, p := range paths {
		if !ins[i].IsTrace {
			capPaths = append(capPaths, p)
		}
	}
	caps, err := captureSources(capPaths, nil)
	if err != nil {
		return usage(err)
	}
	// Until every source is in order, Close releases the captures.
	l.Sources = caps
	if err := decodeAll(caps, o.Request, nil, false); err != nil {
		return err
	}
	var ordered []*Source
	for i, p := range paths {
		if !ins[i].IsTrace {
			ordered = append(ordered, caps[0])
			caps = caps[1:]
			continue
		}
		if err := ins[i].read(); err != nil {
			l.Sources = append(ordered, caps...)
			return err
		}
		l.opened = append(l.opened, ins[i])
		for _, src := range ins[i].Sources() {
			d, err := src.Decode()
			if err != nil {
				l.Sources = append(ordered, caps...)
				return classify(err)
			}
			// The trace's kernelName is where a kernel family is chosen
			// from, as a manifest's kernel_name is.
			s := &Source{Path: p, Trace: src, Decoded: d, Invocation: src.Invocation, OwnKernel: src.KernelName}
			s.Rank, s.RankFrom, _ = Rank(nil, &src.Rank, FromTrace, p, true)
			ordered = append(ordered, s)
		}
	}
	l.Sources = ordered
	return checkUnique(l.Sources)
}

// checkUnique refuses two sources of one rank (and invocation), and a
// window some of whose sources are no invocation of it.
func checkUnique(srcs []*Source) error {
	window := slices.IndexFunc(srcs, func(s *Source) bool { return s.Invocation != nil })
	seen := rankSet{}
	for i, s := range srcs {
		k := rankKey{rank: s.Rank, inv: -1}
		if window >= 0 {
			if s.Invocation == nil {
				return usage(fmt.Errorf("%s is not an invocation of a window and %s is: give every capture its invocation, or none", s.Name(), srcs[window].Name()))
			}
			k.inv = s.Invocation.ID
		}
		if j, dup := seen.add(k, i); dup {
			what := fmt.Sprintf("rank %d", k.rank)
			if k.inv >= 0 {
				what = fmt.Sprintf("invocation %d of rank %d", k.inv, k.rank)
			}
			return usage(fmt.Errorf("%s and %s are both %s", srcs[j].Name(), s.Name(), what))
		}
	}
	return nil
}
