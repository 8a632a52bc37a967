package render

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
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
	if err := write(plain, "{}", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		t.Errorf("t.json holds %q", got)
	}
	// The permissions os.Create gives a new file (0666 less the umask).
	ref := filepath.Join(t.TempDir(), "ref")
	if f, err := os.Create(ref); err == nil {
		f.Close()
	}
	got, err1 := os.Stat(plain)
	want, err2 := os.Stat(ref)
	if err1 != nil || err2 != nil || got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("t.json mode: %v, %v; want that of os.Create: %v, %v", got, err1, want, err2)
	}
	// An aborted write leaves the old trace and no temporary file.
	if err := write(plain, "partial", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		t.Errorf("aborted write changed t.json to %q", got)
	}
	aborted := filepath.Join(dir, "new.json")
	if err := write(aborted, "partial", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(aborted); !os.IsNotExist(err) {
		t.Errorf("aborted new.json exists: %v", err)
	}
	gz := filepath.Join(dir, "t.json.gz")
	if err := write(gz, `{"traceEvents":[]}`, true); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(gz)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); string(got) != `{"traceEvents":[]}` {
		t.Errorf("gunzipped %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left in the output directory: %v", entries)
	}
	// Not a regular file: written in place, never replaced.
	if err := write(os.DevNull, "{}", true); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v %v", os.DevNull, st.Mode(), err)
	}
	var stdout bytes.Buffer
	o, err := CreateOutput("-", &stdout)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "{}")
	if err := o.Commit(); err != nil || stdout.String() != "{}" {
		t.Errorf("stdout: %q, %v", stdout.String(), err)
	}
	if _, err := CreateOutput(filepath.Join(dir, "missing", "t.json"), nil); err == nil {
		t.Error("output in a missing directory: no error")
	}
}
