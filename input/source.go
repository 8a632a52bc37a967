package input

import (
	"slices"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/validate"
)

// Source is one capture a command reads, a capture file or one capture
// (a rank, or an invocation of a window) of a MegaKernel JSON trace, once
// Load read it: its records decoded under its layout, and every
// interpretation of it with where each came from. Each interpretation is
// decided once, in this package (docs/development.md names the function
// that decides each); a command reads them here and decides none again.
type Source struct {
	// Path is the file the source came from; Trace is its trace's
	// capture, nil for a capture file.
	Path  string
	Trace *jsontrace.Source
	// Decoded is the source once decode ran; LayoutFrom is where its
	// layout came from: FromFlag (the layout flags), FromHeaders (the
	// capture's own), FromPlan (--plan's host plan) or FromTrace
	// (Decoded.Layout.How says it in words).
	Decoded    *decode.Decoded
	LayoutFrom From
	// Rank is its rank, RankFrom where it came from: FromFlag (--rank),
	// FromManifest, FromTrace, FromFileName, or FromDefault (0); Rank
	// decides it.
	Rank     uint32
	RankFrom From
	// Invocation is its invocation of a window, nil when the sources are
	// no window.
	Invocation *render.Invocation
	// OwnKernel is the kernel name the data states (a window manifest's
	// kernel_name, a trace's kernelName), "" where the command's own
	// applies; Kernel is the kernel name it is read as, KernelFrom where
	// that came from: FromFlag, FromTrace, FromManifest or FromDefault
	// (FamilyOptions.KernelFor).
	OwnKernel  string
	Kernel     string
	KernelFrom From
	// Family is the kernel family its ids are read under, FamilyFrom
	// where it came from (FromFlag: --kernel-family; FromTrace: the
	// trace's kernelFamily; FromKernelName; FromData, inferred from its
	// ids and a trace's names; FromDefault: none chose one, the schema's
	// own tables apply), and FamilyEvidence what chose it ("kernel name
	// \"MegaMoe\"", "stage ids ..."; "" for FromFlag and FromDefault)
	// (FamilyOptions.Choose).
	Family         abi.Family
	FamilyFrom     From
	FamilyEvidence string
	// Names name its stages (under its family); NamesFrom is where they
	// came from: FromFlag (--names), FromTrace, or FromDefault (the
	// schema's) (namesOf).
	Names     *kernelnames.Names
	NamesFrom From
	// Deps are its dependencies under the schedule (nil without one).
	Deps *flows.Dependencies
	// FrequencyMHz is its system-counter frequency and SoC its SoC's
	// name, FrequencyFrom where they came from: FromFlag (--soc or
	// --freq-mhz), FromTrace (the trace states it), FromEvents (the
	// trace's events imply it) or FromSoC (--soc's default)
	// (sourceFrequency).
	FrequencyMHz  float64
	SoC           string
	FrequencyFrom From
	// DeviceID is its device id, DeviceFrom where it came from: FromFlag
	// (--device-id), FromTrace, or FromDefault (the rank) (deviceID).
	DeviceID   uint32
	DeviceFrom From
	// OwnerLabel prefixes an owner id in detailed names, OwnerLabelFrom
	// where it came from: FromFlag (--owner-label), FromTrace,
	// FromFamily (the kernel family's), or FromDefault (--owner-label's
	// default) (ownerLabel).
	OwnerLabel     string
	OwnerLabelFrom From
	// DetailedNames says events are named with owner and task number,
	// DetailedNamesFrom where that came from: FromFlag
	// (--detailed-names), FromTrace or FromDefault (detailedNames).
	DetailedNames     bool
	DetailedNamesFrom From
	// WindowIndex is the index a window trace states (0 for none).
	WindowIndex int64
	// ownFamilyFrom is what chose the family a trace states (its
	// kernelFamilyFrom; FamilyStated).
	ownFamilyFrom string
}

// Name labels the source in messages.
func (s *Source) Name() string {
	if s.Trace != nil {
		return s.Trace.Name
	}
	return s.Path
}

// Notes are what the source's trace could not carry (none for a capture).
func (s *Source) Notes() []string {
	if s.Trace == nil {
		return nil
	}
	return s.Trace.Notes
}

// Warnings are what of the source's trace was not taken as it stands (a
// name cut, a rank, invocation or core missing), and for any source the
// cores far outside the launch (decode.Decoded.Stale).
func (s *Source) Warnings() []string {
	var w []string
	if s.Trace != nil {
		w = s.Trace.Warnings
	}
	if d := s.Decoded; d != nil && len(d.Stale) > 0 {
		// A core far outside the launch (an earlier launch's slot)
		// stretches the makespan: said wherever the capture is read.
		w = slices.Clone(w)
		for _, st := range d.Stale {
			w = append(w, st.Message())
		}
	}
	return w
}

// Check validates the source as validate does a capture file.
func (s *Source) Check(o validate.Options) (*validate.Result, error) {
	if s.Trace != nil {
		return s.Trace.Validate(o)
	}
	return validate.CheckFile(s.Path, o)
}

// FamilyStated is what a trace decode writes of the source's kernel
// family (its megaKernelCycleTrace kernelFamily and kernelFamilyFrom):
// the family's name ("none" for the schema's own tables) and what chose
// it, in words. A trace read back is read under it (Choose).
func (s *Source) FamilyStated() (name, from string) {
	name = FamilyNone
	if s.Family != abi.FamilyNone {
		name = s.Family.String()
	}
	switch s.FamilyFrom {
	case FromFlag:
		from = "--kernel-family"
	case FromTrace:
		from = s.ownFamilyFrom
		if from == "" {
			from = "the trace's kernelFamily"
		}
	case FromDefault:
		from = "nothing chose one: the schema's own tables"
	default:
		from = s.FamilyEvidence
	}
	return name, from
}
