package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// current is the ABI of the schema the tree generates from.
var current = abiID{abi.Version, abi.FingerprintHex}

func readChangelog(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, changelogFile))
	require.NoError(t, err)
	return string(data)
}

// TestChangelog: CHANGELOG.md's newest release is VERSION's and names an
// ABI, and the newest ABI line (under Unreleased, else that release) is
// abi/schema.yaml's version and fingerprint: a change of either comes
// with a changelog line.
func TestChangelog(t *testing.T) {
	assert.NoError(t, checkChangelog(readChangelog(t), buildinfo.Version(), current, false))
}

// TestChangelogPlanted plants mismatches into a copy of CHANGELOG.md's
// text, and the tree's version and ABI, and expects each refused, with
// the changes a release or an ABI change makes accepted.
func TestChangelogPlanted(t *testing.T) {
	text := readChangelog(t)
	version := buildinfo.Version()
	top := "## [" + version + "]"
	require.Containsf(t, text, top, "%s lacks", changelogFile)
	require.Containsf(t, text, "## [Unreleased]\n", "%s lacks", changelogFile)
	// The committed text as the release of VERSION would have it:
	// Unreleased's entries (there may be some between releases, an ABI
	// line among them) moved under VERSION's heading.
	at := strings.Index(text, "## [Unreleased]\n") + len("## [Unreleased]\n")
	end := at + strings.Index(text[at:], "\n## [")
	entries := strings.TrimSpace(text[at:end])
	released := text[:at] + text[end:]
	if entries != "" {
		h := strings.Index(released, top)
		h += strings.Index(released[h:], "\n") + 1
		released = released[:h] + "\n" + entries + "\n" + released[h:]
	}
	raised := abiID{current.version + 1, "0123456789abcdef"}
	refingered := abiID{current.version, "fedcba9876543210"}
	unreleased := func(lines string) string {
		return strings.Replace(text, "## [Unreleased]\n", "## [Unreleased]\n\n### Changed\n\n"+lines+"\n", 1)
	}
	next := "9.0.0"
	releaseOf := func(t string) string { // Unreleased's entries become next's
		return strings.Replace(t, "## [Unreleased]\n", "## [Unreleased]\n\n## ["+next+"] - 2027-01-02\n", 1)
	}
	for _, c := range []struct {
		name, text, version string
		abi                 abiID
		release             bool
		want                string // in the error; empty for none
	}{
		{"as committed", text, version, current, false, ""},
		{"as committed, released", released, version, current, true, ""},
		{"VERSION bumped without an entry", text, next, current, false, "the newest release is " + version + ", but VERSION is " + next},
		{"ABI version raised without a line", text, version, raised, false, "add a line \"" + raised.String() + "\" under Unreleased"},
		{"fingerprint changed without a line", text, version, refingered, false, "but abi/schema.yaml is " + refingered.String()},
		{"ABI version raised with its line", unreleased("- " + raised.String() + ": a new field."), version, raised, false, ""},
		{"fingerprint in backquotes", unreleased(strings.Replace("- "+refingered.String(), "fingerprint ", "fingerprint `", 1) + "`: a new task type."), version, refingered, false, ""},
		{"a line that is not the schema's", unreleased("- " + refingered.String() + ": a new task type."), version, raised, false, "the newest ABI line (under [Unreleased]) says " + refingered.String()},
		{"the line, released", releaseOf(unreleased("- " + raised.String() + ": a new field.")), next, raised, true, ""},
		{"released with entries under Unreleased", unreleased("- Something."), version, current, true, "Unreleased still has entries at the release of " + version},
		{"release naming no ABI", releaseOf(released), next, current, false, "release " + next + " names no ABI"},
		{"no Unreleased", strings.Replace(text, "## [Unreleased]\n", "", 1), version, current, false, "the first version's heading is not ## [Unreleased]"},
		{"no date", strings.Replace(text, top+" - ", top+" ", 1), version, current, false, "is not a version's heading"},
		{"a bad date", strings.Replace(text, top+" - ", top+" - 2026-13-", 1), version, current, false, "has no date YYYY-MM-DD"},
		{"a tag for a version", strings.Replace(text, top, "## [v"+version+"]", 1), version, current, false, "is not a release's version"},
		{"an older release above", strings.Replace(text, "## [Unreleased]\n", "## [Unreleased]\n\n## [0.0.1] - 2026-01-01\n\n- ABI version 1, fingerprint 0123456789abcdef\n", 1), "0.0.1", current, false, "release " + version + " is below 0.0.1"},
		{"a release twice", strings.Replace(text, "## [Unreleased]\n", "## [Unreleased]\n\n"+top+" - 2026-01-01\n", 1), version, current, false, "release " + version + " is below " + version},
		{"no release", text[:strings.Index(text, top)], version, current, false, "has no release"},
	} {
		err := checkChangelog(c.text, c.version, c.abi, c.release)
		switch {
		case c.want == "" && err != nil:
			assert.Fail(t, fmt.Sprintf("%s: %v", c.name, err))
		case c.want != "" && err == nil:
			assert.Fail(t, fmt.Sprintf("%s: no error, want one with %q", c.name, c.want))
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			assert.Fail(t, fmt.Sprintf("%s: %v\nwant it to contain %q", c.name, err, c.want))
		}
	}
}

func TestCompareVersions(t *testing.T) {
	order := []string{"0.4.9", "0.5.0-alpha.1", "0.5.0-beta.0", "0.5.0-rc.1", "0.5.0-rc.2", "0.5.0", "0.5.1", "0.10.0", "1.0.0"}
	for i, a := range order {
		for j, b := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equalf(t, want, compareVersions(a, b), "compareVersions(%q, %q)", a, b)
		}
	}
}
