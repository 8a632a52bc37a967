//go:build unix

package render

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(o, "{}")
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(dir, "t.json.gz")
	write(fresh)
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("new trace under umask 077: mode %v, want 0600 (%v)", st.Mode(), err)
	}
	shared := filepath.Join(dir, "shared.json")
	if err := os.WriteFile(shared, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o640); err != nil {
		t.Fatal(err)
	}
	write(shared)
	if st, err := os.Stat(shared); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("replaced trace: mode %v, want its own 0640 (%v)", st.Mode(), err)
	}
}
