//go:build unix

package render

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new trace gets the permissions os.Create would give it (0666 less the
// umask); a replaced one keeps its own.
func TestOutputHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	write := func(path string) {
		t.Helper()
		o, err := CreateOutput(path, nil)
		require.NoError(t, err)
		io.WriteString(o, "{}")
		require.NoError(t, o.Commit())
	}
	fresh := filepath.Join(dir, "t.json.gz")
	write(fresh)
	if st, err := os.Stat(fresh); assert.NoError(t, err, "new trace under umask 077") {
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "new trace under umask 077: mode")
	}
	shared := filepath.Join(dir, "shared.json")
	require.NoError(t, os.WriteFile(shared, nil, 0o600))
	require.NoError(t, os.Chmod(shared, 0o640))
	write(shared)
	if st, err := os.Stat(shared); assert.NoError(t, err, "replaced trace") {
		assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "replaced trace: mode, want its own")
	}
}
