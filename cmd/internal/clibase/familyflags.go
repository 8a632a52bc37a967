package clibase

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/spf13/pflag"
)

// FamilyFlags are the flags that choose the kernel family a capture's ids
// are read under (task types >= 107 and kernel-specific stage ids mean
// different things per family); every command that names or classifies
// records shares them. --kernel-family wins; else the kernel name picks
// the family whose kernel names include it (abi.FamilyForKernel); else
// there is none and the schema's own tables apply.
type FamilyFlags struct {
	KernelName string
	Family     string
}

// familyNone is the --kernel-family value that asks for no family.
const familyNone = "none"

// Register adds --kernel-name (with the command's default and what else it
// does, "" for nothing) and --kernel-family.
func (f *FamilyFlags) Register(fs *pflag.FlagSet, defaultName, also string) {
	usage := "kernel name: one of a kernel family's (" + kernelNameList() + "; case and '_' ignored) chooses that family"
	if also != "" {
		usage = also + "; " + strings.TrimPrefix(usage, "kernel name: ")
	}
	fs.StringVar(&f.KernelName, "kernel-name", defaultName, usage)
	fs.StringVar(&f.Family, "kernel-family", "", "kernel family whose task types and stage ids the captures hold, overriding --kernel-name's: "+
		familyList()+", or "+familyNone+" for the schema's own table")
}

// Resolve returns the family for a capture whose own kernel name is
// kernelName (an invocation manifest entry's kernel_name, or a JSON
// trace's kernelName), which wins over --kernel-name's; "" for none. An
// unknown --kernel-family is an error listing the families.
func (f *FamilyFlags) Resolve(kernelName string) (abi.Family, error) {
	if f.Family != "" {
		if strings.EqualFold(strings.TrimSpace(f.Family), familyNone) {
			return abi.FamilyNone, nil
		}
		fam, ok := abi.FamilyByName(f.Family)
		if !ok {
			return abi.FamilyNone, fmt.Errorf("--kernel-family %q: no such family; the families are %s, or %s", f.Family, familyList(), familyNone)
		}
		return fam, nil
	}
	if kernelName == "" {
		kernelName = f.KernelName
	}
	fam, _ := abi.FamilyForKernel(kernelName)
	return fam, nil
}

// Kernel returns the Kernel name source i of src is read and named under:
// its own (a JSON trace's kernelName, an invocation manifest entry's
// kernel_name) when it has one, else --Kernel-name's. A --Kernel-name
// given on the command line (given) that differs from a source's own is
// refused, naming both: it is never silently dropped.
func (f *FamilyFlags) Kernel(given bool, src *Sources, i int) (string, error) {
	own := src.KernelNames[i]
	if own == "" {
		return f.KernelName, nil
	}
	if given && f.KernelName != own {
		from := "its invocation manifest entry's kernel_name"
		if src.Traces[i] != nil {
			from = "the trace's kernelName"
		}
		return "", fmt.Errorf("--kernel-name %s: %s is named %q by %s; give no --kernel-name to keep it, or --kernel-family to read its ids under another family", f.KernelName, src.Name(i), own, from)
	}
	return own, nil
}

// Check reports an unknown --kernel-family before any capture is read.
func (f *FamilyFlags) Check() error {
	_, err := f.Resolve("")
	return err
}

// familyList is "MegaMoe, MegaMoeGrad, ...".
func familyList() string {
	var names []string
	for _, fam := range abi.Families() {
		names = append(names, fam.String())
	}
	return strings.Join(names, ", ")
}

// kernelNameList is "MegaMoe, MegaMoeGrad, ...": every kernel name that
// chooses a family.
func kernelNameList() string {
	var names []string
	for _, fam := range abi.Families() {
		names = append(names, fam.KernelNames()...)
	}
	return strings.Join(names, ", ")
}
