package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// write creates path, writes data and commits (or aborts).
func write(t *testing.T, path, data string, commit bool) error {
	t.Helper()
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(data)); err != nil {
		f.Abort()
		return err
	}
	if !commit {
		f.Abort()
		return nil
	}
	return f.Commit()
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := write(t, path, "one", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Fatalf("out.json holds %q", got)
	}
	// Until Commit, the old file is what a reader sees.
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("two"))
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Errorf("before Commit, out.json holds %q", got)
	}
	// A nameless temporary file (Linux) needs no registering.
	if want := map[bool]int{true: 0, false: 1}[f.anon]; len(temporaries()) != want {
		t.Errorf("registered temporaries: %v, want %d", temporaries(), want)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Errorf("after Commit, out.json holds %q", got)
	}
	f.Abort() // no-op after Commit
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Errorf("Abort after Commit changed out.json to %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("second Commit: no error")
	}
	// Aborted: the old file stays, a new one never appears.
	if err := write(t, path, "partial", false); err != nil {
		t.Fatal(err)
	}
	if err := write(t, filepath.Join(dir, "new.json"), "partial", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Errorf("aborted write changed out.json to %q", got)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "out.json" {
		t.Errorf("files in the output folder: %v", names)
	}
	if len(temporaries()) != 0 {
		t.Errorf("temporaries still registered: %v", temporaries())
	}
}

// A new file gets what os.Create gives (0666 less the umask); a replaced
// file keeps its permission bits.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(ref)
	fresh := filepath.Join(dir, "fresh")
	if err := WriteFile(fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Stat(fresh); err != nil || got.Mode() != want.Mode() {
		t.Errorf("new file: %v (%v), want %v as os.Create gives", got.Mode(), err, want.Mode())
	}
	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(kept, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Stat(kept); err != nil || got.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: %v (%v), want its own 0640", got.Mode(), err)
	}
	// A read-only file is refused, as os.Create refuses it (root may
	// write anything: then both succeed).
	readOnly := filepath.Join(dir, "read-only")
	if err := os.WriteFile(readOnly, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, createErr := os.OpenFile(readOnly, os.O_WRONLY, 0)
	err = WriteFile(readOnly, []byte("x"))
	if (err == nil) != (createErr == nil) {
		t.Errorf("read-only file: %v; os.OpenFile for writing: %v", err, createErr)
	}
	if err != nil {
		if got, _ := os.ReadFile(readOnly); string(got) != "keep" {
			t.Errorf("refused read-only file now holds %q", got)
		}
	}
}

// A symbolic link is followed: its target is replaced, the link stays.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", st.Mode(), err)
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("real.json holds %q", got)
	}
}

// A device is written in place, never replaced by a regular file.
func TestDevice(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skipf("no device at %s", os.DevNull)
	}
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v %v", os.DevNull, st.Mode(), err)
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	f, err := CreateStdout("-", &buf)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("hello"))
	if err := f.Commit(); err != nil || buf.String() != "hello" {
		t.Errorf("stdout: %q, %v", buf.String(), err)
	}
}

// Errors name the path the user gave, never the temporary file, and keep
// their cause.
func TestErrorsNameTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "out.json")
	_, err := Create(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), ".tmp-") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := Create(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a folder as output: %v", err)
	}
	// A rename that fails (the target became a non-empty folder).
	target := filepath.Join(dir, "out.json")
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = f.Commit()
	if err == nil || !strings.Contains(err.Error(), "writing "+target+": ") || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("failed rename: %v", err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cap.bin")
	other := filepath.Join(dir, "other.bin")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(in, link); err != nil {
		t.Skip(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(in, hard); err != nil {
		t.Skip(err)
	}
	for _, out := range []string{in, link, hard, filepath.Join(dir, ".", "cap.bin")} {
		err := SameFile(out, other, in)
		var sf *SameFileError
		if !errors.As(err, &sf) || sf.Input != in || sf.Output != out {
			t.Errorf("SameFile(%s): %v", out, err)
		}
	}
	for _, out := range []string{other + ".json", filepath.Join(dir, "new.json")} {
		if err := SameFile(out, in, ""); err != nil {
			t.Errorf("SameFile(%s): %v", out, err)
		}
	}
	if err := SameFile(other, in); err != nil {
		t.Errorf("different files: %v", err)
	}
}

func TestScratch(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateScratch(dir, "spill-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("sorted")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "sorted" {
		t.Errorf("read back %q, %v", b, err)
	}
	if names := entries(t, dir); len(names) != 0 && len(temporaries()) != 1 {
		t.Errorf("scratch file %v visible but not registered", names)
	}
	CloseScratch(f)
	CloseScratch(f)
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("scratch file left: %v", names)
	}
}

// Outputs and scratch files opened, committed and aborted from many
// goroutines at once share the registry safely (run with -race) and leave
// exactly the committed files.
func TestConcurrentOutputs(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			path := filepath.Join(dir, fmt.Sprintf("out%d.json", i))
			f, err := Create(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Abort()
			s, err := CreateScratch(dir, "spill-*")
			if err != nil {
				t.Error(err)
				return
			}
			defer CloseScratch(s)
			f.Write([]byte(path))
			if i%2 == 0 {
				if err := f.Commit(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if names := entries(t, dir); len(names) != 8 {
		t.Errorf("files left: %v", names)
	}
	if len(temporaries()) != 0 {
		t.Errorf("temporaries still registered: %v", temporaries())
	}
}

// A file of several write-back chunks, written in pieces that straddle
// their bounds, is whole after Commit.
func TestWritebackChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	piece := make([]byte, writebackChunk/3+7)
	for i := range 10 {
		for j := range piece {
			piece[j] = byte(i*31 + j)
		}
		want.Write(piece)
		if _, err := f.Write(piece); err != nil {
			t.Fatal(err)
		}
	}
	if f.wb.unflushed == 0 || f.wb.unflushed == f.wb.written {
		t.Errorf("write-back started up to %d of %d bytes: want some chunks, not the last piece", f.wb.unflushed, f.wb.written)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file holds %d bytes, want the %d written", len(got), want.Len())
	}
}

// Replaces says whether Commit puts the output over a regular file that
// was there: never for a new file, standard output or a device.
func TestReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		path string
		want bool
	}{{path, false}, {path, true}, {Stdout, false}, {os.DevNull, false}} {
		f, err := CreateStdout(tc.path, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Replaces(); got != tc.want {
			t.Errorf("%s: Replaces() = %v, want %v", tc.path, got, tc.want)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// A file system that makes a nameless temporary file but will not name
// it (linkat fails): the bytes are copied into a named temporary file,
// which is renamed into place as usual; nothing is left behind.
func TestUnlinkableTemporary(t *testing.T) {
	dir := t.TempDir()
	if openAnonymous(dir) == nil {
		t.Skip("no nameless temporary files here")
	}
	saved := link
	link = func(*os.File, string) error { return syscall.EPERM }
	defer func() { link = saved }()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 3*writebackChunk+5)
	if err := write(t, path, big, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != big {
		t.Errorf("out.json holds %d bytes, want %d", len(got), len(big))
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want the replaced file's 0640", st.Mode(), err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("files in the output folder: %v", names)
	}
	if len(temporaries()) != 0 {
		t.Errorf("temporaries still registered: %v", temporaries())
	}
}

// TestSameFileDevice: an output that is a device (/dev/null, as standard
// output or by name) replaces no input, so --names /dev/null with
// standard output at /dev/null is not "the same file as the input"; a
// regular file is still refused.
func TestSameFileDevice(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	saved := os.Stdout
	os.Stdout = null
	err = SameFile(Stdout, os.DevNull)
	os.Stdout = saved
	if err != nil {
		t.Errorf("SameFile(-, %s) with standard output at %s: %v, want nil", os.DevNull, os.DevNull, err)
	}
	if err := SameFile(os.DevNull, os.DevNull); err != nil {
		t.Errorf("SameFile(%s, %s): %v, want nil", os.DevNull, os.DevNull, err)
	}
	f := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SameFile(f, f); err == nil {
		t.Errorf("SameFile(%s, %s): nil, want the clash", f, f)
	}
}
