package outfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, write(t, path, "one", true))
	got, _ := os.ReadFile(path)
	require.Equalf(t, "one", string(got), "out.json holds %q", got)
	// Until Commit, the old file is what a reader sees.
	f, err := Create(path)
	require.NoError(t, err)
	f.Write([]byte("two"))
	got, _ = os.ReadFile(path)
	assert.Equal(t, "one", string(got), "before Commit, out.json")
	// A nameless temporary file (Linux) needs no registering.
	assert.Len(t, temporaries(), map[bool]int{true: 0, false: 1}[f.anon], "registered temporaries")
	require.NoError(t, f.Commit())
	got, _ = os.ReadFile(path)
	assert.Equal(t, "two", string(got), "after Commit, out.json")
	f.Abort() // no-op after Commit
	got, _ = os.ReadFile(path)
	assert.Equal(t, "two", string(got), "Abort after Commit changed out.json")
	assert.Error(t, f.Commit(), "second Commit: no error")
	// Aborted: the old file stays, a new one never appears.
	require.NoError(t, write(t, path, "partial", false))
	require.NoError(t, write(t, filepath.Join(dir, "new.json"), "partial", false))
	got, _ = os.ReadFile(path)
	assert.Equal(t, "two", string(got), "aborted write changed out.json")
	names := entries(t, dir)
	require.Len(t, names, 1, "files in the output folder")
	assert.Equal(t, "out.json", names[0], "files in the output folder")
	assert.Empty(t, temporaries(), "temporaries still registered")
}

// A new file gets what os.Create gives (0666 less the umask); a replaced
// file keeps its permission bits.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	require.NoError(t, err)
	f.Close()
	want, _ := os.Stat(ref)
	fresh := filepath.Join(dir, "fresh")
	require.NoError(t, WriteFile(fresh, []byte("x")))
	if got, err := os.Stat(fresh); assert.NoError(t, err, "new file") {
		assert.Equal(t, want.Mode(), got.Mode(), "new file: want the mode os.Create gives")
	}
	kept := filepath.Join(dir, "kept")
	require.NoError(t, os.WriteFile(kept, nil, 0o600))
	require.NoError(t, os.Chmod(kept, 0o640))
	require.NoError(t, WriteFile(kept, []byte("x")))
	if got, err := os.Stat(kept); assert.NoError(t, err, "replaced file") {
		assert.Equal(t, fs.FileMode(0o640), got.Mode().Perm(), "replaced file: want its own 0640")
	}
	// A read-only file is refused, as os.Create refuses it (root may
	// write anything: then both succeed).
	readOnly := filepath.Join(dir, "read-only")
	require.NoError(t, os.WriteFile(readOnly, []byte("keep"), 0o444))
	_, createErr := os.OpenFile(readOnly, os.O_WRONLY, 0)
	err = WriteFile(readOnly, []byte("x"))
	assert.Equalf(t, (createErr == nil), (err == nil), "read-only file: %v; os.OpenFile for writing: %v", err, createErr)
	if err != nil {
		got, _ := os.ReadFile(readOnly)
		assert.Equalf(t, "keep", string(got), "refused read-only file now holds %q", got)
	}
}

// A symbolic link is followed: its target is replaced, the link stays.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o644))
	if err := os.Symlink("real.json", link); err != nil {
		t.Skip(err)
	}
	require.NoError(t, WriteFile(link, []byte("new")))
	if st, err := os.Lstat(link); assert.NoError(t, err, "link") {
		assert.NotZero(t, st.Mode()&fs.ModeSymlink, "link replaced: %v", st.Mode())
	}
	got, _ := os.ReadFile(real)
	assert.Equalf(t, "new", string(got), "real.json holds %q", got)
}

// A device is written in place, never replaced by a regular file.
func TestDevice(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skipf("no device at %s", os.DevNull)
	}
	require.NoError(t, WriteFile(os.DevNull, []byte("x")))
	st, err = os.Stat(os.DevNull)
	require.NoError(t, err, os.DevNull)
	require.False(t, st.Mode().IsRegular(), "%s replaced: %v", os.DevNull, st.Mode())
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	f, err := CreateStdout("-", &buf)
	require.NoError(t, err)
	f.Write([]byte("hello"))
	assert.NoError(t, f.Commit(), "stdout")
	assert.Equal(t, "hello", buf.String(), "stdout")
}

// Errors name the path the user gave, never the temporary file, and keep
// their cause.
func TestErrorsNameTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "out.json")
	_, err := Create(missing)
	require.ErrorContains(t, err, missing, "missing folder")
	require.NotContains(t, err.Error(), ".tmp-", "missing folder")
	assert.ErrorIs(t, err, fs.ErrNotExist, "missing folder")
	_, err = Create(dir)
	assert.ErrorContains(t, err, dir, "a folder as output")
	// A rename that fails (the target became a non-empty folder).
	target := filepath.Join(dir, "out.json")
	f, err := Create(target)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	err = f.Commit()
	require.ErrorContains(t, err, "writing "+target+": ", "failed rename")
	assert.NotContains(t, err.Error(), ".tmp-", "failed rename")
	assert.Len(t, entries(t, dir), 1, "left behind")
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cap.bin")
	other := filepath.Join(dir, "other.bin")
	for _, p := range []string{in, other} {
		require.NoError(t, os.WriteFile(p, []byte("data"), 0o644))
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
		require.ErrorAsf(t, err, &sf, "SameFile: %v", err)
		require.Equalf(t, in, sf.Input, "SameFile: %v", err)
		assert.Equalf(t, out, sf.Output, "SameFile: %v", err)
	}
	for _, out := range []string{other + ".json", filepath.Join(dir, "new.json")} {
		assert.NoErrorf(t, SameFile(out, in, ""), "SameFile(%s)", out)
	}
	assert.NoError(t, SameFile(other, in), "different files")
}

func TestScratch(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateScratch(dir, "spill-*")
	require.NoError(t, err)
	_, err = f.Write([]byte("sorted"))
	require.NoError(t, err)
	b := make([]byte, 6)
	_, err = f.ReadAt(b, 0)
	assert.NoError(t, err, "read back")
	assert.Equal(t, "sorted", string(b), "read back")
	assert.False(t, len(entries(t, dir)) != 0 && len(temporaries()) != 1, "scratch file")
	CloseScratch(f)
	CloseScratch(f)
	assert.Empty(t, entries(t, dir), "scratch file left")
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
			if !assert.NoError(t, err) {
				return
			}
			defer f.Abort()
			s, err := CreateScratch(dir, "spill-*")
			if !assert.NoError(t, err) {
				return
			}
			defer CloseScratch(s)
			f.Write([]byte(path))
			if i%2 == 0 {
				assert.NoError(t, f.Commit())
			}
		})
	}
	wg.Wait()
	assert.Len(t, entries(t, dir), 8, "files left")
	assert.Empty(t, temporaries(), "temporaries still registered")
}

// A file of several write-back chunks, written in pieces that straddle
// their bounds, is whole after Commit.
func TestWritebackChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := Create(path)
	require.NoError(t, err)
	var want bytes.Buffer
	piece := make([]byte, writebackChunk/3+7)
	for i := range 10 {
		for j := range piece {
			piece[j] = byte(i*31 + j)
		}
		want.Write(piece)
		_, err := f.Write(piece)
		require.NoError(t, err)
	}
	assert.NotZero(t, f.wb.unflushed, "write-back started: want some chunks")
	assert.NotEqual(t, f.wb.written, f.wb.unflushed, "write-back started up to all %d bytes: want some chunks, not the last piece", f.wb.written)
	require.NoError(t, f.Commit())
	got, _ := os.ReadFile(path)
	// The sizes, not testify's dump of megabytes.
	assert.True(t, bytes.Equal(got, want.Bytes()), "file holds %d bytes, want the %d written", len(got), want.Len())
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
		require.NoError(t, err)
		assert.Equalf(t, tc.want, f.Replaces(), "%s: Replaces()", tc.path)
		require.NoError(t, f.Commit())
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
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o640))
	big := strings.Repeat("x", 3*writebackChunk+5)
	require.NoError(t, write(t, path, big, true))
	got, _ := os.ReadFile(path)
	assert.Equalf(t, big, string(got), "out.json holds %d bytes, want %d", len(got), len(big))
	if st, err := os.Stat(path); assert.NoError(t, err) {
		assert.Equal(t, fs.FileMode(0o640), st.Mode().Perm(), "want the replaced file's 0640")
	}
	assert.Len(t, entries(t, dir), 1, "files in the output folder")
	assert.Empty(t, temporaries(), "temporaries still registered")
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
	assert.NoErrorf(t, err, "SameFile(-, %s) with standard output at %s", os.DevNull, os.DevNull)
	assert.NoErrorf(t, SameFile(os.DevNull, os.DevNull), "SameFile(%s, %s)", os.DevNull, os.DevNull)
	f := filepath.Join(t.TempDir(), "in.yaml")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o644))
	assert.Errorf(t, SameFile(f, f), "SameFile(%s, %s): nil, want the clash", f, f)
}
