package imports

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestImportGroups: in a hand-written file, no group of imports (lines
// between blank lines) mixes the standard library's packages with
// others' (the module's, cobra, ...): gofmt sorts within a group, so a
// module import resolved into the standard library's group in a merge
// stays there, where goimports and readers do not look for it.
func TestImportGroups(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range handWritten(t) {
		file, err := parser.ParseFile(fset, f.rel, f.src, parser.ImportsOnly)
		if !assert.NoErrorf(t, err, "%s", f.rel) {
			continue
		}
		var std, other string // the group's first of each kind
		lastLine := 0
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			line := fset.Position(spec.Pos()).Line
			if line > lastLine+1 { // a new group
				std, other = "", ""
			}
			lastLine = fset.Position(spec.End()).Line
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") {
				other = path
			} else {
				std = path
			}
			if !assert.Falsef(t, std != "" && other != "", "%s:%d: %q and %q in one import group: the standard library's imports go in a group of their own", f.rel, line, std, other) {
				break
			}
		}
	}
}
