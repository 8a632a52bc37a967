package abi

// This file is hand-written: SoC-name matching over the schema's SoC table
// (socs, in soc_gen.go).

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// SoC maps a normalised SoC-name prefix to the frequency of the system counter
// (GetSystemCycle, not the AI Core clock) that cycle records are read from.
type SoC struct {
	// Prefix is matched against the normalised SoC name (see NormalizeSoCName).
	Prefix string
	// MHz is the system-counter frequency.
	MHz float64
}

// SoCs returns the SoC table in match order; the slice is the caller's to keep.
func SoCs() []SoC {
	return append([]SoC(nil), socs[:]...)
}

// NormalizeSoCName returns the form of a SoC name the table is matched against:
// lower case, only letters, digits and '_' kept ("Ascend910B2" → "ascend910b2",
// "NVIDIA H200" → "nvidiah200").
func NormalizeSoCName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// socMatches reports whether the normalised SoC name n is of the table's
// prefix: n starts with it, or the prefix is an Ascend one and n, without
// "ascend", still names it ("910_93" is the Ascend 910_93).
func socMatches(n, prefix string) bool {
	if strings.HasPrefix(n, prefix) {
		return true
	}
	return strings.HasPrefix(prefix, "ascend") && !strings.HasPrefix(n, "ascend") && strings.HasPrefix("ascend"+n, prefix)
}

// UnsupportedSoCError reports a SoC name that no prefix of the table matches.
type UnsupportedSoCError struct {
	// Name is the SoC name as given.
	Name string
	// Prefixes are the supported prefixes, sorted.
	Prefixes []string
}

// Error implements error.
func (e *UnsupportedSoCError) Error() string {
	return fmt.Sprintf("abi: unsupported SoC for MegaKernel profiling: %q; supported SoC prefixes: %s", e.Name, strings.Join(e.Prefixes, ", "))
}

// SystemCounterMHz returns the system-counter frequency in MHz of the SoC named soc:
// the first table entry whose prefix NormalizeSoCName(soc) matches (starts with
// it; an Ascend prefix is also matched by the name without "ascend"). No match
// is an *UnsupportedSoCError listing the supported prefixes.
func SystemCounterMHz(soc string) (float64, error) {
	name := NormalizeSoCName(soc)
	for _, s := range socs {
		if socMatches(name, s.Prefix) {
			return s.MHz, nil
		}
	}
	prefixes := make([]string, len(socs))
	for i, s := range socs {
		prefixes[i] = s.Prefix
	}
	sort.Strings(prefixes)
	return 0, &UnsupportedSoCError{Name: soc, Prefixes: prefixes}
}
