// Package buildinfo says which version of cycleabi is running, for its
// --version output, the banners of the files abigen generates and the
// wheel's name.
//
// The version is the file VERSION beside this package, which a release
// bumps (docs/development.md, "Releasing"), embedded into every program
// that links the package: a program reports the same version whether it
// was built by `make build`, `go install ./cmd/...`, go run or the wheel
// builder, with or without VCS stamping (-buildvcs), and a commit between
// two releases reports the last release's version (its changes are under
// Unreleased in CHANGELOG.md).
package buildinfo

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed VERSION
var versionFile string

// Version returns cycleabi's version, the text of VERSION without its
// line end: "0.5.0", or a pre-release "0.6.0-rc.1".
func Version() string {
	return strings.TrimSpace(versionFile)
}

// versionForm is what VERSION may hold: a semantic version's X.Y.Z, with
// an optional -alpha.N, -beta.N or -rc.N; the Go module's tag is it with a
// v before, the wheel's version its PEP 440 form (PEP440).
var versionForm = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(alpha|beta|rc)\.(0|[1-9]\d*))?$`)

// Parse checks the text of a VERSION file and returns the version it
// holds, without its line end. The file holds the version and one line
// end, nothing else.
func Parse(text string) (string, error) {
	v, ok := strings.CutSuffix(text, "\n")
	if !ok {
		return "", fmt.Errorf("VERSION %q does not end with a line end", text)
	}
	if !versionForm.MatchString(v) {
		return "", fmt.Errorf("VERSION %q is not X.Y.Z or X.Y.Z-alpha.N, -beta.N or -rc.N", v)
	}
	return v, nil
}

// PEP440 returns the PEP 440 form of a version Parse accepts, the
// wheel's version and the Python module's __version__:
//
//	0.5.0          0.5.0
//	0.6.0-rc.1     0.6.0rc1 (alpha.N aN, beta.N bN)
func PEP440(version string) (string, error) {
	m := versionForm.FindStringSubmatch(version)
	if m == nil {
		return "", fmt.Errorf("version %q is not X.Y.Z or X.Y.Z-alpha.N, -beta.N or -rc.N", version)
	}
	v := m[1] + "." + m[2] + "." + m[3]
	if m[4] != "" {
		v += map[string]string{"alpha": "a", "beta": "b", "rc": "rc"}[m[4]] + m[5]
	}
	return v, nil
}
