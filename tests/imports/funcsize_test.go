package imports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxFuncLines is the most lines a hand-written function holds, from its
// func keyword to its closing brace: a longer one is split by section or
// stage (docs/development.md).
const maxFuncLines = 120

// longFuncs are the functions allowed over maxFuncLines, by package name
// and function ("cli.runDecode"): none now. An entry is for a function
// being split on another branch; the list only shrinks, and an entry
// whose function is no longer long fails the test so that it goes.
var longFuncs = map[string]bool{}

// TestNoFuncOverMaxLines: no function of a hand-written non-test file is
// over maxFuncLines lines, longFuncs aside. Test files are left out: a
// table of cases or a scenario reads best whole.
func TestNoFuncOverMaxLines(t *testing.T) {
	long := map[string]bool{}
	for _, f := range handWritten(t) {
		if strings.HasSuffix(f.rel, "_test.go") {
			continue
		}
		for _, fn := range funcsOver(t, f, maxFuncLines) {
			long[fn.key] = true
			assert.Truef(t, longFuncs[fn.key], "%s: %s is %d lines, more than %d: split it by section or stage", fn.at, fn.key, fn.lines, maxFuncLines)
		}
	}
	for key := range longFuncs {
		assert.Truef(t, long[key], "longFuncs lists %s, which is no longer over %d lines (or is gone): take it off", key, maxFuncLines)
	}
}

// longFunc is a function over the limit: package.name (or package.func
// literal), where it starts, its length.
type longFunc struct {
	key, at string
	lines   int
}

// funcsOver returns the functions and function literals of f over max lines.
func funcsOver(t *testing.T, f goFile, max int) []longFunc {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.rel, f.src, parser.SkipObjectResolution)
	require.NoError(t, err)
	var out []longFunc
	ast.Inspect(file, func(n ast.Node) bool {
		name, body := "", (*ast.BlockStmt)(nil)
		switch x := n.(type) {
		case *ast.FuncDecl:
			name, body = x.Name.Name, x.Body
		case *ast.FuncLit:
			name, body = "func literal", x.Body
		default:
			return true
		}
		if body == nil {
			return true
		}
		start := fset.Position(n.Pos())
		if lines := fset.Position(body.End()).Line - start.Line + 1; lines > max {
			out = append(out, longFunc{key: file.Name.Name + "." + name, at: start.String(), lines: lines})
		}
		return true
	})
	return out
}

// TestFuncsOverCounts holds funcsOver to a count made by hand: ok spans
// lines 3 to 122 (120 lines, not over), long lines 124 to 244 (121), the
// literal lines 246 to 368 (123).
func TestFuncsOverCounts(t *testing.T) {
	body := func(n int) string { return strings.Repeat("\t_ = 0\n", n) }
	src := "package p\n\nfunc ok() {\n" + body(118) + "}\n\nfunc long() {\n" + body(119) + "}\n\n" +
		"var v = func() {\n" + body(121) + "}\n"
	got := funcsOver(t, goFile{rel: "p.go", src: []byte(src)}, maxFuncLines)
	want := []longFunc{{key: "p.long", at: "p.go:124:1", lines: 121}, {key: "p.func literal", at: "p.go:246:9", lines: 123}}
	require.Lenf(t, got, len(want), "funcsOver found, want %v", want)
	for i := range want {
		assert.Equal(t, want[i], got[i], "funcsOver found")
	}
}
