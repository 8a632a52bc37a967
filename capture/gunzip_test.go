package capture_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/stretchr/testify/require"
)

// TestGzipCapture: a gzip-compressed capture opens as the bytes gunzip
// gives (read back through the capture, byte for byte); a truncated .gz is
// a truncated problem naming the file, not a capture of garbage.
func TestGzipCapture(t *testing.T) {
	raw, err := os.ReadFile("../examples/moe_layer.bin")
	require.NoError(t, err)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw)
	w.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "rank0.bin.gz")
	require.NoError(t, os.WriteFile(path, z.Bytes(), 0o644))
	c, err := capture.Open(path)
	require.NoError(t, err)
	got, err := io.ReadAll(io.NewSectionReader(c, 0, c.Size()))
	c.Close()
	require.NoError(t, err)
	require.Equal(t, capture.Raw, c.Format, "format")
	require.Equalf(t, raw, got, "read %d bytes, want the %d raw bytes gunzip gives", len(got), len(raw))
	bad := filepath.Join(dir, "cut.bin.gz")
	require.NoError(t, os.WriteFile(bad, z.Bytes()[:z.Len()/2], 0o644))
	_, err = capture.Open(bad)
	var p *capture.Problem
	require.ErrorAsf(t, err, &p, "Open of a truncated .gz: %v, want a truncated problem naming", err)
	require.Equalf(t, capture.Code(capture.CodeTruncated), p.Code, "Open of a truncated .gz: %v, want a truncated problem naming", err)
	require.Equalf(t, bad, p.File, "Open of a truncated .gz: %v, want a truncated problem naming", err)

	// A capture whose entry cycle begins with gzip's magic bytes (1f 8b
	// 08) is a capture, as package sniff tells it (a header slot 0 could
	// hold): it was gunzipped, and failed "decompressing: flate: corrupt
	// input".
	raw[0], raw[1], raw[2] = 0x1f, 0x8b, 0x08
	magic := filepath.Join(dir, "magic.bin")
	require.NoError(t, os.WriteFile(magic, raw, 0o644))
	c, err = capture.Open(magic)
	require.NoError(t, err, "Open of a capture that begins with gzip's magic")
	got, err = io.ReadAll(io.NewSectionReader(c, 0, c.Size()))
	c.Close()
	require.NoErrorf(t, err, "a capture that begins with gzip's magic: read %d bytes, want its own %d", len(got), len(raw))
	require.Equalf(t, []byte(raw), []byte(got), "a capture that begins with gzip's magic: read %d bytes, want its own %d", len(got), len(raw))
}
