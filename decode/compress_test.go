package decode

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestCompressorPassesBytesInOrder: whatever the sizes of the writes, the
// goroutine's writer sees the same bytes in the same order.
func TestCompressorPassesBytesInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var want bytes.Buffer
		var got bytes.Buffer
		c := newCompressor(&got)
		for i := range rapid.IntRange(0, 20).Draw(t, "writes") {
			n := rapid.IntRange(0, 3*compressBuffer).Draw(t, "n")
			p := bytes.Repeat([]byte{byte(i)}, n)
			want.Write(p)
			if k, err := c.Write(p); k != n || err != nil {
				t.Fatalf("Write: %d, %v", k, err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("got %d bytes, want %d (or different bytes)", got.Len(), want.Len())
		}
	})
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestCompressorReportsWriteError: the goroutine's write error comes back
// from Close.
func TestCompressorReportsWriteError(t *testing.T) {
	boom := errors.New("disk full")
	c := newCompressor(failWriter{boom})
	for range 10 {
		c.Write(make([]byte, compressBuffer))
	}
	if err := c.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v, want %v", err, boom)
	}
}
