package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/megakernel/cycleabi/internal/buildinfo"
)

// changelogFile is the changelog, from the repository's root.
const changelogFile = "CHANGELOG.md"

var (
	// heading is a version's heading: ## [Unreleased], or ## [0.5.0] -
	// 2026-12-06 (Keep a Changelog's form).
	heading = regexp.MustCompile(`^## \[([^\]]*)\](?: - (\S+))?\s*$`)
	// abiLine is a line that names an ABI as `cycleabi --version` prints
	// it, the fingerprint optionally in backquotes.
	abiLine = regexp.MustCompile("ABI version ([0-9]+), fingerprint `?([0-9a-f]{16})`?")
)

// abiID is an ABI: its version and the schema's fingerprint, 16 hex
// digits (abi.Version, abi.FingerprintHex).
type abiID struct {
	version     int
	fingerprint string
}

func (a abiID) String() string {
	return fmt.Sprintf("ABI version %d, fingerprint %s", a.version, a.fingerprint)
}

// section is one version's part of the changelog.
type section struct {
	name string // "Unreleased" or the version
	date string // empty for Unreleased
	line int    // of its heading, from 1
	abi  *abiID // its first ABI line, if any
	// abiLine is that line's number; entries counts its lines that are
	// not blank.
	abiLine, entries int
}

// parseChangelog returns the changelog's version sections in order:
// Unreleased first, then the releases, newest first, each checked for
// its form (a version VERSION may hold, a date, no version twice, each
// older than the one above it).
func parseChangelog(text string) ([]section, error) {
	var secs []section
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if strings.HasPrefix(line, "## ") {
			m := heading.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: %q is not a version's heading: ## [Unreleased] or ## [X.Y.Z] - YYYY-MM-DD", changelogFile, n, line)
			}
			secs = append(secs, section{name: m[1], date: m[2], line: n})
			continue
		}
		if len(secs) == 0 {
			continue // the preamble
		}
		s := &secs[len(secs)-1]
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "### ") {
			s.entries++
		}
		if m := abiLine.FindStringSubmatch(line); m != nil && s.abi == nil {
			v, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: ABI version %q: %v", changelogFile, n, m[1], err)
			}
			s.abi, s.abiLine = &abiID{v, m[2]}, n
		}
	}
	if len(secs) == 0 || secs[0].name != "Unreleased" || secs[0].date != "" {
		return nil, fmt.Errorf("%s: the first version's heading is not ## [Unreleased]", changelogFile)
	}
	var newer *section
	for i := 1; i < len(secs); i++ {
		s := &secs[i]
		if _, err := buildinfo.Parse(s.name + "\n"); err != nil {
			return nil, fmt.Errorf("%s:%d: [%s] is not a release's version (X.Y.Z or X.Y.Z-rc.N)", changelogFile, s.line, s.name)
		}
		if _, err := time.Parse("2006-01-02", s.date); err != nil {
			return nil, fmt.Errorf("%s:%d: release %s has no date YYYY-MM-DD after its version (## [%s] - 2006-01-02)", changelogFile, s.line, s.name, s.name)
		}
		if newer != nil && compareVersions(s.name, newer.name) >= 0 {
			return nil, fmt.Errorf("%s:%d: release %s is below %s (line %d), which is not newer", changelogFile, s.line, s.name, newer.name, newer.line)
		}
		newer = s
	}
	return secs, nil
}

// checkChangelog checks the changelog's text against the tree: its newest
// release is version (VERSION's) and names an ABI, and the newest ABI
// line, under Unreleased or the newest release, is the schema's (cur), so
// that a change of the schema's version or fingerprint comes with a line.
// release also requires Unreleased to be empty: at a release its entries
// have moved under the version.
func checkChangelog(text, version string, cur abiID, release bool) error {
	secs, err := parseChangelog(text)
	if err != nil {
		return err
	}
	unreleased := secs[0]
	if len(secs) == 1 {
		return fmt.Errorf("%s has no release; VERSION is %s: add ## [%s] - YYYY-MM-DD", changelogFile, version, version)
	}
	top := secs[1]
	if top.name != version {
		return fmt.Errorf("%s:%d: the newest release is %s, but VERSION is %s: a release adds its entry ## [%s] - YYYY-MM-DD (the entries under Unreleased) as it bumps VERSION", changelogFile, top.line, top.name, version, version)
	}
	if top.abi == nil {
		return fmt.Errorf("%s:%d: release %s names no ABI: add a line \"%s\"", changelogFile, top.line, top.name, cur)
	}
	newest := top
	if unreleased.abi != nil {
		newest = unreleased
	}
	if *newest.abi != cur {
		return fmt.Errorf("%s:%d: the newest ABI line (under [%s]) says %s, but abi/schema.yaml is %s: add a line \"%s\" under Unreleased, saying what changed", changelogFile, newest.abiLine, newest.name, *newest.abi, cur, cur)
	}
	if release && unreleased.entries > 0 {
		return fmt.Errorf("%s:%d: Unreleased still has entries at the release of %s: move them under ## [%s]", changelogFile, unreleased.line, version, version)
	}
	return nil
}

// compareVersions orders two versions VERSION may hold: -1, 0 or 1 as a
// is older, the same or newer than b; a pre-release (alpha < beta < rc)
// comes before its release.
func compareVersions(a, b string) int {
	ka, kb := versionKey(a), versionKey(b)
	for i := range ka {
		if ka[i] != kb[i] {
			if ka[i] < kb[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// versionKey is a version as numbers to compare in order: X, Y, Z, the
// pre-release's rank (alpha 0, beta 1, rc 2, none 3) and its N.
func versionKey(v string) [5]int {
	var k [5]int
	core, pre, _ := strings.Cut(v, "-")
	for i, p := range strings.SplitN(core, ".", 3) {
		k[i], _ = strconv.Atoi(p)
	}
	k[3] = 3
	if kind, n, ok := strings.Cut(pre, "."); ok {
		k[3] = map[string]int{"alpha": 0, "beta": 1, "rc": 2}[kind]
		k[4], _ = strconv.Atoi(n)
	}
	return k
}
