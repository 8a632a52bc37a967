package decode

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/klauspost/compress/gzip"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Output is where a trace goes. A file is written under a temporary name
// in its directory and renamed into place by Commit, so a failed decode
// leaves no partial trace behind (and an existing trace untouched). A name
// ending in ".gz" is gzip-compressed (Perfetto opens .json.gz directly);
// "-" is stdout. An existing target that is not a regular file (/dev/null,
// a named pipe) is written in place.
type Output struct {
	// Name is the output path as given ("-" for stdout).
	Name string

	w    *bufio.Writer
	gz   *gzip.Writer
	zc   *compressor // runs gz on its own goroutine
	file *os.File    // the file written, nil for stdout
	temp string      // the temporary name to rename from, "" when writing in place
	// mode is the replaced trace's permissions, given to the new one
	// when keepMode; a new trace has those its temporary file was created with.
	mode     os.FileMode
	keepMode bool
}

// CreateOutput opens the output named path; stdout is used for "-".
func CreateOutput(path string, stdout io.Writer) (*Output, error) {
	o := &Output{Name: path}
	var dst io.Writer = stdout
	if path != "-" {
		st, err := os.Stat(path)
		switch {
		case err == nil && !st.Mode().IsRegular():
			if o.file, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
				return nil, err
			}
		case err == nil || errors.Is(err, os.ErrNotExist):
			if err == nil {
				o.mode, o.keepMode = st.Mode().Perm(), true
			}
			dir, base := filepath.Split(path)
			if dir == "" {
				dir = "."
			}
			if o.file, err = createTemp(dir, base); err != nil {
				return nil, err
			}
			o.temp = o.file.Name()
		default:
			return nil, err
		}
		dst = o.file
	}
	if path != "-" && strings.HasSuffix(path, ".gz") {
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
	if o.file != nil {
		if o.temp != "" && o.keepMode && err == nil {
			err = o.file.Chmod(o.mode)
		}
		if cerr := o.file.Close(); err == nil {
			err = cerr
		}
		o.file = nil
	}
	if o.temp != "" {
		if err == nil {
			err = os.Rename(o.temp, o.Name)
		}
		if err != nil {
			os.Remove(o.temp)
		}
		o.temp = ""
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.Name, err)
	}
	return nil
}

// Abort discards what was written to a file (nothing is renamed into
// place). It is a no-op after Commit.
func (o *Output) Abort() {
	if o.zc != nil {
		o.zc.Close()
		o.zc = nil
	}
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.temp != "" {
		os.Remove(o.temp)
		o.temp = ""
	}
}

// createTemp creates a new file in dir named after base. Unlike
// os.CreateTemp (mode 0600) it asks for 0666 and lets the umask decide, as
// os.Create does for the trace it stands in for.
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("creating a temporary file for %s in %s: too many name collisions", base, dir)
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
