package clibase

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/manifest"
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

// InvocationSet is the captures of a window and each one's invocation.
type InvocationSet struct {
	Captures    []string
	Ranks       []uint32
	Invocations []render.Invocation
	KernelNames []string // "" where the command's --kernel-name applies
	// Manifest and lines: the Manifest, and the line of each capture in it
	// (nil for captures given as arguments).
	Manifest string
	lines    []int
}

// where names the place each capture was given: "window.yaml:12" for a
// manifest's, nil for arguments.
func (s *InvocationSet) where() []string {
	if s.lines == nil {
		return nil
	}
	w := make([]string, len(s.lines))
	for i, l := range s.lines {
		w[i] = s.Manifest + ":" + strconv.Itoa(l)
	}
	return w
}

// Captures returns the capture paths: the manifest's (checked as decode
// checks it: one capture per invocation id of a rank), or the arguments,
// whose --step and --direction are checked as decode checks them.
// Exactly one of the two must give some.
// places names where each capture was given in the manifest (nil for
// arguments): see invocationSet.where.
func (f *InvocationFlags) Captures(args []string) (paths, places []string, err error) {
	if f.Manifest == "" && len(f.steps) == 0 && len(f.directions) == 0 {
		return args, nil, nil
	}
	// A missing capture is validate's to report, with the others.
	s, err := f.resolveSet(args, nil, false)
	if err != nil {
		return nil, nil, err
	}
	return s.Captures, s.where(), nil
}

// Resolve returns the window's invocations, or nil when the captures are
// plain (one per rank, as before). flagRanks is --rank.
func (f *InvocationFlags) Resolve(args []string, flagRanks []uint) (*InvocationSet, error) {
	return f.resolveSet(args, flagRanks, true)
}

// resolveSet is resolve; mustExist refuses a manifest's capture that is
// not there, naming the manifest's line.
func (f *InvocationFlags) resolveSet(args []string, flagRanks []uint, mustExist bool) (*InvocationSet, error) {
	if f.Manifest != "" {
		if len(args) > 0 {
			return nil, errors.New("give captures either as arguments or in --invocation-manifest, not both")
		}
		if len(f.steps) > 0 || len(f.directions) > 0 || len(flagRanks) > 0 {
			return nil, errors.New("--invocation-manifest gives each capture's rank, step and direction: --rank, --step and --direction go with capture arguments")
		}
		entries, err := manifest.Load(f.Manifest)
		if err != nil {
			return nil, err
		}
		s := &InvocationSet{Manifest: f.Manifest, lines: make([]int, 0, len(entries))}
		next := map[uint32]int64{}
		for _, e := range entries {
			// The likely mistake: a path relative to the working directory.
			if mustExist {
				if _, err := os.Stat(e.Capture); errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s:%d: capture %s not found (a relative capture path is relative to the manifest's folder)", f.Manifest, e.Line, e.Capture)
				}
			}
			rank := uint32(0)
			if e.Rank != nil {
				rank = *e.Rank
			} else if r, ok, err := RankFromName(e.Capture); err != nil {
				return nil, err
			} else if ok {
				rank = r
			}
			id := next[rank]
			if e.InvocationID != nil {
				id = *e.InvocationID
			}
			next[rank]++
			s.Captures = append(s.Captures, e.Capture)
			s.Ranks = append(s.Ranks, rank)
			s.Invocations = append(s.Invocations, render.Invocation{ID: id, Step: e.Step, Direction: e.Direction})
			s.KernelNames = append(s.KernelNames, e.KernelName)
			s.lines = append(s.lines, e.Line)
		}
		return s, s.checkIDs()
	}
	if len(f.steps) == 0 && len(f.directions) == 0 {
		return nil, nil
	}
	n := len(args)
	if len(f.steps) > 0 && len(f.steps) != n {
		return nil, fmt.Errorf("%d --step values for %d captures: give one per capture, in order", len(f.steps), n)
	}
	if len(f.directions) > 0 && len(f.directions) != n {
		return nil, fmt.Errorf("%d --direction values for %d captures: give one per capture, in order", len(f.directions), n)
	}
	if len(flagRanks) > 0 && len(flagRanks) != n {
		return nil, fmt.Errorf("%d --rank values for %d captures: give one per capture, in order", len(flagRanks), n)
	}
	s := &InvocationSet{Captures: args}
	next := map[uint32]int64{}
	for i, path := range args {
		rank := uint32(0)
		if len(flagRanks) > 0 {
			if flagRanks[i] > maxRank {
				return nil, fmt.Errorf("--rank %d exceeds %d", flagRanks[i], maxRank)
			}
			rank = uint32(flagRanks[i])
		} else if r, ok, err := RankFromName(path); err != nil {
			return nil, err
		} else if ok {
			rank = r
		}
		inv := render.Invocation{ID: next[rank]}
		next[rank]++
		if len(f.steps) > 0 {
			inv.Step = &f.steps[i]
		}
		if len(f.directions) > 0 {
			if err := render.CheckDirection(f.directions[i]); err != nil {
				return nil, fmt.Errorf("--direction: %w", err)
			}
			inv.Direction = f.directions[i]
		}
		s.Ranks = append(s.Ranks, rank)
		s.Invocations = append(s.Invocations, inv)
		s.KernelNames = append(s.KernelNames, "")
	}
	return s, s.checkIDs()
}

// checkIDs refuses two captures with one invocation id in one rank, before
// any capture is read.
func (s *InvocationSet) checkIDs() error {
	type key struct {
		rank uint32
		id   int64
	}
	seen := map[key]string{}
	for i, path := range s.Captures {
		k := key{s.Ranks[i], s.Invocations[i].ID}
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("%s and %s are both invocation %d of rank %d", prev, path, k.id, k.rank)
		}
		seen[k] = path
	}
	return nil
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
