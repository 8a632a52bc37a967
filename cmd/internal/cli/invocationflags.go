package cli

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/input"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// InvocationFlags say which captures are invocations of a window (several
// kernel launches per rank): --invocation-manifest, or --step/--direction
// once per capture. decode uses them all, analyze all but the layout in
// time (--invocation-gap-us, --absolute-time); validate takes the
// captures, and checks the labels as decode does.
type InvocationFlags struct {
	Manifest   string
	steps      []int64
	directions []string
	GapUs      float64
	Absolute   bool
}

// Labelled says a flag labels the captures: --invocation-manifest,
// --step or --direction (which a JSON trace, stating its own, refuses).
func (f *InvocationFlags) Labelled() bool {
	return f.Manifest != "" || len(f.steps) > 0 || len(f.directions) > 0
}

// registerManifest adds --invocation-manifest only.
func (f *InvocationFlags) registerManifest(fs *pflag.FlagSet) {
	fs.Var((*FileName)(&f.Manifest), "invocation-manifest", "YAML/JSON list of {capture, rank, invocation_id, step, direction, kernel_name}, capture paths relative to it; instead of CAPTURE arguments")
}

// RegisterLabels adds --invocation-manifest, --step and --direction
// (analyze, report, validate).
func (f *InvocationFlags) RegisterLabels(fs *pflag.FlagSet) {
	f.registerManifest(fs)
	fs.Int64SliceVar(&f.steps, "step", nil, "training step of each capture, repeated in order: makes the captures invocations of a window")
	fs.StringSliceVar(&f.directions, "direction", nil, "forward or backward, for each capture, repeated in order or comma-separated (as --step): makes the captures invocations of a window")
	// pflag prints "(default [])" after an empty int64 list.
	fs.Lookup("step").DefValue = ""
}

// FileName is a flag naming a file: an empty name is refused when the
// flag is parsed (--invocation-manifest "" would otherwise read as "no
// manifest", and a command with no capture would succeed saying nothing).
type FileName string

func (n *FileName) String() string { return string(*n) }
func (n *FileName) Type() string   { return "string" }
func (n *FileName) Set(s string) error {
	if s == "" {
		return errors.New("needs a file name")
	}
	*n = FileName(s)
	return nil
}

// Register adds every invocation flag (decode).
func (f *InvocationFlags) Register(fs *pflag.FlagSet) {
	f.RegisterLabels(fs)
	fs.Float64Var(&f.GapUs, "invocation-gap-us", 0, "lay the invocations of a rank end to end, this many microseconds apart, instead of at their real times")
	fs.BoolVar(&f.Absolute, "absolute-time", false, "time events from system-counter cycle 0 (shared by a device's invocations) instead of the first core entry (each capture's, or a rank's earliest invocation's)")
}

// window is the window the flags say.
func (f *InvocationFlags) window() input.Window {
	return input.Window{Manifest: f.Manifest, Steps: f.steps, Directions: f.directions}
}

// Captures returns the capture paths: the manifest's (checked as decode
// checks it: one capture per invocation id of a rank), or the arguments,
// whose --step and --direction are checked as decode checks them.
// Exactly one of the two must give some. places names where each capture
// was given in the manifest (nil for arguments): see
// input.InvocationSet.Where.
func (f *InvocationFlags) Captures(args []string) (paths, places []string, err error) {
	if !f.Labelled() {
		return args, nil, nil
	}
	// A missing capture is validate's to report, with the others.
	s, err := f.window().Resolve(args, nil, false)
	if err != nil {
		return nil, nil, err
	}
	return s.Captures(), s.Where(), nil
}

// Resolve returns the window's invocations, or nil when the captures are
// plain (one per rank, as before). flagRanks is --rank.
func (f *InvocationFlags) Resolve(args []string, flagRanks []uint) (*input.InvocationSet, error) {
	return f.window().Resolve(args, flagRanks, true)
}

// invocationLabel is an invocation as analyze reports it; kernelName is
// the manifest's or trace's kernel name ("" when neither gives one).
func invocationLabel(inv *render.Invocation, kernelName string) *analyze.Invocation {
	v := &analyze.Invocation{ID: inv.ID, Step: inv.Step, KernelName: kernelName}
	if inv.Direction != "" {
		v.Direction = &inv.Direction
	}
	return v
}

// CapturesOrManifest is the Args check of the commands that read captures:
// at least one CAPTURE, unless --invocation-manifest names them.
func CapturesOrManifest(cmd *cobra.Command, args []string) error {
	if len(args) == 0 && !cmd.Flags().Changed("invocation-manifest") {
		return Usage(fmt.Errorf("%s needs at least one CAPTURE", cmd.Name()))
	}
	return nil
}
