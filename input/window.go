package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/manifest"
)

// Window says which captures are invocations of a window (several kernel
// launches per rank): a Manifest (--invocation-manifest), or Steps and
// Directions once per capture (--step, --direction).
type Window struct {
	Manifest   string
	Steps      []int64
	Directions []string
}

// InvocationSet is the captures of a window and each one's invocation.
type InvocationSet struct {
	Captures []string
	// Ranks are each capture's rank, RankFrom where it came from:
	// FromManifest, FromFlag (--rank), FromFileName or FromDefault (0).
	Ranks       []uint32
	RankFrom    []From
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

// Where names the place each capture was given: "window.yaml:12" for a
// manifest's, nil for arguments or no window (s nil).
func (s *InvocationSet) Where() []string {
	if s == nil {
		return nil
	}
	return s.where()
}

// Resolve returns the window's invocations of the captures args (or the
// manifest's), or nil when w makes no window (one capture per rank).
// flagRanks is --rank; mustExist refuses a manifest's capture that is not
// there, naming the manifest's line.
func (f Window) Resolve(args []string, flagRanks []uint, mustExist bool) (*InvocationSet, error) {
	if f.Manifest != "" {
		if len(args) > 0 {
			return nil, errors.New("give captures either as arguments or in --invocation-manifest, not both")
		}
		if len(f.Steps) > 0 || len(f.Directions) > 0 || len(flagRanks) > 0 {
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
			rank, from := uint32(0), FromDefault
			if e.Rank != nil {
				rank, from = *e.Rank, FromManifest
			} else if r, ok, err := RankFromName(e.Capture); err != nil {
				return nil, err
			} else if ok {
				rank, from = r, FromFileName
			}
			id := next[rank]
			if e.InvocationID != nil {
				id = *e.InvocationID
			}
			next[rank]++
			s.Captures = append(s.Captures, e.Capture)
			s.Ranks, s.RankFrom = append(s.Ranks, rank), append(s.RankFrom, from)
			s.Invocations = append(s.Invocations, render.Invocation{ID: id, Step: e.Step, Direction: e.Direction})
			s.KernelNames = append(s.KernelNames, e.KernelName)
			s.lines = append(s.lines, e.Line)
		}
		return s, s.checkIDs()
	}
	if len(f.Steps) == 0 && len(f.Directions) == 0 {
		return nil, nil
	}
	n := len(args)
	if len(f.Steps) > 0 && len(f.Steps) != n {
		return nil, fmt.Errorf("%d --step values for %d captures: give one per capture, in order", len(f.Steps), n)
	}
	if len(f.Directions) > 0 && len(f.Directions) != n {
		return nil, fmt.Errorf("%d --direction values for %d captures: give one per capture, in order", len(f.Directions), n)
	}
	if len(flagRanks) > 0 && len(flagRanks) != n {
		return nil, fmt.Errorf("%d --rank values for %d captures: give one per capture, in order", len(flagRanks), n)
	}
	s := &InvocationSet{Captures: args}
	next := map[uint32]int64{}
	for i, path := range args {
		rank, from := uint32(0), FromDefault
		if len(flagRanks) > 0 {
			if flagRanks[i] > MaxRank {
				return nil, fmt.Errorf("--rank %d exceeds %d", flagRanks[i], MaxRank)
			}
			rank, from = uint32(flagRanks[i]), FromFlag
		} else if r, ok, err := RankFromName(path); err != nil {
			return nil, err
		} else if ok {
			rank, from = r, FromFileName
		}
		inv := render.Invocation{ID: next[rank]}
		next[rank]++
		if len(f.Steps) > 0 {
			inv.Step = &f.Steps[i]
		}
		if len(f.Directions) > 0 {
			if err := render.CheckDirection(f.Directions[i]); err != nil {
				return nil, fmt.Errorf("--direction: %w", err)
			}
			inv.Direction = f.Directions[i]
		}
		s.Ranks, s.RankFrom = append(s.Ranks, rank), append(s.RankFrom, from)
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
