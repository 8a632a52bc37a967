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
	Entries []WindowEntry
	// Manifest is the manifest the entries are of ("" for captures given
	// as arguments).
	Manifest string
}

// WindowEntry is one capture of a window: its path, its rank and where
// that came from (Rank: FromManifest, FromFlag (--rank), FromFileName or
// FromDefault (0)), its invocation, its kernel name ("" where the
// command's --kernel-name applies), and its line in the manifest (0 for a
// capture given as an argument).
type WindowEntry struct {
	Capture    string
	Rank       uint32
	RankFrom   From
	Invocation render.Invocation
	KernelName string
	line       int
}

// Captures are the paths of the window's captures, in order.
func (s *InvocationSet) Captures() []string {
	paths := make([]string, len(s.Entries))
	for i, e := range s.Entries {
		paths[i] = e.Capture
	}
	return paths
}

// where names the place each capture was given: "window.yaml:12" for a
// manifest's, nil for arguments.
func (s *InvocationSet) where() []string {
	if s.Manifest == "" {
		return nil
	}
	w := make([]string, len(s.Entries))
	for i, e := range s.Entries {
		w[i] = s.Manifest + ":" + strconv.Itoa(e.line)
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
		s := &InvocationSet{Manifest: f.Manifest, Entries: make([]WindowEntry, 0, len(entries))}
		next := map[uint32]int64{}
		for _, e := range entries {
			// The likely mistake: a path relative to the working directory.
			if mustExist {
				if _, err := os.Stat(e.Capture); errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s:%d: capture %s not found (a relative capture path is relative to the manifest's folder)", f.Manifest, e.Line, e.Capture)
				}
			}
			rank, from, err := Rank(nil, e.Rank, FromManifest, e.Capture, true)
			if err != nil {
				return nil, err
			}
			id := next[rank]
			if e.InvocationID != nil {
				id = *e.InvocationID
			}
			next[rank]++
			s.Entries = append(s.Entries, WindowEntry{Capture: e.Capture, Rank: rank, RankFrom: from,
				Invocation: render.Invocation{ID: id, Step: e.Step, Direction: e.Direction}, KernelName: e.KernelName, line: e.Line})
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
	s := &InvocationSet{}
	next := map[uint32]int64{}
	for i, path := range args {
		rank, from, err := Rank(flagAt(flagRanks, i), nil, "", path, true)
		if err != nil {
			return nil, err
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
		s.Entries = append(s.Entries, WindowEntry{Capture: path, Rank: rank, RankFrom: from, Invocation: inv})
	}
	return s, s.checkIDs()
}

// checkIDs refuses two captures with one invocation id in one rank, before
// any capture is read.
func (s *InvocationSet) checkIDs() error {
	seen := rankSet{}
	for i, e := range s.Entries {
		if j, dup := seen.add(rankKey{rank: e.Rank, inv: e.Invocation.ID}, i); dup {
			return fmt.Errorf("%s and %s are both invocation %d of rank %d", s.Entries[j].Capture, e.Capture, e.Invocation.ID, e.Rank)
		}
	}
	return nil
}
