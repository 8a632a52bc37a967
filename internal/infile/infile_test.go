//go:build unix

package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openWithin runs Open(path) and fails the test when it has not returned
// after a few seconds (a FIFO with no writer used to block open forever).
func openWithin(t *testing.T, path string) (*os.File, fs.FileInfo, error) {
	t.Helper()
	type result struct {
		f   *os.File
		st  fs.FileInfo
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, st, err := Open(path)
		done <- result{f, st, err}
	}()
	select {
	case r := <-done:
		return r.f, r.st, r.err
	case <-time.After(5 * time.Second):
		require.FailNow(t, fmt.Sprintf("Open(%s) still blocked after 5 s", path))
		return nil, nil, nil
	}
}

func TestOpenRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cap.bin")
	require.NoError(t, os.WriteFile(path, []byte("abc"), 0o644))
	f, st, err := openWithin(t, path)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, int64(3), st.Size(), "st.Size()")
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(b), "string(b)")
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none")
	_, _, err := openWithin(t, path)
	assert.ErrorIsf(t, err, fs.ErrNotExist, "error %v, want one matching %v", err, fs.ErrNotExist)
	assert.EqualErrorf(t, err, "open "+path+": no such file or directory", "error %v, want %q", err, "open "+path+": no such file or directory")
}

func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if runtime.GOOS != "windows" {
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "a named pipe (FIFO)"},
		{dir, "a directory"},
		{os.DevNull, "a character device"},
	} {
		f, _, err := openWithin(t, c.path)
		if f != nil {
			f.Close()
		}
		var nr *NotRegularError
		if !errors.As(err, &nr) {
			assert.Fail(t, fmt.Sprintf("%s: error %v (%T), want a *NotRegularError", c.path, err, err))
		} else {
			assert.Equal(t, c.kind, nr.Kind, "nr.Kind")
			assert.EqualErrorf(t, err, c.path+": is "+c.kind+", not a regular file; inputs are read from regular files only (save the data to a file first)", "error %v, want %q", err, c.path+": is "+c.kind+", not a regular file; inputs are read from regular files only (save the data to a file first)")
		}
	}
}

// Standard input redirected from a regular file is that file.
func TestOpenDevStdinRedirected(t *testing.T) {
	if _, err := os.Stat("/dev/stdin"); err != nil {
		t.Skip("no /dev/stdin")
	}
	path := filepath.Join(t.TempDir(), "names.yaml")
	require.NoError(t, os.WriteFile(path, []byte("tasks: {}\n"), 0o644))
	in, err := os.Open(path)
	require.NoError(t, err)
	defer in.Close()
	saved, err := syscall.Dup(0)
	require.NoError(t, err)
	require.NoError(t, syscall.Dup2(int(in.Fd()), 0))
	defer func() { syscall.Dup2(saved, 0); syscall.Close(saved) }()
	f, st, err := openWithin(t, "/dev/stdin")
	require.NoError(t, err)
	f.Close()
	assert.Equal(t, int64(10), st.Size(), "st.Size()")
}
