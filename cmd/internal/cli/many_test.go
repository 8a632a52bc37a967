package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyCaptures writes a manifest of n captures (links to one example
// capture, each its own rank) and returns its path.
func manyCaptures(t *testing.T, n int) string {
	dir := t.TempDir()
	src, err := filepath.Abs("../../../examples/aiv_pipeline.npy")
	require.NoError(t, err)
	var m strings.Builder
	for i := range n {
		name := fmt.Sprintf("c%d.npy", i)
		require.NoError(t, os.Symlink(src, filepath.Join(dir, name)))
		fmt.Fprintf(&m, "- {capture: %s, rank: %d}\n", name, i)
	}
	path := filepath.Join(dir, "window.yaml")
	require.NoError(t, os.WriteFile(path, []byte(m.String()), 0o644))
	return path
}

// withOpenFileLimit runs f with the soft limit on open files lowered to
// what the process has open now and a few more.
func withOpenFileLimit(t *testing.T, spare uint64, f func()) {
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old))
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	lim := old
	lim.Cur = min(old.Cur, uint64(len(fds))+spare)
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	defer func() {
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old))
	}()
	f()
}

// A manifest of more captures than the process may open files: decode,
// analyze and validate read them all (each capture's file is open only
// while it is read).
func TestManyCapturesFewFiles(t *testing.T) {
	t.Parallel()
	const n = 300
	manifest := manyCaptures(t, n)
	dir := filepath.Dir(manifest)
	withOpenFileLimit(t, 100, func() {
		_, errOut, code := runMain(t, "decode", "--invocation-manifest", manifest, "-o", filepath.Join(dir, "trace.json"))
		assert.Equalf(t, 0, code, "%s: code", errOut)
		assert.Contains(t, errOut, fmt.Sprintf("from %d capture(s)", n), "errOut")
		out, errOut, code := runMain(t, "analyze", "--invocation-manifest", manifest, "--format", "csv", "--table", "cores")
		assert.Equalf(t, 0, code, "%s: code", errOut)
		assert.Contains(t, out, fmt.Sprintf("\n%d,", n-1), "the last rank's cores: out")
		out, errOut, code = runMain(t, "validate", "--invocation-manifest", manifest)
		assert.Equalf(t, 0, code, "%s: code", errOut)
		assert.Equal(t, n, strings.Count(out, ": 1800 records, 0 dropped; 0 errors; 0 warnings;"), "one summary per capture")
		at := -1
		for i := range n {
			next := strings.Index(out, fmt.Sprintf("/c%d.npy (", i))
			require.Greaterf(t, next, at, "capture %d is shown after capture %d: next", i, i-1)
			at = next
		}
	})
}

// A capture of a manifest that cannot be read is named with the
// manifest's line.
func TestManifestCaptureErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	manifest := manyCaptures(t, 5)
	dir := filepath.Dir(manifest)
	require.NoError(t, os.Remove(filepath.Join(dir, "c3.npy")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c3.npy"), []byte("not a capture at all, but some text"), 0o644))
	_, errOut, code := runMain(t, "decode", "--invocation-manifest", manifest, "-o", filepath.Join(dir, "trace.json"))
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, manifest+":4: ", "errOut")
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", manifest)
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, manifest+":4: ", "errOut")
}
