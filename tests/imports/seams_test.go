package imports

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// load reads the package at path (relative to the module root) through
// go/build, as TestInternalIsBelowTheProducts does.
func load(t *testing.T, path string) *build.Package {
	t.Helper()
	p, err := build.ImportDir(filepath.Join("..", "..", filepath.FromSlash(path)), 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
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
		{"decode", []string{"decode/render", "decode/perfetto", "decode/flows", "decode/kernelnames", "internal/cli"},
			"decode walks and merges records; the writers, arrows and names are above it"},
		{"decode/kernelnames", []string{"decode", "decode/render", "decode/perfetto", "decode/flows", "internal/cli"},
			"a names file is read without a capture (dump, analyze and export read it too)"},
		{"decode/flows", []string{"decode/render", "decode/perfetto", "internal/cli"},
			"the arrows are found without a writer (analyze uses them)"},
		{"decode/render", []string{"decode/perfetto", "internal/cli"},
			"the JSON writer and the pipeline link no protobuf encoder (tracemerge writes JSON through them)"},
		{"decode/perfetto", []string{"internal/cli"},
			"the CLI is a thin layer over the writers, never below them"},
	} {
		p := load(t, rule.pkg)
		for _, imp := range append(slices.Clone(p.Imports), p.TestImports...) {
			dep, ours := strings.CutPrefix(imp, module)
			if ours && slices.Contains(rule.banned, dep) {
				t.Errorf("%s imports %s: %s", rule.pkg, dep, rule.why)
			}
		}
	}
}

// TestLinkedOnlyWhatIsUsed: of decode's packages, tracemerge and analyze
// link (import, directly or through the module's packages) only what they
// use: tracemerge writes JSON, never Perfetto's protobuf; analyze reads
// records, names and arrows, and writes no trace.
func TestLinkedOnlyWhatIsUsed(t *testing.T) {
	for _, rule := range []struct {
		pkg    string
		banned []string // import paths, of the module or not
	}{
		{"tracemerge", []string{module + "decode/perfetto", "google.golang.org/protobuf/encoding/protowire"}},
		{"analyze", []string{module + "decode/render", module + "decode/perfetto", "google.golang.org/protobuf/encoding/protowire"}},
	} {
		linked := closure(t, rule.pkg)
		if !linked[module+"decode"] {
			t.Fatalf("%s does not link decode: the rule tests nothing", rule.pkg)
		}
		for _, b := range rule.banned {
			if linked[b] {
				t.Errorf("%s links %s", rule.pkg, b)
			}
		}
	}
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
