package cli

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

// invocationFlags say which captures are invocations of a window (several
// kernel launches per rank): --invocation-manifest, or --step/--direction
// once per capture. decode uses them all, analyze all but the layout in
// time (--invocation-gap-us, --absolute-time); validate takes the
// captures, and checks the labels as decode does.
type invocationFlags struct {
	manifest   string
	steps      []int64
	directions []string
	gapUs      float64
	absolute   bool
}

// registerManifest adds --invocation-manifest only.
func (f *invocationFlags) registerManifest(fs *pflag.FlagSet) {
	fs.Var((*fileName)(&f.manifest), "invocation-manifest", "YAML/JSON list of {capture, rank, invocation_id, step, direction, kernel_name}, capture paths relative to it; instead of CAPTURE arguments")
}

// registerLabels adds --invocation-manifest, --step and --direction
// (analyze, report, validate).
func (f *invocationFlags) registerLabels(fs *pflag.FlagSet) {
	f.registerManifest(fs)
	fs.Int64SliceVar(&f.steps, "step", nil, "training step of each capture, repeated in order: makes the captures invocations of a window")
	fs.StringArrayVar(&f.directions, "direction", nil, "forward or backward, for each capture, repeated in order: makes the captures invocations of a window")
	// pflag prints "(default [])" after an empty int64 list.
	fs.Lookup("step").DefValue = ""
}

// fileName is a flag naming a file: an empty name is refused when the
// flag is parsed (--invocation-manifest "" would otherwise read as "no
// manifest", and a command with no capture would succeed saying nothing).
type fileName string

func (n *fileName) String() string { return string(*n) }
func (n *fileName) Type() string   { return "string" }
func (n *fileName) Set(s string) error {
	if s == "" {
		return errors.New("needs a file name")
	}
	*n = fileName(s)
	return nil
}

// register adds every invocation flag (decode).
func (f *invocationFlags) register(fs *pflag.FlagSet) {
	f.registerLabels(fs)
	fs.Float64Var(&f.gapUs, "invocation-gap-us", 0, "lay the invocations of a rank end to end, this many microseconds apart, instead of at their real times")
	fs.BoolVar(&f.absolute, "absolute-time", false, "time events from system-counter cycle 0 (shared by a device's invocations) instead of the first core entry (each capture's, or a rank's earliest invocation's)")
}

// invocationSet is the captures of a window and each one's invocation.
type invocationSet struct {
	captures    []string
	ranks       []uint32
	invocations []render.Invocation
	kernelNames []string // "" where the command's --kernel-name applies
	// manifest and lines: the manifest, and the line of each capture in it
	// (nil for captures given as arguments).
	manifest string
	lines    []int
}

// where names the place each capture was given: "window.yaml:12" for a
// manifest's, nil for arguments.
func (s *invocationSet) where() []string {
	if s.lines == nil {
		return nil
	}
	w := make([]string, len(s.lines))
	for i, l := range s.lines {
		w[i] = s.manifest + ":" + strconv.Itoa(l)
	}
	return w
}

// captures returns the capture paths: the manifest's (checked as decode
// checks it: one capture per invocation id of a rank), or the arguments,
// whose --step and --direction are checked as decode checks them.
// Exactly one of the two must give some.
// places names where each capture was given in the manifest (nil for
// arguments): see invocationSet.where.
func (f *invocationFlags) captures(args []string) (paths, places []string, err error) {
	if f.manifest == "" && len(f.steps) == 0 && len(f.directions) == 0 {
		return args, nil, nil
	}
	// A missing capture is validate's to report, with the others.
	s, err := f.resolveSet(args, nil, false)
	if err != nil {
		return nil, nil, err
	}
	return s.captures, s.where(), nil
}

// resolve returns the window's invocations, or nil when the captures are
// plain (one per rank, as before). flagRanks is --rank.
func (f *invocationFlags) resolve(args []string, flagRanks []uint) (*invocationSet, error) {
	return f.resolveSet(args, flagRanks, true)
}

// resolveSet is resolve; mustExist refuses a manifest's capture that is
// not there, naming the manifest's line.
func (f *invocationFlags) resolveSet(args []string, flagRanks []uint, mustExist bool) (*invocationSet, error) {
	if f.manifest != "" {
		if len(args) > 0 {
			return nil, errors.New("give captures either as arguments or in --invocation-manifest, not both")
		}
		if len(f.steps) > 0 || len(f.directions) > 0 || len(flagRanks) > 0 {
			return nil, errors.New("--invocation-manifest gives each capture's rank, step and direction: --rank, --step and --direction go with capture arguments")
		}
		entries, err := manifest.Load(f.manifest)
		if err != nil {
			return nil, err
		}
		s := &invocationSet{manifest: f.manifest, lines: make([]int, 0, len(entries))}
		next := map[uint32]int64{}
		for _, e := range entries {
			// The likely mistake: a path relative to the working directory.
			if mustExist {
				if _, err := os.Stat(e.Capture); errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s:%d: capture %s not found (a relative capture path is relative to the manifest's folder)", f.manifest, e.Line, e.Capture)
				}
			}
			rank := uint32(0)
			if e.Rank != nil {
				rank = *e.Rank
			} else if r, ok, err := rankFromName(e.Capture); err != nil {
				return nil, err
			} else if ok {
				rank = r
			}
			id := next[rank]
			if e.InvocationID != nil {
				id = *e.InvocationID
			}
			next[rank]++
			s.captures = append(s.captures, e.Capture)
			s.ranks = append(s.ranks, rank)
			s.invocations = append(s.invocations, render.Invocation{ID: id, Step: e.Step, Direction: e.Direction})
			s.kernelNames = append(s.kernelNames, e.KernelName)
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
	s := &invocationSet{captures: args}
	next := map[uint32]int64{}
	for i, path := range args {
		rank := uint32(0)
		if len(flagRanks) > 0 {
			if flagRanks[i] > maxRank {
				return nil, fmt.Errorf("--rank %d exceeds %d", flagRanks[i], maxRank)
			}
			rank = uint32(flagRanks[i])
		} else if r, ok, err := rankFromName(path); err != nil {
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
		s.ranks = append(s.ranks, rank)
		s.invocations = append(s.invocations, inv)
		s.kernelNames = append(s.kernelNames, "")
	}
	return s, s.checkIDs()
}

// checkIDs refuses two captures with one invocation id in one rank, before
// any capture is read.
func (s *invocationSet) checkIDs() error {
	type key struct {
		rank uint32
		id   int64
	}
	seen := map[key]string{}
	for i, path := range s.captures {
		k := key{s.ranks[i], s.invocations[i].ID}
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

// capturesOrManifest is the Args check of the commands that read captures:
// at least one CAPTURE, unless --invocation-manifest names them.
func capturesOrManifest(cmd *cobra.Command, args []string) error {
	if len(args) == 0 && !cmd.Flags().Changed("invocation-manifest") {
		return usage(fmt.Errorf("%s needs at least one CAPTURE", cmd.Name()))
	}
	return nil
}
