package imports

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layoutStages are the files of capture/internal/layoutsearch in the
// order a resolution's data flows through them (docs/layout.md): the
// evidence the buffer gives, what the search tries and finds, the rules
// and the pass that applies them, the decision, its wording, and Resolve,
// which runs the decision and words it. A function may call functions of
// its own file and of the files before it (the stages whose data it
// consumes), never of one after it: no stage calls back into a later one.
var layoutStages = []string{"evidence.go", "search.go", "rules.go", "decide.go", "words.go", "layoutsearch.go"}

// TestLayoutSearchReadsOneWay: the layout finder's files call in one
// direction only, as layoutStages orders them, and every non-test file of
// the package is one of them.
func TestLayoutSearchReadsOneWay(t *testing.T) {
	dir := filepath.Join("..", "..", "capture", "internal", "layoutsearch")
	srcs := map[string]string{}
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		srcs[filepath.Base(p)] = string(b)
	}
	for _, back := range backCalls(t, srcs, layoutStages) {
		assert.Fail(t, back)
	}
}

// TestBackCallsFindsPlanted: backCalls reports a call from an earlier
// stage's file to a later one's, whether to a function or a method, and
// says nothing of calls within a file or to an earlier one.
func TestBackCallsFindsPlanted(t *testing.T) {
	srcs := map[string]string{
		"a.go": "package p\n\ntype T struct{}\n\nfunc (T) m() int { return 1 }\n\nfunc leaf() int { return T{}.m() }\n",
		"b.go": "package p\n\nfunc mid() int { return leaf() + T{}.m() }\n",
		"c.go": "package p\n\nfunc top() int { return mid() + leaf() }\n",
	}
	order := []string{"a.go", "b.go", "c.go"}
	require.Empty(t, backCalls(t, srcs, order), "backCalls on calls that read one way")
	srcs["a.go"] += "\nfunc planted() int { return top() }\n"
	srcs["b.go"] += "\nfunc (T) n() int { return top() }\n"
	want := []string{"a.go:9: planted calls top, of c.go, a later stage", "b.go:5: T.n calls top, of c.go, a later stage"}
	assert.Truef(t, slices.Equal(backCalls(t, srcs, order), want), "backCalls found\nwant\n%q", want)
	// The same in the package itself: a call from the evidence back to
	// the decision.
	dir := filepath.Join("..", "..", "capture", "internal", "layoutsearch")
	real := map[string]string{}
	for _, name := range layoutStages {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		real[name] = string(b)
	}
	real["evidence.go"] += "\nfunc (f *finder) planted() { f.decide(Request{}) }\n"
	got := backCalls(t, real, layoutStages)
	require.Len(t, got, 1, "backCalls on a planted call from evidence.go to decide.go")
	assert.Contains(t, got[0], "finder.planted calls decide, of decide.go, a later stage", "backCalls on a planted call from evidence.go to decide.go")
}

// backCalls type-checks the files srcs (name to text, one package) and
// returns each call from a function of one file to a function or method
// declared in a file after it in order, as "file:line: caller calls
// callee, of file, a later stage". A file order does not name is an error.
func backCalls(t *testing.T, srcs map[string]string, order []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		if !assert.Truef(t, slices.Contains(order, name), "%s is not among the stages %v: place it in the order", name, order) {
			continue
		}
		f, err := parser.ParseFile(fset, name, srcs[name], parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		from := fset.Position(f.Pos()).Filename
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			caller := fd.Name.Name
			if fd.Recv != nil {
				caller = recvName(fd.Recv.List[0].Type) + "." + caller
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch x := ast.Unparen(call.Fun).(type) {
				case *ast.Ident:
					id = x
				case *ast.SelectorExpr:
					id = x.Sel
				case *ast.IndexExpr: // a generic function instantiated
					if i, ok := x.X.(*ast.Ident); ok {
						id = i
					}
				}
				fn, ok := info.Uses[id].(*types.Func)
				if id == nil || !ok || fn.Pkg() != pkg {
					return true
				}
				to := fset.Position(fn.Pos()).Filename
				if slices.Index(order, to) > slices.Index(order, from) {
					out = append(out, fmt.Sprintf("%s:%d: %s calls %s, of %s, a later stage", from, fset.Position(call.Pos()).Line, caller, fn.Name(), to))
				}
				return true
			})
		}
	}
	return out
}

// recvName is the name of a method's receiver type, without a pointer.
func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}
