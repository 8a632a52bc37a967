package decode

import (
	"bufio"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
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
	gz   *gzip.Writer
	zc   *compressor // runs gz on its own goroutine
	file *outfile.File
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
		// tenfold even so, and the default level would be the bottleneck.
		o.gz, _ = gzip.NewWriterLevel(dst, gzip.BestSpeed)
		o.zc = newCompressor(o.gz)
		dst = o.zc
	}
	o.w = bufio.NewWriterSize(dst, 64<<10)
	return o, nil
}

// Write writes trace bytes.
func (o *Output) Write(p []byte) (int, error) { return o.w.Write(p) }

// Commit flushes everything and puts the file in place. After an error
// nothing is left behind.
func (o *Output) Commit() error {
	err := o.w.Flush()
	if o.zc != nil {
		if zerr := o.zc.Close(); err == nil {
			err = zerr
		}
		o.zc = nil
	}
	if o.gz != nil && err == nil {
		err = o.gz.Close()
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
	if o.zc != nil {
		o.zc.Close()
		o.zc = nil
	}
	o.file.Abort()
}

// compressor hands what is written to it, in buffers of compressBuffer
// bytes, to a goroutine that writes them to w (gzip): the trace is
// formatted and compressed at once, on two cores when there are two
// (BestSpeed deflate takes about twice the time of formatting). At most
// compressBuffers buffers exist.
type compressor struct {
	w    io.Writer
	cur  []byte
	full chan []byte
	free chan []byte
	done chan struct{}
	err  error // the goroutine's first write error; read after done
}

const (
	compressBuffer  = 256 << 10
	compressBuffers = 4
)

func newCompressor(w io.Writer) *compressor {
	c := &compressor{w: w, full: make(chan []byte, compressBuffers), free: make(chan []byte, compressBuffers), done: make(chan struct{})}
	for range compressBuffers - 1 {
		c.free <- make([]byte, 0, compressBuffer)
	}
	c.cur = make([]byte, 0, compressBuffer)
	go c.run()
	return c
}

func (c *compressor) run() {
	defer close(c.done)
	for b := range c.full {
		if c.err == nil {
			_, c.err = c.w.Write(b)
		}
		c.free <- b[:0]
	}
}

// Write copies p into buffers; a write error of the goroutine is returned
// by Close.
func (c *compressor) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := copy(c.cur[len(c.cur):cap(c.cur)], p)
		c.cur, p = c.cur[:len(c.cur)+k], p[k:]
		if len(c.cur) == cap(c.cur) {
			c.full <- c.cur
			c.cur = <-c.free
		}
	}
	return n, nil
}

// Close hands over the last buffer, waits for the goroutine and returns
// its first error.
func (c *compressor) Close() error {
	if len(c.cur) > 0 {
		c.full <- c.cur
	}
	c.cur = nil
	close(c.full)
	<-c.done
	return c.err
}
