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
	// records (a kernel family from its stage ids: FamilyOptions.Choose says
	// what it was inferred from).
	FromData From = "inferred from the data"
)

// Options are how a command reads its inputs: what its flags said (the
// command line's flag groups, which every command that reads captures
// shares, fill them).
type Options struct {
	// Paths are the inputs, or Window (when not nil) the invocations of a
	// window, whose captures and ranks it gives.
	Paths  []string
	Window *InvocationSet
	// Request is the layout the flags ask for (LayoutFlags.Request);
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
	// inferred, a --kernel-name applied over the data's): the command's
	// standard error.
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
	// Kernels[i] is source i's kernel name and KernelFrom where it came
	// from; Families[i] the kernel family its ids are read under.
	Kernels    []string
	KernelFrom []From
	Families   []abi.Family
	// Names[i] names source i's stages (under its family).
	Names []*kernelnames.Names
	// Deps[i] are source i's dependencies under the schedule (nil
	// without one).
	Deps []*flows.Dependencies
	// the frequency the flags (or the SoC's default) resolved to
	mhz            float64
	soc            string
	frequencyGiven bool
}

// Frequency returns source i's system-counter frequency and SoC name, and
// where they came from: a trace's own unless --soc or --freq-mhz was
// given.
func (l *Loaded) Frequency(i int) (float64, string, From) {
	mhz, soc := l.Sources.Frequency(i, l.frequencyGiven, l.mhz, l.soc)
	switch {
	case l.Traces[i] != nil && !l.frequencyGiven && l.Traces[i].FrequencyMHz != 0:
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
	var names *kernelnames.Names
	if o.NamesFile != "" {
		if names, err = kernelnames.Load(o.NamesFile); err != nil {
			return l, usage(err)
		}
	}
	l.Sources, err = LoadSources(o.Paths, o.Ranks, o.Window, o.Request, o.LayoutGiven, o.DropSlots)
	if err != nil {
		return l, err
	}
	n := len(l.Decoded)
	l.Kernels, l.KernelFrom = make([]string, n), make([]From, n)
	l.Families, l.Names = make([]abi.Family, n), make([]*kernelnames.Names, n)
	for i := range l.Decoded {
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
		l.Families[i], l.Names[i], err = o.Family.Choose(o.Warn, l.Name(i), l.KernelNames[i], l.Decoded[i], l.Sources.Names(i, names))
		if err != nil {
			return l, classify(err)
		}
	}
	l.Deps, err = DependenciesAll(l.Decoded, o.Schedule, l.Names)
	return l, err
}
