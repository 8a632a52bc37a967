package cli

import (
	"strings"

	"github.com/megakernel/cycleabi/input"
	"github.com/spf13/pflag"
)

// FamilyFlags are --kernel-name and --kernel-family, which choose the
// kernel family a capture's ids are read under; every command that names
// or classifies records shares them. What they decide is
// input.FamilyOptions' (Resolve, KernelFor, Choose, Unnamed).
type FamilyFlags struct {
	input.FamilyOptions
	fs *pflag.FlagSet
}

// Register adds --kernel-name (with the command's default and what else it
// does, "" for nothing) and --kernel-family.
func (f *FamilyFlags) Register(fs *pflag.FlagSet, defaultName, also string) {
	usage := "kernel name: one of a kernel family's (" + input.KernelNameList() + "; case and '_' ignored) chooses that family"
	if also != "" {
		usage = also + "; " + strings.TrimPrefix(usage, "kernel name: ")
	}
	f.fs = fs
	fs.StringVar(&f.KernelName, "kernel-name", defaultName, usage)
	fs.StringVar(&f.Family, "kernel-family", "", "kernel family whose task types and stage ids the captures hold, overriding --kernel-name's: "+
		input.FamilyList()+", or "+input.FamilyNone+" for the schema's own table")
}

// Options returns the options the flags give, saying whether
// --kernel-name was set on the command line.
func (f *FamilyFlags) Options() *input.FamilyOptions {
	f.KernelNameGiven = f.fs != nil && f.fs.Changed("kernel-name")
	return &f.FamilyOptions
}
