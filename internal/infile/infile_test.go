//go:build unix

package infile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
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
		t.Fatalf("Open(%s) still blocked after 5 s", path)
		return nil, nil, nil
	}
}

func TestOpenRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cap.bin")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, st, err := openWithin(t, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := st.Size(); got != int64(3) {
		t.Errorf("st.Size() = %v, want %v", got, int64(3))
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "abc" {
		t.Errorf("string(b) = %q, want %q", got, "abc")
	}
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none")
	_, _, err := openWithin(t, path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want one matching %v", err, fs.ErrNotExist)
	}
	if err == nil || err.Error() != "open "+path+": no such file or directory" {
		t.Errorf("error %v, want %q", err, "open "+path+": no such file or directory")
	}
}

func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
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
			t.Errorf("%s: error %v (%T), want a *NotRegularError", c.path, err, err)
		} else {
			if nr.Kind != c.kind {
				t.Errorf("nr.Kind = %q, want %q", nr.Kind, c.kind)
			}
			if err == nil || err.Error() != c.path+": is "+c.kind+", not a regular file; inputs are read from regular files only (save the data to a file first)" {
				t.Errorf("error %v, want %q", err, c.path+": is "+c.kind+", not a regular file; inputs are read from regular files only (save the data to a file first)")
			}
		}
	}
}

// Standard input redirected from a regular file is that file.
func TestOpenDevStdinRedirected(t *testing.T) {
	if _, err := os.Stat("/dev/stdin"); err != nil {
		t.Skip("no /dev/stdin")
	}
	path := filepath.Join(t.TempDir(), "names.yaml")
	if err := os.WriteFile(path, []byte("tasks: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved, err := syscall.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(in.Fd()), 0); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Dup2(saved, 0); syscall.Close(saved) }()
	f, st, err := openWithin(t, "/dev/stdin")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := st.Size(); got != int64(10) {
		t.Errorf("st.Size() = %v, want %v", got, int64(10))
	}
}
