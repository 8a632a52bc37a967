package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Parked captures keep at most MaxParkedOpen files open, read the same
// bytes after their file was closed, and refuse a file that changed.
func TestOpenParked(t *testing.T) {
	old := MaxParkedOpen
	MaxParkedOpen = 2
	defer func() { MaxParkedOpen = old }()
	dir := t.TempDir()
	var caps []*Capture
	var want [][]byte
	for i := range 5 {
		b := bytes.Repeat([]byte{byte(i + 1)}, 4096)
		path := filepath.Join(dir, fmt.Sprintf("c%d.bin", i))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenParked(path, false)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		caps, want = append(caps, c), append(want, b)
	}
	openNow := func() int {
		parking.mu.Lock()
		defer parking.mu.Unlock()
		return parking.open.Len()
	}
	for round := range 3 {
		for i, c := range caps {
			got := make([]byte, 100)
			if _, err := c.ReadAt(got, int64(round*100)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[i][:100]) {
				t.Fatalf("capture %d round %d: read %x", i, round, got[:4])
			}
			if n := openNow(); n > MaxParkedOpen {
				t.Fatalf("%d files open, at most %d wanted", n, MaxParkedOpen)
			}
		}
	}
	// caps[0] was closed long ago: it is opened again, and found changed.
	path := filepath.Join(dir, "c0.bin")
	if err := os.WriteFile(path, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, time.Now(), time.Now().Add(time.Hour))
	_, err := caps[0].ReadAt(make([]byte, 10), 0)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("c0.bin: the file changed while it was being read (4096 bytes at first, 8192 now)")) {
		t.Fatalf("changed file: %v", err)
	}
	caps[1].Close()
	if _, err := caps[1].ReadAt(make([]byte, 10), 0); err == nil {
		t.Fatal("a read after Close succeeded")
	}
}
