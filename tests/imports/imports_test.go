package imports

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/megakernel/cycleabi/"

// TestInternalIsBelowTheProducts: every package under internal/ imports,
// of this module, only packages under internal/ (test files count too).
// The command line the binaries share is above every product package, in
// cmd/internal/cli (TestCLIIsTheTop), so there is no exception.
// The files are read here, through go/build, rather than by a go list
// subprocess, so that go test's cache sees them.
func TestInternalIsBelowTheProducts(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	internal := 0
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		internal++
		rel, _ := filepath.Rel(filepath.Join("..", ".."), dir)
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			dep, ours := strings.CutPrefix(imp, module)
			if ours {
				assert.Truef(t, strings.HasPrefix(dep, "internal/"), "%s imports %s: internal/ holds infrastructure, below every product package", filepath.ToSlash(rel), dep)
			}

		}
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqualf(t, internal, 5, "found packages under %s", root)
}
