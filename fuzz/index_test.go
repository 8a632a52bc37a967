package fuzz

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndex keeps README.md's table of fuzz targets the module's own: every
// top-level func FuzzX(*testing.F) in a _test.go file has its row (package,
// name and file), and every row a target.
func TestIndex(t *testing.T) {
	root := ".."
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") && fn.Type.Params.NumFields() == 1 {
				found = append(found, filepath.ToSlash(filepath.Dir(rel))+" "+fn.Name.Name+" "+filepath.Base(rel))
			}
		}
		return nil
	})
	require.NoError(t, err)
	text, err := os.ReadFile("README.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (Fuzz\\w+) \\| \\[([^]]+)\\]\\(\\.\\./([^)]+)\\) \\|$")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(string(text), -1) {
		assert.Equalf(t, m[1]+"/"+m[3], m[4], "row %s: the link", m[2])

		listed = append(listed, m[1]+" "+m[2]+" "+m[3])
	}
	slices.Sort(found)
	slices.Sort(listed)
	for _, f := range found {
		_, ok := slices.BinarySearch(listed, f)
		assert.Truef(t, ok, "fuzz/README.md lacks the target %q (package, name, file)", f)
	}
	for _, l := range listed {
		_, ok := slices.BinarySearch(found, l)
		assert.Truef(t, ok, "fuzz/README.md lists %q, which is no fuzz target", l)
	}
	assert.NotEmpty(t, found, "no fuzz target found: is the walk still right?")
}
