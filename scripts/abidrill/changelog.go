package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// changelogFile is the changelog, from the repository's root.
const changelogFile = "CHANGELOG.md"

// unreleased is the heading the drill writes its line under.
const unreleased = "## [Unreleased]\n"

// abiLine finds "ABI version N, fingerprint HEX" in abigen -version's
// output.
var abiLine = regexp.MustCompile(`ABI version [0-9]+, fingerprint [0-9a-f]{16}`)

// noteInChangelog writes into the copy's CHANGELOG.md, under Unreleased,
// the line a change of the schema's ABI version or fingerprint comes with
// (scripts/release's TestChangelog requires it), as the one who made the
// change would: the changed schema's version and fingerprint, which
// abigen -version gives, and what the drill changed. restore puts the
// pristine changelog back.
func (d *drill) noteInChangelog(what string) error {
	out, err := d.run(d.abigen, "-version")
	if err != nil {
		return fmt.Errorf("abigen -version: %v\n%s", err, out)
	}
	id := abiLine.FindString(out)
	if id == "" {
		return fmt.Errorf("abigen -version names no ABI version and fingerprint:\n%s", out)
	}
	text := string(d.changelog)
	if n := strings.Count(text, unreleased); n != 1 {
		return fmt.Errorf("%s holds %q %d times, want once (its form changed? update the drill)", changelogFile, unreleased, n)
	}
	text = strings.Replace(text, unreleased, unreleased+"\n### Changed\n\n- "+id+": the ABI drill's changes ("+what+").\n", 1)
	return os.WriteFile(filepath.Join(d.dir, changelogFile), []byte(text), 0o644)
}
