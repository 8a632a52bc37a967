package capture_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
)

// TestGzipCapture: a gzip-compressed capture opens as the bytes gunzip
// gives (read back through the capture, byte for byte); a truncated .gz is
// a truncated problem naming the file, not a capture of garbage.
func TestGzipCapture(t *testing.T) {
	raw, err := os.ReadFile("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw)
	w.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "rank0.bin.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(c, 0, c.Size()))
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raw) || c.Format != capture.Raw {
		t.Fatalf("read %d bytes (format %v), want the %d raw bytes gunzip gives", len(got), c.Format, len(raw))
	}
	bad := filepath.Join(dir, "cut.bin.gz")
	if err := os.WriteFile(bad, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = capture.Open(bad)
	var p *capture.Problem
	if !errors.As(err, &p) || p.Code != capture.CodeTruncated || p.File != bad {
		t.Fatalf("Open of a truncated .gz: %v, want a truncated problem naming %s", err, bad)
	}
}
