package outfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDirCreate: a file created in a folder holds what was written to it,
// in writes across several write-back chunks, once the folder is
// committed; nothing is created once it is.
func TestDirCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	d, err := CreateDir(path)
	require.NoError(t, err)
	defer d.Abort()
	f, err := d.Create("sub/part.bin")
	require.NoError(t, err)
	var want []byte
	for i := range 3*writebackChunk/(1<<20) + 1 {
		b := bytes.Repeat([]byte{byte(i)}, 1<<20+i)
		want = append(want, b...)
		n, err := f.Write(b)
		require.NoError(t, err, "write %d", i)
		require.Equal(t, len(b), n, "write %d", i)
	}
	require.NoError(t, f.Close())
	require.NoError(t, d.Commit())
	got, err := os.ReadFile(filepath.Join(path, "sub", "part.bin"))
	require.NoErrorf(t, err, "%d bytes read, %d written", len(got), len(want))
	require.Equalf(t, []byte(want), []byte(got), "%d bytes read, %d written", len(got), len(want))
	_, err = d.Create("late.bin")
	assert.Error(t, err, "Create after Commit succeeded")
}
