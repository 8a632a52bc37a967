package input

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flagStructs are the structs of package input allowed several slice
// fields: the command line's repeated flags as given (the paths, --rank,
// --device-id, --step, --direction), which Load turns into one Source
// each.
var flagStructs = []string{"Options", "Window"}

// notPerSource are the slice fields that hold no interpretation of a
// source, and so are not counted: why each is a slice.
var notPerSource = map[string]string{
	"Loaded.Findings": "one per note or warning loading drew",
	"Loaded.opened":   "one per trace read (a trace gives several sources)",
}

// TestNoSliceBookkeeping: what a source is stays one value (Source), not
// slices indexed in step. It fails when a struct of the package (other
// than flagStructs) has two or more slice fields (notPerSource aside), or
// when a function appends to two or more slice fields of one value (the pattern
// `s.Ranks, s.RankFrom = append(s.Ranks, r), append(s.RankFrom, f)` that
// held each interpretation of the sources in a slice of its own).
func TestNoSliceBookkeeping(t *testing.T) {
	t.Parallel()
	for _, p := range sliceBookkeeping(t, ".") {
		assert.Fail(t, p)
	}
}

// sliceBookkeeping returns the slice bookkeeping in the non-test Go
// files of dir, a line each.
func sliceBookkeeping(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var found []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, path, src, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if !ok || slices.Contains(flagStructs, n.Name.Name) {
					return true
				}
				var fields []string
				for _, fld := range st.Fields.List {
					if at, ok := fld.Type.(*ast.ArrayType); ok && at.Len == nil {
						for _, name := range fld.Names {
							if _, ok := notPerSource[n.Name.Name+"."+name.Name]; !ok {
								fields = append(fields, name.Name)
							}
						}
					}
				}
				if len(fields) >= 2 {
					found = append(found, fmt.Sprintf("%s: struct %s has slice fields %s: hold one value per source instead", fset.Position(n.Pos()), n.Name.Name, strings.Join(fields, ", ")))
				}
			case *ast.FuncDecl:
				if n.Body != nil {
					if p := appendsInStep(fset, n); p != "" {
						found = append(found, p)
					}
				}
			}
			return true
		})
	}
	return found
}

// appendsInStep names the value fn appends to two or more slice fields of
// ("" for none; notPerSource's fields of any value aside).
func appendsInStep(fset *token.FileSet, fn *ast.FuncDecl) string {
	fields := map[string][]string{} // the value's expression → its fields appended to
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			sel, ok := lhs.(*ast.SelectorExpr)
			if !ok || i >= len(as.Rhs) {
				continue
			}
			call, ok := as.Rhs[i].(*ast.CallExpr)
			if !ok {
				continue
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "append" {
				continue
			}
			if notPerSourceField(sel.Sel.Name) {
				continue
			}
			x := exprText(sel.X)
			if !slices.Contains(fields[x], sel.Sel.Name) {
				fields[x] = append(fields[x], sel.Sel.Name)
			}
		}
		return true
	})
	for x, fs := range fields {
		if len(fs) >= 2 {
			return fmt.Sprintf("%s: %s appends to %s.%s in step: hold one value per source instead", fset.Position(fn.Pos()), fn.Name.Name, x, strings.Join(fs, ", "+x+"."))
		}
	}
	return ""
}

// exprText is the source text of a simple expression (an identifier or a
// selector), "?" for any other.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	}
	return "?"
}

// notPerSourceField says a field of that name is one of notPerSource's.
func notPerSourceField(name string) bool {
	for k := range notPerSource {
		if strings.HasSuffix(k, "."+name) {
			return true
		}
	}
	return false
}
