// Package short marks the tests that `go test -short` (make test, the
// everyday loop) leaves to make ci: the drills (a browser, a wheel, a
// compiler of another language, a build of the programs) and the checks
// that repeat at scale what a smaller case already checks. docs/testing.md
// lists them.
package short

import "testing"

// Prefix begins the reason of every skip of Skip, so that a summary of
// skips (scripts/testskips) can count these apart from the checks that
// were skipped because a tool is missing.
const Prefix = "-short:"

// Skip skips t under -short, saying why it is left to make ci.
func Skip(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s %s (make ci runs it)", Prefix, why)
	}
}
