package input

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/kernelfamily"
)

// FamilyOptions choose the kernel family a capture's ids are read under
// (task types >= 107 and kernel-specific stage ids mean different things
// per family): --kernel-family wins; else the kernel name picks the
// family whose kernel names include it (abi.FamilyForKernel); else
// package kernelfamily infers it from the records (Choose), or there is
// none and the schema's own tables apply. The command line's FamilyFlags
// fill them.
type FamilyOptions struct {
	// KernelName is --kernel-name (its default when not given);
	// KernelNameGiven says the user gave it.
	KernelName      string
	KernelNameGiven bool
	// Family is --kernel-family ("" for none given).
	Family string
	// said keeps Choose's notes to once per run: keyed by what a note
	// says less the capture it is about.
	said map[string]bool
}

// say adds a note or warning to found once per run for its key.
func (f *FamilyOptions) say(found *[]Finding, key string, line Finding) {
	if f.said == nil {
		f.said = map[string]bool{}
	}
	if !f.said[key] {
		f.said[key] = true
		*found = append(*found, line)
	}
}

// FamilyNone is the --kernel-family value that asks for no family.
const FamilyNone = "none"

// Resolve returns the family --kernel-family names, else the one the
// kernel name kernelName chooses ("": --kernel-name's); no inference
// (dump and validate; Choose infers). An unknown --kernel-family is an
// error listing the families.
func (f *FamilyOptions) Resolve(kernelName string) (abi.Family, error) {
	if f.Family != "" {
		if strings.EqualFold(strings.TrimSpace(f.Family), FamilyNone) {
			return abi.FamilyNone, nil
		}
		fam, ok := abi.FamilyByName(f.Family)
		if !ok {
			return abi.FamilyNone, fmt.Errorf("--kernel-family %q: no such family; the families are %s, or %s", f.Family, FamilyList(), FamilyNone)
		}
		return fam, nil
	}
	if kernelName == "" {
		kernelName = f.KernelName
	}
	fam, _ := abi.FamilyForKernel(kernelName)
	return fam, nil
}

// Check reports an unknown --kernel-family before any capture is read.
func (f *FamilyOptions) Check() error {
	_, err := f.Resolve("")
	return err
}

// FamilyList is "MegaMoe, MegaMoeGrad, ...".
func FamilyList() string {
	var names []string
	for _, fam := range abi.Families() {
		names = append(names, fam.String())
	}
	return strings.Join(names, ", ")
}

// KernelNameList is "MegaMoe, MegaMoeGrad, ...": every kernel name that
// chooses a family.
func KernelNameList() string {
	var names []string
	for _, fam := range abi.Families() {
		names = append(names, fam.KernelNames()...)
	}
	return strings.Join(names, ", ")
}

// KernelFor returns the kernel name a capture whose own kernel name is
// own ("" for none: a JSON trace's kernelName, an invocation manifest
// entry's kernel_name) is named by, and where it came from: --kernel-name
// when the user gave it (KernelNameGiven; Choose says so where it differs
// from own: it is applied, never silently dropped), else own (from), else
// --kernel-name's default.
func (f *FamilyOptions) KernelFor(own string, from From) (string, From) {
	switch {
	case f.KernelNameGiven:
		return f.KernelName, FromFlag
	case own != "":
		return own, from
	}
	return f.KernelName, FromDefault
}

// Choice is the kernel family a capture is read under, where it came
// from (FromFlag, FromKernelName, FromData or FromDefault) and what chose
// it (kernelfamily's words: "kernel name \"MegaMoe\"", "stage ids ..."),
// with the names it is read with.
type Choice struct {
	Family   abi.Family
	From     From
	Evidence string
	Names    *kernelnames.Names
}

// Choose returns the family capture d (named what, whose own kernel name
// is own) is read under, and its names with the task stages its records
// give under that family where names has none. --kernel-family wins; else
// the kernel name (KernelFor) when a family's; else package kernelfamily
// infers it from the records and the names a trace gives them. What it
// was inferred from, a --kernel-name that overrides the data's or chooses
// no family, and data that needs a family it cannot pick are added to
// found (validate --strict refuses the last: Unnamed).
//
// A trace decode wrote states the family it was read under (ownFamily,
// "" for none stated, and what chose it, ownFrom): with no flag naming a
// family or a kernel name, the trace is read under it (FromTrace), held
// to its ids as a flag's family is, so that the trace read back gives the
// analysis its capture gave.
func (f *FamilyOptions) Choose(found *[]Finding, what, own, ownFamily, ownFrom string, d *decode.Decoded, names *kernelnames.Names) (Choice, error) {
	fam, err := f.Resolve("")
	c := Choice{Family: fam, From: FromFlag}
	if err != nil {
		c.Names = names.WithFamily(fam)
		return c, err
	}
	kernel, _ := f.KernelFor(own, FromTrace)
	if own != "" && kernel != own && abi.KernelKey(own) != abi.KernelKey(kernel) {
		// Once per run for each name it replaces, as the other notes: a
		// trace of 1,024 ranks said it 1,024 times.
		f.say(found, "applied over "+own, note("%s: --kernel-name %q applied over the data's kernel name %q", what, kernel, own))
	}
	if _, ok := abi.FamilyForKernel(kernel); !ok && f.Family == "" && f.KernelNameGiven {
		f.say(found, "kernel-name", note("--kernel-name %q chooses no kernel family (their kernel names: %s); the family is inferred from the records", kernel, KernelNameList()))
	}
	recs, err := kernelfamily.Scan(d)
	if err != nil {
		return c, err
	}
	stated := abi.FamilyNone
	useStated := false
	if f.Family == "" && !f.KernelNameGiven && ownFamily != "" {
		if strings.EqualFold(ownFamily, FamilyNone) {
			useStated = true
		} else if g, ok := abi.FamilyByName(ownFamily); ok {
			stated, useStated = g, true
		} else {
			f.say(found, "family "+ownFamily, warning("%s: the trace's kernelFamily %q is no family this build knows (%s, or %s): the family is chosen as for a trace that states none", what, ownFamily, FamilyList(), FamilyNone))
		}
	}
	if useStated {
		fam = stated
		c = Choice{Family: fam, From: FromTrace, Evidence: "the trace's kernelFamily"}
		if ownFrom != "" {
			c.Evidence += " (" + ownFrom + ")"
		}
		ev := kernelfamily.Evidence{DescIDs: recs.DescIDs}
		if names != nil {
			ev.StageNames = names.Stages
		}
		if msg := kernelfamily.Given(fam, "trace's kernelFamily", ev).Warning(what); msg != "" {
			f.say(found, msg, warning("%s", msg))
		}
		if len(fam.Stages()) == 0 {
			// As under the flag: no stage to name a task by.
			c.Names = names.WithFamily(fam)
			return c, nil
		}
	} else if f.Family != "" {
		// Named by the flag: said when the ids are not the family's,
		// as when a kernel name chose it.
		ev := kernelfamily.Evidence{DescIDs: recs.DescIDs}
		if names != nil {
			ev.StageNames = names.Stages
		}
		if msg := kernelfamily.Given(fam, "flag --kernel-family", ev).Warning(what); msg != "" {
			f.say(found, msg, warning("%s", msg))
		}
		if len(fam.Stages()) == 0 {
			// No stage to name a task by.
			c.Names = names.WithFamily(fam)
			return c, nil
		}
	} else {
		ev := kernelfamily.Evidence{KernelName: kernel, DescIDs: recs.DescIDs}
		if names != nil {
			ev.StageNames = names.Stages
		}
		dec := kernelfamily.Infer(ev)
		if msg := dec.Note(what); msg != "" {
			f.say(found, dec.Note(""), note("%s", msg))
		}
		if msg := dec.Warning(what); msg != "" {
			f.say(found, dec.Warning(""), warning("%s", msg))
		}
		c.Family, c.From, c.Evidence = dec.Family, familyFrom(kernel, dec), dec.From
	}
	c.Names = withTasks(names.WithFamily(c.Family), c.Family, recs)
	return c, nil
}

// familyFrom is where kernelfamily's decision dec came from: the kernel
// name kernel when it chooses a family, else the ids when they chose one,
// else nothing (the schema's own tables).
func familyFrom(kernel string, dec kernelfamily.Decision) From {
	if _, ok := abi.FamilyForKernel(kernel); ok {
		return FromKernelName
	}
	if dec.Family != abi.FamilyNone {
		return FromData
	}
	return FromDefault
}

// withTasks is names with the task stages recs give under fam for the
// tasks names does not name: a names file that names some tasks (or one
// not in the capture) leaves the others' stages to the records.
func withTasks(names *kernelnames.Names, fam abi.Family, recs *kernelfamily.Records) *kernelnames.Names {
	if names == nil {
		return names
	}
	tasks := recs.TaskStages(fam, names.StageName)
	if tasks == nil {
		return names
	}
	c := *names
	if names.Tasks.Len() == 0 {
		c.Tasks = kernelnames.TaskNamesOf(tasks)
		return &c
	}
	merged, added := names.Tasks.With(tasks)
	if !added {
		return names
	}
	c.Tasks = merged
	return &c
}

// Unnamed is validate --strict's check of the capture file at path, from
// the distinct desc ids validate's walk read (validate.Result.DescIDs):
// "" when a flag names its family, a kernel name chooses one, or its ids
// need none; else what its ids need, naming --kernel-family (validate
// checked them under no family). It reads nothing: the capture is walked
// once.
func (f *FamilyOptions) Unnamed(path string, ids []uint32) string {
	if f.Family != "" {
		return ""
	}
	if _, ok := abi.FamilyForKernel(f.KernelName); ok {
		return ""
	}
	dec := kernelfamily.Infer(kernelfamily.Evidence{DescIDs: ids})
	if dec.Family != abi.FamilyNone {
		return fmt.Sprintf("%s: its ids are kernel family %s's (inferred from %s), and validate read them under none: give --kernel-family %s", path, dec.Family, dec.From, dec.Family)
	}
	return dec.Warning(path)
}

// TraceFamily is the family validate reads a JSON trace's capture src
// under, and, when strict, what validate --strict refuses of it ("" for
// nothing), as Unnamed does of a capture file: --kernel-family wins; else
// the kernel name (KernelFor: --kernel-name when given, else the
// trace's) when a family's; else none, and with strict the ids (and the
// names the trace's events give them) are held to the families: ids of
// a family read under none, or needing one no flag picks, are refused.
func (f *FamilyOptions) TraceFamily(src *jsontrace.Source, strict bool) (abi.Family, string) {
	if f.Family != "" {
		fam, _ := f.Resolve("")
		return fam, ""
	}
	kernel, _ := f.KernelFor(src.KernelName, FromTrace)
	if fam, ok := abi.FamilyForKernel(kernel); ok {
		return fam, ""
	}
	if !strict {
		return abi.FamilyNone, ""
	}
	d, err := src.Decode()
	if err != nil {
		return abi.FamilyNone, ""
	}
	recs, err := kernelfamily.Scan(d)
	if err != nil {
		return abi.FamilyNone, ""
	}
	ev := kernelfamily.Evidence{DescIDs: recs.DescIDs}
	if src.Names != nil {
		ev.StageNames = src.Names.Stages
	}
	dec := kernelfamily.Infer(ev)
	if dec.Family != abi.FamilyNone {
		return abi.FamilyNone, fmt.Sprintf("%s: its ids are kernel family %s's (inferred from %s), and validate read them under none: give --kernel-family %s", src.Name, dec.Family, dec.From, dec.Family)
	}
	return abi.FamilyNone, dec.Warning(src.Name)
}
