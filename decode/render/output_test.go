package render

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(path string, data string, commit bool) error {
		o, err := CreateOutput(path, nil)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(o, data); err != nil {
			return err
		}
		if !commit {
			o.Abort()
			return nil
		}
		return o.Commit()
	}
	plain := filepath.Join(dir, "t.json")
	require.NoError(t, write(plain, "{}", true))
	held, _ := os.ReadFile(plain)
	assert.Equal(t, "{}", string(held), "t.json holds")
	// The permissions os.Create gives a new file (0666 less the umask).
	ref := filepath.Join(t.TempDir(), "ref")
	if f, err := os.Create(ref); err == nil {
		f.Close()
	}
	got, err1 := os.Stat(plain)
	want, err2 := os.Stat(ref)
	require.NoErrorf(t, err1, "t.json mode: %v; want that of os.Create: %v", got, want)
	require.NoErrorf(t, err2, "t.json mode: %v; want that of os.Create: %v", got, want)
	assert.Equalf(t, want.Mode().Perm(), got.Mode().Perm(), "t.json mode: %v; want that of os.Create: %v", got, want)
	// An aborted write leaves the old trace and no temporary file.
	require.NoError(t, write(plain, "partial", false))
	held, _ = os.ReadFile(plain)
	assert.Equal(t, "{}", string(held), "aborted write changed t.json")
	aborted := filepath.Join(dir, "new.json")
	require.NoError(t, write(aborted, "partial", false))
	_, err := os.Stat(aborted)
	assert.ErrorIs(t, err, fs.ErrNotExist, "aborted new.json exists")
	gz := filepath.Join(dir, "t.json.gz")
	require.NoError(t, write(gz, `{"traceEvents":[]}`, true))
	f, _ := os.Open(gz)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	held, _ = io.ReadAll(zr)
	assert.Equal(t, `{"traceEvents":[]}`, string(held), "gunzipped")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "files left in the output directory")
	// Not a regular file: written in place, never replaced.
	require.NoError(t, write(os.DevNull, "{}", true))
	st, err := os.Stat(os.DevNull)
	require.NoErrorf(t, err, "%s replaced", os.DevNull)
	require.Falsef(t, st.Mode().IsRegular(), "%s replaced: %v", os.DevNull, st.Mode())
	var stdout bytes.Buffer
	o, err := CreateOutput("-", &stdout)
	require.NoError(t, err)
	io.WriteString(o, "{}")
	assert.NoError(t, o.Commit(), "stdout")
	assert.Equal(t, "{}", stdout.String(), "stdout")
	_, err = CreateOutput(filepath.Join(dir, "missing", "t.json"), nil)
	assert.Error(t, err, "output in a missing directory")
}
