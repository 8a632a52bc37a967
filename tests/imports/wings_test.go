package imports

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two wings of internal/ beside the basement: the generator wing
// (internal/abigen/...: the schema model, the emitters, abigen diff),
// which cmd/abigen runs, and the test kit (internal/testkit/...), which
// only tests use.
const (
	abigenDir  = "internal/abigen/"
	testkitDir = "internal/testkit/"
)

// modulePackage is one package of the module: its directory from the
// module's root, with slashes, and what go/build reads of it.
type modulePackage struct {
	rel string
	p   *build.Package
}

// imports returns the module's packages pkg imports (paths from the
// module's root): its files' when tests is false, its test files' too
// when it is true.
func (m modulePackage) imports(tests bool) []string {
	all := slices.Clone(m.p.Imports)
	if tests {
		all = append(append(all, m.p.TestImports...), m.p.XTestImports...)
	}
	var ours []string
	for _, imp := range all {
		if dep, ok := strings.CutPrefix(imp, module); ok {
			ours = append(ours, dep)
		}
	}
	return ours
}

// modulePackages returns every package of the module (testdata and
// node_modules aside), read through go/build so that go test's cache
// sees the files.
func modulePackages(t *testing.T) []modulePackage {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []modulePackage
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
		out = append(out, modulePackage{rel: filepath.ToSlash(rel), p: p})
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqualf(t, len(out), 50, "read packages under %s", root)
	return out
}

// under reports whether the package at rel is dir or below it (dir ends
// with a slash).
func under(rel, dir string) bool { return rel+"/" == dir || strings.HasPrefix(rel, dir) }

// TestGeneratorWingImportsNoProduct: a package of the generator wing
// imports, of the module, only the wing, the basement of internal/ and,
// in its tests, the test kit, so that abigen runs whatever state the
// products are in. The command line (cmd/internal/cli) is no part of the
// basement.
func TestGeneratorWingImportsNoProduct(t *testing.T) {
	wing := 0
	for _, m := range modulePackages(t) {
		if !under(m.rel, abigenDir) {
			continue
		}
		wing++
		for _, dep := range m.imports(true) {
			require.Truef(t, strings.HasPrefix(dep, "internal/"), "%s imports", m.rel)
			require.NotEqualf(t, "internal/cli", dep, "%s imports", m.rel)
			assert.Falsef(t, strings.HasPrefix(dep, "internal/cli/"), "%s imports", m.rel)
		}
	}
	require.GreaterOrEqualf(t, wing, 5, "found packages under %s", abigenDir)
}

// abigenUsers are the places outside the wing that may import it: the
// command that runs it, and the tests and tools that check what it
// generates.
var abigenUsers = []string{"cmd/abigen/", "fuzz/", "tests/", "scripts/"}

// TestProductsImportNoGenerator: no product package imports a package of
// the generator wing, tests included: the products read the ABI through
// gen/go/abi, which the wing writes. Only cmd/abigen, fuzz/, tests/ and
// scripts/ use the wing.
func TestProductsImportNoGenerator(t *testing.T) {
	users := 0
	for _, m := range modulePackages(t) {
		if under(m.rel, abigenDir) {
			continue
		}
		allowed := slices.ContainsFunc(abigenUsers, func(dir string) bool { return under(m.rel, dir) })
		for _, dep := range m.imports(true) {
			if !under(dep, abigenDir) {
				continue
			}
			assert.Truef(t, allowed, "%s imports %s: a product package reads the ABI through gen/go/abi, never the generator", m.rel, dep)
			users++
		}
	}
	require.NotEqual(t, 0, users, "nothing imports the generator wing: the rule tests nothing")
}

// TestTestkitOnlyInTests: the test kit is imported by test files only
// (and by its own packages), so no binary links a test helper or its
// -update flag.
func TestTestkitOnlyInTests(t *testing.T) {
	users := 0
	for _, m := range modulePackages(t) {
		if under(m.rel, testkitDir) {
			continue
		}
		for _, dep := range m.imports(false) {
			assert.Falsef(t, under(dep, testkitDir), "%s imports %s outside its tests: the test kit is for tests only", m.rel, dep)
		}
		for _, dep := range m.imports(true) {
			if under(dep, testkitDir) {
				users++
			}
		}
	}
	require.NotEqual(t, 0, users, "no test imports the test kit: the rule tests nothing")
}
