package imports

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInputKnowsNoCommandLine: package input, the one way a command's
// inputs are read, sits below the command line: it links no cobra or
// pflag and nothing under cmd/ (the command line's flag groups fill its
// Options and map its errors to exit codes). Its test files are held to
// the same, so that what they check is the package as a product uses it.
func TestInputKnowsNoCommandLine(t *testing.T) {
	linked := fullClosure(t, "input")
	for _, want := range []string{module + "sniff", module + "jsontrace", module + "kernelfamily"} {
		require.Truef(t, linked[want], "input does not link %s: the rule tests nothing (%d packages)", want, len(linked))
	}
	p := load(t, "input")
	direct := append(append(slices.Clone(p.Imports), p.TestImports...), p.XTestImports...)
	for _, imp := range append(direct, keys(linked)...) {
		require.Falsef(t, strings.HasPrefix(imp, "github.com/spf13/"), "input links %s: the input layer knows no command line", imp)
		assert.Falsef(t, strings.HasPrefix(imp, module+"cmd/"), "input links %s: the input layer knows no command line", imp)
	}
}

// keys returns m's keys, sorted.
func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
