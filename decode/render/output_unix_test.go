//go:build unix

package render

import (
	"fmt"
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
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o600 {
		assert.Fail(t, fmt.Sprintf("new trace under umask 077: mode %v, want 0600 (%v)", st.Mode(), err))
	}
	shared := filepath.Join(dir, "shared.json")
	require.NoError(t, os.WriteFile(shared, nil, 0o600))
	require.NoError(t, os.Chmod(shared, 0o640))
	write(shared)
	if st, err := os.Stat(shared); err != nil || st.Mode().Perm() != 0o640 {
		assert.Fail(t, fmt.Sprintf("replaced trace: mode %v, want its own 0640 (%v)", st.Mode(), err))
	}
}
