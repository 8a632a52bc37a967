package input

import (
	"io"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
	// Warn is where the notes and warnings of loading go (a family
	// inferred, a --kernel-name applied over the data's), a line each
	// beginning "note: " or "warning: ": the command's standard error,
	// which puts the running program's name before each line.
	Warn io.Writer
	// DropSlots drops each of several captures' slots once decoded
	// (LoadSources).
	DropSlots bool
}

// Loaded are a command's inputs once loaded: the sources (captures, and
// captures read back from traces), and each source's interpretations with
// where each came from.
type Loaded struct {
	*Sources
	// ownFamilyFrom[i] is what chose the family a trace states for
	// source i (its kernelFamilyFrom; FamilyStated).
	ownFamilyFrom []string
	// LayoutFrom[i] is where source i's layout came from: FromFlag (the
	// layout flags), FromHeaders (the capture's own), FromPlan (--plan's
	// host plan) or FromTrace; Decoded[i].Layout.How says it in words.
	LayoutFrom []From
	// Kernels[i] is source i's kernel name and KernelFrom where it came
	// from: FromFlag, FromTrace, FromManifest or FromDefault.
	Kernels    []string
	KernelFrom []From
	// Families[i] is the kernel family source i's ids are read under,
	// FamilyFrom where it came from (FromFlag: --kernel-family;
	// FromKernelName; FromData, inferred from its ids and a trace's names;
	// FromDefault: none chose one, the schema's own tables apply), and
	// FamilyEvidence what chose it ("kernel name \"MegaMoe\"", "stage ids
	// ..."; "" for FromFlag and FromDefault).
	Families       []abi.Family
	FamilyFrom     []From
	FamilyEvidence []string
	// Names[i] names source i's stages (under its family); NamesFrom[i]
	// is where the names came from: FromFlag (--names), FromTrace, or
	// FromDefault (the schema's).
	Names     []*kernelnames.Names
	NamesFrom []From
	// Deps[i] are source i's dependencies under the schedule (nil
	// without one); ScheduleFrom is FromFlag when --plan gave one, ""
	// when none did.
	Deps         []*flows.Dependencies
	ScheduleFrom From
	// the frequency the flags (or the SoC's default) resolved to
	mhz            float64
	soc            string
	frequencyGiven bool
}

// Frequency returns source i's system-counter frequency and SoC name, and
// where they came from: a trace's own unless --soc or --freq-mhz was
// given (FromTrace where it states one, FromEvents where its events
// imply it), else the flags' (FromFlag) or --soc's default (FromSoC).
func (l *Loaded) Frequency(i int) (float64, string, From) {
	mhz, soc := l.Sources.Frequency(i, l.frequencyGiven, l.mhz, l.soc)
	switch t := l.Traces[i]; {
	case t != nil && !l.frequencyGiven && t.FrequencyMHz != 0 && t.FromEvents:
		return mhz, soc, FromEvents
	case t != nil && !l.frequencyGiven && t.FrequencyMHz != 0:
		return mhz, soc, FromTrace
	case l.frequencyGiven:
		return mhz, soc, FromFlag
	}
	return mhz, soc, FromSoC
}

// Load reads a command's inputs under o: the frequency the flags give,
// the names file, every source (LoadSources), then each source's kernel
// name and family (FamilyOptions.KernelFor and Choose), its
// names, and its dependencies under the schedule. The returned Loaded is
// never nil: close its Sources when done, whatever the error. Errors
// carry their exit code (Usage, Invalid).
func Load(o Options) (*Loaded, error) {
	l := &Loaded{Sources: &Sources{}}
	if o.Warn == nil {
		o.Warn = io.Discard
	}
	if o.Family == nil {
		o.Family = &FamilyOptions{}
	}
	var err error
	l.mhz, l.soc, err = Frequency(o.SoC, o.SoCGiven, o.FreqMHz, o.FreqGiven)
	if err != nil {
		return l, usage(err)
	}
	l.frequencyGiven = o.SoCGiven || o.FreqGiven
	if err := o.Family.Check(); err != nil {
		return l, usage(err)
	}
	names, err := LoadNames(o.NamesFile)
	if err != nil {
		return l, err
	}
	l.Sources, err = LoadSources(o.Paths, o.Ranks, o.Window, o.Request, o.LayoutGiven, o.DropSlots)
	if err != nil {
		return l, err
	}
	if !l.frequencyGiven {
		// A trace stating no frequency whose events give none that
		// holds: --freq-mhz or --soc reads it.
		for _, t := range l.Traces {
			if t != nil && t.FreqErr != nil {
				return l, invalid(t.FreqErr)
			}
		}
	}
	n := len(l.Decoded)
	l.LayoutFrom = make([]From, n)
	l.Kernels, l.KernelFrom = make([]string, n), make([]From, n)
	l.Families, l.FamilyFrom, l.FamilyEvidence = make([]abi.Family, n), make([]From, n), make([]string, n)
	l.Names, l.NamesFrom = make([]*kernelnames.Names, n), make([]From, n)
	l.ownFamilyFrom = make([]string, n)
	if o.Schedule != nil {
		l.ScheduleFrom = FromFlag
	}
	for i := range l.Decoded {
		l.LayoutFrom[i] = l.layoutFrom(i)
		l.NamesFrom[i] = FromDefault
		switch {
		case names != nil:
			l.NamesFrom[i] = FromFlag
		case l.Traces[i] != nil && l.Traces[i].Names != nil:
			l.NamesFrom[i] = FromTrace
		}
		// --kernel-name when given (Choose says where it differs from
		// the data's own), else a manifest's kernel_name or a trace's
		// kernelName, else --kernel-name's default; the family is
		// --kernel-family's, else the kernel name's, else inferred from
		// the records (FamilyOptions.Choose).
		own := FromManifest
		if l.Traces[i] != nil {
			own = FromTrace
		}
		l.Kernels[i], l.KernelFrom[i] = o.Family.KernelFor(l.KernelNames[i], own)
		var ownFamily, ownFrom string
		if t := l.Traces[i]; t != nil {
			ownFamily, ownFrom = t.KernelFamily, t.KernelFamilyFrom
			l.ownFamilyFrom[i] = ownFrom
		}
		c, err := o.Family.Choose(o.Warn, l.Name(i), l.KernelNames[i], ownFamily, ownFrom, l.Decoded[i], l.Sources.Names(i, names))
		if err != nil {
			return l, classify(err)
		}
		l.Families[i], l.FamilyFrom[i], l.FamilyEvidence[i], l.Names[i] = c.Family, c.From, c.Evidence, c.Names
	}
	l.Deps, err = DependenciesAll(l.Decoded, o.Schedule, l.Names)
	return l, err
}

// layoutFrom is where source i's layout came from (capture.Resolved's
// Source, or the trace that states it).
func (l *Loaded) layoutFrom(i int) From {
	if l.Traces[i] != nil {
		return FromTrace
	}
	switch l.Decoded[i].Layout.Source {
	case capture.FromHost:
		return FromFlag
	case capture.FromPlan:
		return FromPlan
	}
	return FromHeaders
}
