package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Parked captures keep at most MaxParkedOpen files open, read the same
// bytes after their file was closed, and refuse a file that changed.
func TestOpenParked(t *testing.T) {
	old := MaxParkedOpen
	MaxParkedOpen = 2
	defer func() { MaxParkedOpen = old }()
	dir := t.TempDir()
	var caps []*Capture
	var want [][]byte
	for i := range 5 {
		b := bytes.Repeat([]byte{byte(i + 1)}, 4096)
		path := filepath.Join(dir, fmt.Sprintf("c%d.bin", i))
		require.NoError(t, os.WriteFile(path, b, 0o644))
		c, err := OpenParked(path, false)
		require.NoError(t, err)
		defer c.Close()
		caps, want = append(caps, c), append(want, b)
	}
	openNow := func() int {
		parking.mu.Lock()
		defer parking.mu.Unlock()
		return parking.open.Len()
	}
	for round := range 3 {
		for i, c := range caps {
			got := make([]byte, 100)
			_, err := c.ReadAt(got, int64(round*100))
			require.NoError(t, err)
			require.Equalf(t, want[i][:100], got, "capture %d round %d", i, round)
			require.LessOrEqual(t, openNow(), MaxParkedOpen)
		}
	}
	// caps[0] was closed long ago: it is opened again, and found changed.
	path := filepath.Join(dir, "c0.bin")
	require.NoError(t, os.WriteFile(path, make([]byte, 8192), 0o644))
	os.Chtimes(path, time.Now(), time.Now().Add(time.Hour))
	_, err := caps[0].ReadAt(make([]byte, 10), 0)
	require.Errorf(t, err, "changed file: %v", err)
	require.Containsf(t, string([]byte(err.Error())), string([]byte("c0.bin: the file changed while it was being read (4096 bytes at first, 8192 now)")), "changed file: %v", err)
	caps[1].Close()
	_, err = caps[1].ReadAt(make([]byte, 10), 0)
	require.Error(t, err, "a read after Close succeeded")
}
