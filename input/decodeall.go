package input

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
)

// decodeAll opens and checks every source's capture file (the first
// pass), at most GOMAXPROCS at once, setting each one's Decoded. Errors
// are reported in argument order, each after where[i] when where is given
// (the manifest line that lists the capture); the exit status is 1 when
// every failure is an invalid capture, else 2. The captures' files are
// parked (capture.OpenParked): a run over thousands of captures holds a
// few open at a time. With dropSlots, each of several captures keeps only
// the fixed part of its summary (decode.Decoded.DropSlots) until it is
// walked.
func decodeAll(srcs []*Source, req capture.Request, where []string, dropSlots bool) error {
	errs := make([]error, len(srcs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(srcs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(srcs) {
					return
				}
				c, err := capture.OpenParked(srcs[i].Path, req.Partial)
				if err == nil {
					var d *decode.Decoded
					if d, err = decode.Decode(c, req); err != nil {
						c.Close()
					} else {
						srcs[i].Decoded = d
						if dropSlots && len(srcs) > 1 {
							d.DropSlots()
						}
					}
				}
				if err != nil && where != nil {
					err = fmt.Errorf("%s: %w", where[i], err)
				}
				errs[i] = err
			}
		})
	}
	wg.Wait()
	var failed []error
	allInvalid := true
	for _, err := range errs {
		if err == nil {
			continue
		}
		failed = append(failed, err)
		var p *capture.Problem
		if !errors.As(err, &p) {
			allInvalid = false
		}
	}
	if len(failed) == 0 {
		return nil
	}
	err := errors.Join(failed...)
	if allInvalid {
		return invalid(err)
	}
	return usage(err)
}

// CaptureRanks returns the rank of each capture: --rank in order, else the
// number in each file name, else 0 for a single capture.
func CaptureRanks(paths []string, flagRanks []uint) ([]uint32, error) {
	srcs, err := captureSources(paths, flagRanks)
	if err != nil {
		return nil, err
	}
	ranks := make([]uint32, len(srcs))
	for i, s := range srcs {
		ranks[i] = s.Rank
	}
	return ranks, nil
}

// captureSources are the sources of the capture files paths (one per
// rank), each with its rank (Rank; flagRanks is --rank) and none decoded
// yet; two of one rank are an error.
func captureSources(paths []string, flagRanks []uint) ([]*Source, error) {
	if len(flagRanks) > 0 && len(flagRanks) != len(paths) {
		return nil, fmt.Errorf("%d --rank values for %d captures: give one per capture, in order", len(flagRanks), len(paths))
	}
	srcs := make([]*Source, len(paths))
	for i, path := range paths {
		s := &Source{Path: path}
		var err error
		if s.Rank, s.RankFrom, err = Rank(flagAt(flagRanks, i), nil, "", path, len(paths) == 1); err != nil {
			return nil, err
		}
		srcs[i] = s
	}
	seen := rankSet{}
	for i, s := range srcs {
		if j, dup := seen.add(rankKey{rank: s.Rank, inv: -1}, i); dup {
			return nil, fmt.Errorf("%s and %s both have rank %d (launches of one rank are invocations of a window: give --step or --direction once per capture, or --invocation-manifest)", paths[j], paths[i], s.Rank)
		}
	}
	return srcs, nil
}

// flagAt is the i-th value of a repeated flag, nil when it was not given.
func flagAt(values []uint, i int) *uint {
	if len(values) == 0 {
		return nil
	}
	return &values[i]
}

// rankKey is a source's rank and invocation id (-1 for none); rankSet
// the keys seen so far, each with the index of the first source of it:
// the one check that no two sources are one rank (and invocation).
type rankKey struct {
	rank uint32
	inv  int64
}

type rankSet map[rankKey]int

// add records source i's key k, or returns the earlier source j of k.
func (s rankSet) add(k rankKey, i int) (j int, dup bool) {
	if j, dup := s[k]; dup {
		return j, true
	}
	s[k] = i
	return 0, false
}
