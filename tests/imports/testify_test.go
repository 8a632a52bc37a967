package imports

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneAssertionStyle: tests are written with testify, as the design
// names it: assert for the checks, require for what a test cannot go on
// without. No test, and no helper a test calls (internal/testkit,
// capturetest, decodetest, ...), fails a test through testing's own Error,
// Errorf, Fatal or Fatalf, and no if holds nothing but a testify Fail (that
// condition is the check: write it as one). Every .go file is read,
// whatever its build tags.
func TestOneAssertionStyle(t *testing.T) {
	offences, files, err := assertionStyleOffences(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.GreaterOrEqual(t, files, 100, "Go files read")
	for _, o := range offences {
		assert.Fail(t, o)
	}
}

// TestOneAssertionStylePlanted: the rule finds a plain comparison planted
// in a test file, in both shapes, and passes the same checks in testify.
func TestOneAssertionStylePlanted(t *testing.T) {
	for name, c := range map[string]struct {
		src  string
		want string
	}{
		"t.Errorf":   {"if got != want {\n\t\tt.Errorf(\"got %d, want %d\", got, want)\n\t}", "t.Errorf"},
		"b.Fatal":    {"if got != want {\n\t\tb.Fatal(got)\n\t}", "b.Fatal"},
		"rapid":      {"rapid.Check(t, func(rt *rapid.T) {\n\t\trt.Fatalf(\"x\")\n\t})", "rt.Fatalf"},
		"Fail alone": {"if got != want {\n\t\tassert.Fail(t, \"differ\")\n\t}", "assert.Fail"},
		"testify":    {"assert.Equal(t, want, got)\n\tif !assert.Equal(t, want, got) {\n\t\treturn\n\t}\n\tif got > 2 {\n\t\tt.Log(got)\n\t\tassert.Fail(t, \"big\")\n\t}", ""},
	} {
		root := t.TempDir()
		src := fmt.Sprintf("package p\n\nfunc TestX(t *testing.T, b *testing.B) {\n\tgot, want := 1, 2\n\t%s\n}\n", c.src)
		require.NoError(t, os.WriteFile(filepath.Join(root, "p_test.go"), []byte(src), 0o644))
		offences, files, err := assertionStyleOffences(root)
		require.NoError(t, err, name)
		require.Equal(t, 1, files, name)
		if c.want == "" {
			assert.Empty(t, offences, name)
			continue
		}
		if assert.Len(t, offences, 1, name) {
			assert.Contains(t, offences[0], "p_test.go:", name)
			assert.Contains(t, offences[0], c.want, name)
		}
	}
}

// testingParams are the parameter types through which a test fails.
var testingParams = map[string]bool{
	"*testing.T": true, "*testing.B": true, "*testing.F": true, "testing.TB": true, "*rapid.T": true,
}

// assertionStyleOffences reads every Go file under root and gives each
// check not written with testify as "file:line: what", with the number of
// files read.
func assertionStyleOffences(root string) ([]string, int, error) {
	var offences []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		offences = append(offences, fileOffences(fset, rel, f)...)
		return nil
	})
	return offences, files, err
}

func fileOffences(fset *token.FileSet, rel string, f *ast.File) []string {
	// The names of the file's testing parameters (t, b, f, tb, rt, ...).
	params := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft = n.Type
		case *ast.FuncLit:
			ft = n.Type
		default:
			return true
		}
		for _, p := range ft.Params.List {
			if testingParams[typeText(p.Type)] {
				for _, id := range p.Names {
					params[id.Name] = true
				}
			}
		}
		return true
	})
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s:%d: %s: write the check with testify (assert for checks, require for what the test cannot go on without)", rel, fset.Position(n.Pos()).Line, what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || !params[id.Name] {
				return true
			}
			switch sel.Sel.Name {
			case "Error", "Errorf", "Fatal", "Fatalf":
				at(n, id.Name+"."+sel.Sel.Name)
			}
		case *ast.IfStmt:
			if n.Else != nil || len(n.Body.List) != 1 {
				return true
			}
			if name, ok := testifyFail(n.Body.List[0]); ok {
				at(n, "an if holding only "+name)
			}
		}
		return true
	})
	return out
}

// testifyFail reports whether s is a call of testify's Fail, Failf,
// FailNow or FailNowf, and which.
func testifyFail(s ast.Stmt) (string, bool) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return "", false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || (pkg.Name != "assert" && pkg.Name != "require") || !strings.HasPrefix(sel.Sel.Name, "Fail") {
		return "", false
	}
	return pkg.Name + "." + sel.Sel.Name, true
}

// typeText is a parameter type's text: *testing.T, testing.TB, *rapid.T.
func typeText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + typeText(e.X)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return ""
}
