package input

import (
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/plan"
)

// From says where an interpretation of a source came from: its
// provenance, for a message to name.
type From string

// Where an interpretation comes from.
const (
	FromFlag     From = "flag"     // the command line said it
	FromTrace    From = "trace"    // a JSON trace's megaKernelCycleTrace (or events) stated it
	FromManifest From = "manifest" // an invocation manifest entry stated it
	FromSoC      From = "SoC"      // the SoC's table (--soc, or its default)
	FromDefault  From = "default"  // nothing said it: the flag's default
	// FromData is an interpretation inferred from the capture's own
	// records (a kernel family from its stage ids: Loaded.FamilyEvidence
	// says what it was inferred from).
	FromData From = "inferred from the data"
	// FromHeaders is a layout the capture states: found from its
	// headers (and, for a last region whose headers are all zero, its size).
	FromHeaders From = "headers"
	// FromPlan is a layout the host plan of --plan gives, where the
	// capture states none.
	FromPlan From = "plan"
	// FromKernelName is a kernel family the kernel name chose (KernelFrom
	// says where the kernel name came from).
	FromKernelName From = "kernel name"
	// FromEvents is a frequency worked out from a trace's events, their
	// cycles over their µs, where the trace states none (upstream's
	// window export).
	FromEvents From = "the events' cycles over µs"
	// FromFileName is a rank read from a capture's file name ("rank3.bin").
	FromFileName From = "file name"
	// FromFamily is an owner label the kernel family gives (Expert for
	// MegaMoe).
	FromFamily From = "kernel family"
)

// Options are how a command reads its inputs: what its flags said (the
// command line's flag groups, which every command that reads captures
// shares, fill them).
type Options struct {
	// Paths are the inputs, or Window (when not nil) the invocations of a
	// window, whose captures and ranks it gives.
	Paths  []string
	Window *InvocationSet
	// Request is the layout the layout flags ask for (capture.Request);
	// LayoutGiven says a layout flag was set (a trace states its own).
	Request     capture.Request
	LayoutGiven bool
	// Schedule, when not nil, is the schedule the dependencies come from.
	Schedule *plan.Schedule
	// Ranks is --rank.
	Ranks []uint
	// SoC and FreqMHz are --soc and --freq-mhz; SoCGiven and FreqGiven
	// say which was set.
	SoC       string
	FreqMHz   float64
	SoCGiven  bool
	FreqGiven bool
	// NamesFile is --names ("" for none).
	NamesFile string
	// Family is the --kernel-name and --kernel-family options (nil for
	// neither).
	Family *FamilyOptions
	// DeviceIDs is --device-id (nil when not given); OwnerLabel and
	// DetailedNames are --owner-label and --detailed-names (their
	// defaults when not given), OwnerLabelGiven and DetailedNamesGiven
	// say which was set (decode's flags; the trace a source came from
	// states its own otherwise).
	DeviceIDs          []uint
	OwnerLabel         string
	OwnerLabelGiven    bool
	DetailedNames      bool
	DetailedNamesGiven bool
	// DropSlots drops each of several captures' slots once decoded
	// (decodeAll).
	DropSlots bool
}

// Loaded are a command's inputs once loaded: the sources (captures, and
// captures read back from traces), each with its interpretations and
// where each came from.
type Loaded struct {
	Sources []*Source
	// Findings are the notes and warnings loading drew, in the order
	// drawn, each said once per run (FamilyOptions keeps what it said):
	// the command writes them, whatever the error. Each source's own are
	// its Notes and Warnings.
	Findings []Finding
	// ScheduleFrom is FromFlag when --plan gave a schedule, "" when none
	// did.
	ScheduleFrom From
	// opened are the traces read, whose scratch files Close removes.
	opened []*Input
}

// Close releases the captures and the traces' scratch files.
func (l *Loaded) Close() {
	for _, s := range l.Sources {
		if s.Decoded != nil {
			s.Decoded.Capture.Close()
		}
	}
	for _, in := range l.opened {
		in.Close()
	}
}

// Load reads a command's inputs under o: the frequency the flags give,
// the names file, every source (loadSources), then each source's
// frequency (sourceFrequency), kernel name and family
// (FamilyOptions.KernelFor and Choose), its names (namesOf), its
// dependencies under the schedule, its device id (deviceID), owner label
// (ownerLabel) and detailed names (detailedNames): each decided here,
// once, for the commands to read. The returned Loaded is never nil:
// close it when done, whatever the error. Errors carry their exit code
// (Usage, Invalid).
func Load(o Options) (*Loaded, error) {
	l := &Loaded{}
	if o.Family == nil {
		o.Family = &FamilyOptions{}
	}
	var freq flagFrequency
	var err error
	freq.mhz, freq.soc, err = Frequency(o.SoC, o.SoCGiven, o.FreqMHz, o.FreqGiven)
	if err != nil {
		return l, usage(err)
	}
	freq.given = o.SoCGiven || o.FreqGiven
	if err := o.Family.Check(); err != nil {
		return l, usage(err)
	}
	file, err := LoadNames(o.NamesFile)
	if err != nil {
		return l, err
	}
	if err := l.loadSources(o); err != nil {
		return l, err
	}
	if !freq.given {
		// A trace stating no frequency whose events give none that
		// holds: --freq-mhz or --soc reads it.
		for _, s := range l.Sources {
			if s.Trace != nil && s.Trace.FreqErr != nil {
				return l, invalid(s.Trace.FreqErr)
			}
		}
	}
	if o.Schedule != nil {
		l.ScheduleFrom = FromFlag
	}
	for _, s := range l.Sources {
		s.LayoutFrom = layoutFrom(s)
		s.FrequencyMHz, s.SoC, s.FrequencyFrom = sourceFrequency(s.Trace, freq)
		var names *kernelnames.Names
		names, s.NamesFrom = namesOf(file, s.Trace)
		// --kernel-name when given (Choose says where it differs from
		// the data's own), else a manifest's kernel_name or a trace's
		// kernelName, else --kernel-name's default; the family is
		// --kernel-family's, else the kernel name's, else inferred from
		// the records (FamilyOptions.Choose).
		own := FromManifest
		if s.Trace != nil {
			own = FromTrace
		}
		s.Kernel, s.KernelFrom = o.Family.KernelFor(s.OwnKernel, own)
		var ownFamily string
		if t := s.Trace; t != nil {
			ownFamily, s.ownFamilyFrom = t.KernelFamily, t.KernelFamilyFrom
		}
		c, err := o.Family.Choose(&l.Findings, s.Name(), s.OwnKernel, ownFamily, s.ownFamilyFrom, s.Decoded, names)
		if err != nil {
			return l, classify(err)
		}
		s.Family, s.FamilyFrom, s.FamilyEvidence, s.Names = c.Family, c.From, c.Evidence, c.Names
	}
	for _, s := range l.Sources {
		if s.Deps, err = dependencies(s.Decoded, o.Schedule, s.Names); err != nil {
			return l, err
		}
	}
	if len(o.DeviceIDs) > 0 && len(o.DeviceIDs) != len(l.Sources) {
		return l, usage(fmt.Errorf("%d --device-id values for %d captures: give one per capture, in order", len(o.DeviceIDs), len(l.Sources)))
	}
	for i, s := range l.Sources {
		if s.DeviceID, s.DeviceFrom, err = deviceID(flagAt(o.DeviceIDs, i), s.Trace, s.Rank); err != nil {
			return l, usage(err)
		}
		s.OwnerLabel, s.OwnerLabelFrom = ownerLabel(o, s.Trace, s.Family)
		s.DetailedNames, s.DetailedNamesFrom = detailedNames(o, s.Trace)
		if s.Trace != nil && s.Trace.WindowIndex != nil {
			s.WindowIndex = *s.Trace.WindowIndex
		}
	}
	return l, nil
}
