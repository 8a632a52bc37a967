package outfile

import "os"

// writeback starts a file's write-back to disk every writebackChunk bytes
// as it is written, so that the fsync that ends it waits for little more
// than the last chunk.
type writeback struct {
	// written is the bytes written; unflushed the first of them whose
	// write-back is not yet started (startWriteback).
	written, unflushed int64
}

// wrote counts n more bytes written to f, and starts the write-back of
// a chunk once one is complete.
func (w *writeback) wrote(f *os.File, n int) {
	w.written += int64(n)
	if w.written-w.unflushed >= writebackChunk {
		startWriteback(f, w.unflushed, w.written-w.unflushed)
		w.unflushed = w.written
	}
}
