package tracemerge

import (
	"io"

	"github.com/megakernel/cycleabi/internal/infile"
	"github.com/megakernel/cycleabi/internal/jsonread"
)

// InputError is a framework or MegaKernel trace that cannot be merged:
// malformed JSON, a value of the wrong kind, a non-finite time, with the
// line and byte offset (in the decompressed text) at fault.
type InputError = jsonread.Error

// openFile opens the file at path for reading; tests replace it to read
// from memory.
var openFile = func(path string) (io.ReadSeekCloser, error) {
	f, _, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// openReader opens the trace at path with the reader every trace goes
// through, decompressing it when it starts with gzip's magic bytes.
func openReader(path string) (*jsonread.Reader, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	r, err := jsonread.NewFile(path, f)
	if err != nil {
		return nil, err
	}
	// Python's json module writes NaN and Infinity for non-finite
	// times: read them, so that they get a clear error of their own.
	r.NonFinite = true
	return r, nil
}
