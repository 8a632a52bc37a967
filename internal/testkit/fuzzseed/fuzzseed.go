// Package fuzzseed seeds fuzz targets whose input is a whole text file
// (schema, schedule, names file) with the committed files of that kind.
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Files adds the contents of every file matching each glob pattern as one
// seed of f. It fails f when a pattern is malformed, a file cannot be read
// or no file matches at all (a moved folder would otherwise leave the
// target with no seeds, silently).
func Files(f *testing.F, patterns ...string) {
	f.Helper()
	n := 0
	for _, p := range patterns {
		paths, err := filepath.Glob(p)
		require.NoError(f, err)
		for _, path := range paths {
			data, err := os.ReadFile(path)
			require.NoError(f, err)
			f.Add(data)
			n++
		}
	}
	require.NotZero(f, n, "no seed files match %v", patterns)
}
