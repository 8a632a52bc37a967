package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// manyCaptures writes a manifest of n captures (links to one example
// capture, each its own rank) and returns its path.
func manyCaptures(t *testing.T, n int) string {
	dir := t.TempDir()
	src, err := filepath.Abs("../../../examples/aiv_pipeline.npy")
	if err != nil {
		t.Fatal(err)
	}
	var m strings.Builder
	for i := range n {
		name := fmt.Sprintf("c%d.npy", i)
		if err := os.Symlink(src, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&m, "- {capture: %s, rank: %d}\n", name, i)
	}
	path := filepath.Join(dir, "window.yaml")
	if err := os.WriteFile(path, []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// withOpenFileLimit runs f with the soft limit on open files lowered to
// what the process has open now and a few more.
func withOpenFileLimit(t *testing.T, spare uint64, f func()) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	lim := old
	lim.Cur = min(old.Cur, uint64(len(fds))+spare)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
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
		if code != 0 {
			t.Errorf("%s: code = %v, want 0", errOut, code)
		}
		if !strings.Contains(errOut, fmt.Sprintf("from %d capture(s)", n)) {
			t.Errorf("errOut = %q, want it to contain %q", errOut, fmt.Sprintf("from %d capture(s)", n))
		}
		out, errOut, code := runMain(t, "analyze", "--invocation-manifest", manifest, "--format", "csv", "--table", "cores")
		if code != 0 {
			t.Errorf("%s: code = %v, want 0", errOut, code)
		}
		if !strings.Contains(out, fmt.Sprintf("\n%d,", n-1)) {
			t.Errorf("the last rank's cores: out = %q, want it to contain %q", out, fmt.Sprintf("\n%d,", n-1))
		}
		out, errOut, code = runMain(t, "validate", "--invocation-manifest", manifest)
		if code != 0 {
			t.Errorf("%s: code = %v, want 0", errOut, code)
		}
		if got := strings.Count(out, ": 1800 records, 0 dropped; 0 errors; 0 warnings;"); got != n {
			t.Errorf("one summary per capture: got %v, want %v", got, n)
		}
		at := -1
		for i := range n {
			next := strings.Index(out, fmt.Sprintf("/c%d.npy (", i))
			if next <= at {
				t.Fatalf("capture %d is shown after capture %d: next = %v, want > %v", i, i-1, next, at)
			}
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
	if err := os.Remove(filepath.Join(dir, "c3.npy")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c3.npy"), []byte("not a capture at all, but some text"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runMain(t, "decode", "--invocation-manifest", manifest, "-o", filepath.Join(dir, "trace.json"))
	if code != 1 {
		t.Errorf("%s: code = %v, want 1", errOut, code)
	}
	if !strings.Contains(errOut, manifest+":4: ") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, manifest+":4: ")
	}
	_, errOut, code = runMain(t, "analyze", "--invocation-manifest", manifest)
	if code != 1 {
		t.Errorf("%s: code = %v, want 1", errOut, code)
	}
	if !strings.Contains(errOut, manifest+":4: ") {
		t.Errorf("errOut = %q, want it to contain %q", errOut, manifest+":4: ")
	}
}
