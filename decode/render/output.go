package render

import (
	"bufio"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/outfile"
)

// Output is where a trace goes: an output file of package outfile (written
// under a temporary name and renamed into place by Commit, so a failed
// decode leaves no partial trace behind and an existing trace untouched;
// "-" is stdout; a device or named pipe is written in place), gzip-compressed
// when the name ends in ".gz" (Perfetto opens .json.gz directly).
type Output struct {
	// Name is the output path as given ("-" for stdout).
	Name string

	w    *bufio.Writer
	gz   *parallelGzip
	file *outfile.File
	n    int64 // bytes given to Write (before any compression)
}

// CreateOutput opens the output named path; stdout is used for "-" (nil:
// os.Stdout).
func CreateOutput(path string, stdout io.Writer) (*Output, error) {
	f, err := outfile.CreateStdout(path, stdout)
	if err != nil {
		return nil, err
	}
	o := &Output{Name: path, file: f}
	var dst io.Writer = f
	if path != outfile.Stdout && strings.HasSuffix(path, ".gz") {
		// BestSpeed: traces are repetitive text that compresses about
		// tenfold even so, and the default level would be the bottleneck;
		// segments compressed on GOMAXPROCS goroutines.
		o.gz = newParallelGzip(dst)
		dst = o.gz
	}
	o.w = bufio.NewWriterSize(dst, 64<<10)
	return o, nil
}

// Write writes trace bytes.
func (o *Output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.n += int64(n)
	return n, err
}

// Written returns the bytes given to Write, before any compression.
func (o *Output) Written() int64 { return o.n }

// Replaces reports whether Commit replaces a regular file that was at the
// output's path when it was created.
func (o *Output) Replaces() bool { return o.file.Replaces() }

// Commit flushes everything and puts the file in place. After an error
// nothing is left behind.
func (o *Output) Commit() error {
	err := o.w.Flush()
	if o.gz != nil {
		if zerr := o.gz.Close(); err == nil {
			err = zerr
		}
		o.gz = nil
	}
	if err != nil {
		o.file.Abort()
		return err
	}
	return o.file.Commit()
}

// Abort discards what was written to a file (nothing is renamed into
// place). It is a no-op after Commit.
func (o *Output) Abort() {
	if o.gz != nil {
		o.gz.Close()
		o.gz = nil
	}
	o.file.Abort()
}
