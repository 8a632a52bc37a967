package outfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDirCreate: a file created in a folder holds what was written to it,
// in writes across several write-back chunks, once the folder is
// committed; nothing is created once it is.
func TestDirCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	d, err := CreateDir(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	f, err := d.Create("sub/part.bin")
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i := range 3*writebackChunk/(1<<20) + 1 {
		b := bytes.Repeat([]byte{byte(i)}, 1<<20+i)
		want = append(want, b...)
		if n, err := f.Write(b); n != len(b) || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(path, "sub", "part.bin"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes read (%v), %d written", len(got), err, len(want))
	}
	if _, err := d.Create("late.bin"); err == nil {
		t.Error("Create after Commit succeeded")
	}
}
