package input

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
)

// decodeAll opens and checks every capture (the first pass), at most
// GOMAXPROCS at once. Errors are reported in argument order, each after
// where[i] when where is given (the manifest line that lists the capture);
// the exit status is 1 when every failure is an invalid capture, else 2.
// The captures' files are parked (capture.OpenParked): a run over
// thousands of captures holds a few open at a time. With dropSlots, each
// of several captures keeps only the fixed part of its summary
// (decode.Decoded.DropSlots) until it is walked.
func decodeAll(paths []string, req capture.Request, where []string, dropSlots bool) ([]*decode.Decoded, error) {
	decoded := make([]*decode.Decoded, len(paths))
	errs := make([]error, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				c, err := capture.OpenParked(paths[i], req.Partial)
				if err == nil {
					if decoded[i], err = decode.Decode(c, req); err != nil {
						c.Close()
					} else if dropSlots && len(paths) > 1 {
						decoded[i].DropSlots()
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
		return decoded, nil
	}
	err := errors.Join(failed...)
	if allInvalid {
		return decoded, invalid(err)
	}
	return decoded, usage(err)
}

// rankInName finds a rank in a file name: "rank3", "rank_3", "rank-3", or
// "r3" standing alone ("capture_r3.npy", "r3.bin").
var rankInName = []*regexp.Regexp{
	regexp.MustCompile(`(?i)rank[_-]?([0-9]+)`),
	regexp.MustCompile(`(?i)(?:^|[^a-z0-9])r([0-9]+)(?:[^a-z0-9]|$)`),
}

// MaxRank keeps pids within what trace viewers read as an int32.
const MaxRank = math.MaxInt32

// CaptureRanks returns the rank of each capture: --rank in order, else the
// number in each file name, else 0 for a single capture.
func CaptureRanks(paths []string, flagRanks []uint) ([]uint32, error) {
	ranks, _, err := captureRanks(paths, flagRanks)
	return ranks, err
}

// captureRanks is CaptureRanks, with where each rank came from (FromFlag,
// FromFileName, FromDefault).
func captureRanks(paths []string, flagRanks []uint) ([]uint32, []From, error) {
	ranks, from := make([]uint32, len(paths)), make([]From, len(paths))
	if len(flagRanks) > 0 {
		if len(flagRanks) != len(paths) {
			return nil, nil, fmt.Errorf("%d --rank values for %d captures: give one per capture, in order", len(flagRanks), len(paths))
		}
		for i, r := range flagRanks {
			if r > MaxRank {
				return nil, nil, fmt.Errorf("--rank %d exceeds %d", r, MaxRank)
			}
			ranks[i], from[i] = uint32(r), FromFlag
		}
	} else {
		for i, path := range paths {
			r, ok, err := RankFromName(path)
			switch {
			case err != nil:
				return nil, nil, err
			case ok:
				ranks[i], from[i] = r, FromFileName
			case len(paths) == 1:
				ranks[i], from[i] = 0, FromDefault
			default:
				return nil, nil, fmt.Errorf("cannot tell the rank of %s: give --rank once per capture in order, or name the files like rank3.bin or capture_r3.npy", path)
			}
		}
	}
	seen := map[uint32]string{}
	for i, r := range ranks {
		if prev, dup := seen[r]; dup {
			return nil, nil, fmt.Errorf("%s and %s both have rank %d (launches of one rank are invocations of a window: give --step or --direction once per capture, or --invocation-manifest)", prev, paths[i], r)
		}
		seen[r] = paths[i]
	}
	return ranks, from, nil
}

// RankFromName returns the rank a capture's file name carries, if any; a
// rank too large to be a trace pid is an error, never rank 0.
func RankFromName(path string) (uint32, bool, error) {
	base := filepath.Base(path)
	for _, re := range rankInName {
		if m := re.FindStringSubmatch(base); m != nil {
			r, err := strconv.ParseUint(m[1], 10, 64)
			if err != nil || r > MaxRank {
				return 0, false, fmt.Errorf("%s: rank %s in the file name exceeds %d; give --rank once per capture in order", path, m[1], MaxRank)
			}
			return uint32(r), true, nil
		}
	}
	return 0, false, nil
}

// Frequency resolves the system-counter Frequency and the SoC name the
// trace records: --freq-mhz when given (then the SoC is "unknown" unless
// --soc names it), else the Frequency of --soc.
func Frequency(soc string, socGiven bool, mhz float64, mhzGiven bool) (float64, string, error) {
	if mhzGiven {
		// The range a trace's cycleFrequencyMHz is held to: 1e-300 made
		// a 300-digit µs figure in analyze and report.
		if err := jsontrace.CheckFrequency("--freq-mhz", mhz); err != nil {
			return 0, "", err
		}
		if !socGiven {
			soc = "unknown"
		}
		return mhz, soc, nil
	}
	mhz, err := abi.SystemCounterMHz(soc)
	if err != nil {
		return 0, "", fmt.Errorf("--soc: %w (or give --freq-mhz)", err)
	}
	return mhz, soc, nil
}
