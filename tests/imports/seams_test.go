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
		{"decode", []string{"decode/render", "decode/chromejson", "decode/perfetto", "decode/flows", "decode/kernelnames", "cmd/cycleabi"},
			"decode walks and merges records; the writers, arrows and names are above it"},
		{"decode/kernelnames", []string{"decode", "decode/render", "decode/chromejson", "decode/perfetto", "decode/flows", "cmd/cycleabi"},
			"a names file is read without a capture (dump, analyze and export read it too)"},
		{"decode/flows", []string{"decode/render", "decode/chromejson", "decode/perfetto", "cmd/cycleabi"},
			"the arrows are found without a writer (analyze uses them)"},
		{"decode/render", []string{"decode/chromejson", "decode/perfetto", "cmd/cycleabi"},
			"the pipeline and what the writers share sit below both formats"},
		{"decode/chromejson", []string{"decode/perfetto", "cmd/cycleabi"},
			"the JSON writer links no protobuf encoder, and its tests hold the JSON on its own"},
		{"decode/perfetto", []string{"cmd/cycleabi"},
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
		{"tracemerge", []string{module + "decode/chromejson", module + "decode/perfetto", protowire}},
		{"analyze", []string{module + "decode/render", module + "decode/chromejson", module + "decode/perfetto", protowire}},
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
