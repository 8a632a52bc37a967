package render

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
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
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		assert.Fail(t, fmt.Sprintf("t.json holds %q", got))
	}
	// The permissions os.Create gives a new file (0666 less the umask).
	ref := filepath.Join(t.TempDir(), "ref")
	if f, err := os.Create(ref); err == nil {
		f.Close()
	}
	got, err1 := os.Stat(plain)
	want, err2 := os.Stat(ref)
	assert.Falsef(t, err1 != nil || err2 != nil || got.Mode().Perm() != want.Mode().Perm(), "t.json mode: %v, %v; want that of os.Create: %v, %v", got, err1, want, err2)
	// An aborted write leaves the old trace and no temporary file.
	require.NoError(t, write(plain, "partial", false))
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		assert.Fail(t, fmt.Sprintf("aborted write changed t.json to %q", got))
	}
	aborted := filepath.Join(dir, "new.json")
	require.NoError(t, write(aborted, "partial", false))
	if _, err := os.Stat(aborted); !os.IsNotExist(err) {
		assert.Fail(t, fmt.Sprintf("aborted new.json exists: %v", err))
	}
	gz := filepath.Join(dir, "t.json.gz")
	require.NoError(t, write(gz, `{"traceEvents":[]}`, true))
	f, _ := os.Open(gz)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	if got, _ := io.ReadAll(zr); string(got) != `{"traceEvents":[]}` {
		assert.Fail(t, fmt.Sprintf("gunzipped %q", got))
	}
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "files left in the output directory")
	// Not a regular file: written in place, never replaced.
	require.NoError(t, write(os.DevNull, "{}", true))
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		require.FailNow(t, fmt.Sprintf("%s replaced: %v %v", os.DevNull, st.Mode(), err))
	}
	var stdout bytes.Buffer
	o, err := CreateOutput("-", &stdout)
	require.NoError(t, err)
	io.WriteString(o, "{}")
	if err := o.Commit(); err != nil || stdout.String() != "{}" {
		assert.Fail(t, fmt.Sprintf("stdout: %q, %v", stdout.String(), err))
	}
	if _, err := CreateOutput(filepath.Join(dir, "missing", "t.json"), nil); err == nil {
		assert.Fail(t, "output in a missing directory: no error")
	}
}
