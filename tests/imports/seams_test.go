package imports

import (
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// load reads the package at path (relative to the module root) through
// go/build, as TestInternalIsBelowTheProducts does.
func load(t *testing.T, path string) *build.Package {
	t.Helper()
	p, err := build.ImportDir(filepath.Join("..", "..", filepath.FromSlash(path)), 0)
	require.NoErrorf(t, err, "%s", path)
	return p
}

// TestDecodeSeams: the record walk (decode) is below everything that
// uses it, and each of the packages split out of it keeps to what it
// holds. Test files that are part of a package (not its _test package)
// count: a test that reaches across a seam would need it open.
func TestDecodeSeams(t *testing.T) {
	for _, rule := range []struct {
		pkg    string
		banned []string // packages of the module pkg must not import
		why    string
	}{
		{"decode", []string{"decode/render", "decode/chromejson", "decode/perfetto", "decode/flows", "decode/kernelnames", "cmd/internal/cli"},
			"decode walks and merges records; the writers, arrows and names are above it"},
		{"decode/kernelnames", []string{"decode", "decode/render", "decode/chromejson", "decode/perfetto", "decode/flows", "cmd/internal/cli"},
			"a names file is read without a capture (dump, analyze and export read it too)"},
		{"decode/flows", []string{"decode/render", "decode/chromejson", "decode/perfetto", "cmd/internal/cli"},
			"the arrows are found without a writer (analyze uses them)"},
		{"decode/render", []string{"decode/chromejson", "decode/perfetto", "cmd/internal/cli"},
			"the pipeline and what the writers share sit below both formats"},
		{"decode/chromejson", []string{"decode/perfetto", "cmd/internal/cli"},
			"the JSON writer links no protobuf encoder, and its tests hold the JSON on its own"},
		{"decode/perfetto", []string{"cmd/internal/cli"},
			"the CLI is a thin layer over the writers, never below them"},
	} {
		p := load(t, rule.pkg)
		for _, imp := range append(slices.Clone(p.Imports), p.TestImports...) {
			dep, ours := strings.CutPrefix(imp, module)
			assert.Falsef(t, ours && slices.Contains(rule.banned, dep), "%s imports %s: %s", rule.pkg, dep, rule.why)
		}
	}
}

// TestLinkedOnlyWhatIsUsed: of decode's packages, each links (imports,
// directly or through the module's packages) only what it uses: the two
// writers link the pipeline they share, never each other (Perfetto's
// tests compare its trace with the JSON's, which their own imports
// allow); tracemerge reads JSON traces and links no writer; analyze reads
// records, names and arrows, and writes no trace.
func TestLinkedOnlyWhatIsUsed(t *testing.T) {
	protowire := "google.golang.org/protobuf/encoding/protowire"
	for _, rule := range []struct {
		pkg    string
		banned []string // import paths, of the module or not
	}{
		{"decode/chromejson", []string{module + "decode/perfetto", protowire}},
		{"decode/perfetto", []string{module + "decode/chromejson"}},
		{"decode/render", []string{module + "decode/chromejson", module + "decode/perfetto", protowire}},
		{"analyze", []string{module + "decode/render", module + "decode/chromejson", module + "decode/perfetto", protowire}},
	} {
		linked := closure(t, rule.pkg)
		require.Truef(t, linked[module+"decode"], "%s does not link decode: the rule tests nothing", rule.pkg)
		for _, b := range rule.banned {
			assert.Falsef(t, linked[b], "%s links %s", rule.pkg, b)
		}
	}
}

// TestTraceReadersLinkNoDecoder: the megaKernelCycleTrace object is one
// type, in tracemeta, which the writer (decode/render) and both readers
// use; tracemeta links only the ABI, so tracemerge, which reads a decoded
// trace and writes a framework's, links no part of the decoder, the
// capture reader or the planner (it once linked decode/render, and with
// it all of those, for one constant).
func TestTraceReadersLinkNoDecoder(t *testing.T) {
	decoder := []string{module + "decode", module + "decode/render", module + "decode/chromejson", module + "decode/perfetto", module + "decode/flows", module + "capture", module + "plan", "google.golang.org/protobuf/encoding/protowire"}
	for _, pkg := range []string{"tracemeta", "tracemerge"} {
		linked := closure(t, pkg)
		assert.Falsef(t, pkg != "tracemeta" && !linked[module+"tracemeta"], "%s does not link tracemeta: it reads the megaKernelCycleTrace object into a type of its own", pkg)
		for _, b := range decoder {
			assert.Falsef(t, linked[b], "%s links %s: a reader of traces needs no decoder", pkg, strings.TrimPrefix(b, module))
		}
	}
	for _, pkg := range []string{"decode/render", "jsontrace"} {
		assert.Truef(t, closure(t, pkg)[module+"tracemeta"], "%s does not link tracemeta: the megaKernelCycleTrace object is one type", pkg)
	}
}

// TestOneProgramLinksNoNetworkOrReflection: cycleabi is one program,
// export in it (export/internal/pq writes the Parquet), and it links
// neither parquet-go (export's tests read every file back with it: a
// test-only dependency), protobuf's reflection (cycleabi encodes
// Perfetto's protobuf with protowire alone) nor HTTP and TLS.
// parquet-go's writer linked every codec, brotli and through its http.go
// net/http and crypto/tls, and protobuf's reflection: 15.4 MB of binary
// (docs/performance.md#start-cost). The packages are those `go list
// -deps ./cmd/cycleabi` lists for a make build (CGO_ENABLED=0), and
// those fullClosure follows through go/build (whose files go test's cache
// sees).
func TestOneProgramLinksNoNetworkOrReflection(t *testing.T) {
	linked := fullClosure(t, "cmd/cycleabi")
	cmd := exec.Command("go", "list", "-deps", "./cmd/cycleabi")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps ./cmd/cycleabi")
	for _, p := range strings.Fields(string(out)) {
		linked[p] = true
	}
	for _, want := range []string{module + "cmd/internal/cli", module + "export", module + "export/internal/pq", "google.golang.org/protobuf/encoding/protowire", "os"} {
		require.Truef(t, linked[want], "cmd/cycleabi does not link %s: the closure is not followed (%d packages)", want, len(linked))
	}
	found := linkedUnder(linked, bannedFromCycleabi)
	assert.Emptyf(t, found, "cmd/cycleabi links %s (%d packages in all): it links no Parquet library, protobuf reflection, HTTP or TLS", strings.Join(found[:min(len(found), 5)], ", "), len(found))

}

// bannedFromCycleabi are the import paths (a trailing slash: every
// package under it) cycleabi must not link.
var bannedFromCycleabi = []string{"github.com/parquet-go/", "google.golang.org/protobuf/reflect/", "google.golang.org/protobuf/proto", "net/http", "crypto/tls"}

// linkedUnder returns, sorted, the packages of linked that are one of
// banned or below one.
func linkedUnder(linked map[string]bool, banned []string) []string {
	var found []string
	for p := range linked {
		for _, b := range banned {
			if p == b || strings.HasPrefix(p, b) && (strings.HasSuffix(b, "/") || strings.HasPrefix(p[len(b):], "/")) {
				found = append(found, p)
				break
			}
		}
	}
	slices.Sort(found)
	return found
}

// TestLinkedUnder: the rule finds a package at or below a banned path and
// nothing that merely shares its first letters, so a violation planted in
// cycleabi's closure fails the rule above.
func TestLinkedUnder(t *testing.T) {
	linked := map[string]bool{
		"net/http": true, "net/http/httptrace": true, "net/httpx": true, "crypto/tls": true,
		"github.com/parquet-go/parquet-go": true, "google.golang.org/protobuf/reflect/protoreflect": true,
		"google.golang.org/protobuf/proto": true, "google.golang.org/protobuf/encoding/protowire": true, "os": true,
	}
	want := []string{"crypto/tls", "github.com/parquet-go/parquet-go", "google.golang.org/protobuf/proto", "google.golang.org/protobuf/reflect/protoreflect", "net/http", "net/http/httptrace"}
	assert.Truef(t, slices.Equal(linkedUnder(linked, bannedFromCycleabi), want), "linkedUnder, want %v", want)
}

// fullClosure returns the import path of every package pkg links, the
// standard library's and other modules' included, as go list -deps
// would (less runtime/cgo, which import "C" brings to a cgo build; make
// build links without cgo); go/build reads the files, so go test's cache
// sees them.
func fullClosure(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	type dep struct{ path, srcDir string }
	seen := map[string]bool{}
	todo := []dep{{"./" + pkg, root}}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if d.path == "C" {
			continue
		}
		p, err := build.Import(d.path, d.srcDir, 0)
		require.NoErrorf(t, err, "%s (imported from %s)", d.path, d.srcDir)
		if seen[p.ImportPath] {
			continue
		}
		seen[p.ImportPath] = true
		for _, imp := range p.Imports {
			todo = append(todo, dep{imp, p.Dir})
		}
	}
	return seen
}

// closure returns every import path pkg links: its imports, and theirs
// for the module's packages (the others are listed, not followed).
func closure(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	todo := []string{pkg}
	for len(todo) > 0 {
		path := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, imp := range load(t, path).Imports {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if dep, ours := strings.CutPrefix(imp, module); ours {
				todo = append(todo, dep)
			}
		}
	}
	return seen
}

// TestCLIIsTheTop: cmd/internal/cli, the command line, is imported only by the
// binaries of cmd/ and by nothing of the module's packages, which it sits
// above (Go's internal/ rule already keeps it from packages outside cmd/;
// this also keeps cmd/'s other programs, abigen, from it).
func TestCLIIsTheTop(t *testing.T) {
	root := filepath.Join("..", "..")
	users := 0
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		for _, imp := range append(append(slices.Clone(p.Imports), p.TestImports...), p.XTestImports...) {
			if imp != module+"cmd/internal/cli" {
				continue
			}
			assert.Truef(t, strings.HasPrefix(rel, "cmd/"), "%s imports cmd/internal/cli: the command line is above every package; only cmd/ runs it", rel)
			users++
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEqual(t, 0, users, "no package of cmd/ imports cmd/internal/cli: the rule tests nothing")
}
