package input

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
)

// The functions that decide each interpretation of a source, one each
// (docs/development.md's table; FamilyOptions.KernelFor and Choose, in
// family.go, decide its kernel name and family): each takes what the
// flags and the data say and returns the value with where it came from.

// rankInName finds a rank in a file name: "rank3", "rank_3", "rank-3", or
// "r3" standing alone ("capture_r3.npy", "r3.bin").
var rankInName = []*regexp.Regexp{
	regexp.MustCompile(`(?i)rank[_-]?([0-9]+)`),
	regexp.MustCompile(`(?i)(?:^|[^a-z0-9])r([0-9]+)(?:[^a-z0-9]|$)`),
}

// MaxRank keeps pids within what trace viewers read as an int32.
const MaxRank = math.MaxInt32

// Rank decides a capture's rank, and where it came from: --rank (flag;
// nil when not given) over the rank the data states (stated, nil for
// none: a manifest's rank, statedFrom FromManifest, or a trace's,
// FromTrace) over the number in its file name (path; FromFileName) over 0
// (FromDefault) when orZero (a single capture, or a window's); a capture
// whose rank nothing states is otherwise an error, as is a rank too large
// to be a trace pid.
func Rank(flag *uint, stated *uint32, statedFrom From, path string, orZero bool) (uint32, From, error) {
	switch {
	case flag != nil:
		if *flag > MaxRank {
			return 0, "", fmt.Errorf("--rank %d exceeds %d", *flag, MaxRank)
		}
		return uint32(*flag), FromFlag, nil
	case stated != nil:
		return *stated, statedFrom, nil
	}
	r, ok, err := RankFromName(path)
	switch {
	case err != nil:
		return 0, "", err
	case ok:
		return r, FromFileName, nil
	case orZero:
		return 0, FromDefault, nil
	}
	return 0, "", fmt.Errorf("cannot tell the rank of %s: give --rank once per capture in order, or name the files like rank3.bin or capture_r3.npy", path)
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

// flagFrequency is the frequency and SoC the flags resolved to (--soc's
// default when neither --soc nor --freq-mhz was given).
type flagFrequency struct {
	mhz   float64
	soc   string
	given bool
}

// sourceFrequency decides the system-counter frequency and SoC name of a
// source whose trace is t (nil for a capture file), and where they came
// from: --soc or --freq-mhz when given (FromFlag), else the trace's own
// (FromTrace where it states one, FromEvents where its events imply it;
// a trace naming no SoC keeps the flags'), else --soc's default (FromSoC).
func sourceFrequency(t *jsontrace.Source, f flagFrequency) (float64, string, From) {
	switch {
	case f.given:
		return f.mhz, f.soc, FromFlag
	case t == nil || t.FrequencyMHz == 0:
		return f.mhz, f.soc, FromSoC
	}
	soc, from := f.soc, FromTrace
	if t.SoCName != "" {
		soc = t.SoCName
	}
	if t.FromEvents {
		from = FromEvents
	}
	return t.FrequencyMHz, soc, from
}

// namesOf decides the names a source whose trace is t (nil for a capture
// file) is named with, before its family adds its own: the names file's
// (file, nil for none; FromFlag), else the trace's (FromTrace), else
// none (FromDefault: the schema's).
func namesOf(file *kernelnames.Names, t *jsontrace.Source) (*kernelnames.Names, From) {
	switch {
	case file != nil:
		return file, FromFlag
	case t != nil && t.Names != nil:
		return t.Names, FromTrace
	}
	return nil, FromDefault
}

// layoutFrom decides where a source's layout came from: the trace that
// states it, else capture.Resolved's Source (the flags, the plan, or the
// capture's headers).
func layoutFrom(s *Source) From {
	if s.Trace != nil {
		return FromTrace
	}
	switch s.Decoded.Layout.Source {
	case capture.FromHost:
		return FromFlag
	case capture.FromPlan:
		return FromPlan
	}
	return FromHeaders
}

// deviceID decides a source's device id: --device-id (flag; nil when not
// given) over its trace's (t, nil for a capture file) over its rank
// (FromDefault).
func deviceID(flag *uint, t *jsontrace.Source, rank uint32) (uint32, From, error) {
	switch {
	case flag != nil:
		if *flag > math.MaxUint32 {
			return 0, "", fmt.Errorf("--device-id %d exceeds %d", *flag, uint32(math.MaxUint32))
		}
		return uint32(*flag), FromFlag, nil
	case t != nil:
		return t.DeviceID, FromTrace, nil
	}
	return rank, FromDefault, nil
}

// ownerLabel decides the label before an owner id in a source's detailed
// names: --owner-label when given, else its trace's (t, nil for a capture
// file) when it states one, else its kernel family's (fam) when it has
// one (Expert for MegaMoe), else --owner-label's default.
func ownerLabel(o Options, t *jsontrace.Source, fam abi.Family) (string, From) {
	switch {
	case o.OwnerLabelGiven:
		return o.OwnerLabel, FromFlag
	case t != nil && t.OwnerLabel != "":
		return t.OwnerLabel, FromTrace
	case fam.OwnerLabel() != "":
		return fam.OwnerLabel(), FromFamily
	}
	return o.OwnerLabel, FromDefault
}

// detailedNames decides whether a source's events are named with owner
// and task number: --detailed-names when given, else what its trace (t,
// nil for a capture file) states, else --detailed-names's default.
func detailedNames(o Options, t *jsontrace.Source) (bool, From) {
	switch {
	case o.DetailedNamesGiven:
		return o.DetailedNames, FromFlag
	case t != nil:
		return t.DetailedNames, FromTrace
	}
	return o.DetailedNames, FromDefault
}
