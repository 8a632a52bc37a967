// Package capture opens a MegaKernel profiling buffer copied back from the
// device and walks it slot by slot under the ABI's rules. Decode (which stops
// at the first error) and validate (which reports them all) share it, so the
// two can never disagree about what a valid capture is.
//
// A capture is raw bytes (what tensor.numpy().tofile() writes) or a NumPy
// .npy file (what np.save writes; the payload after its header is the
// buffer). The format is told by the magic bytes, not the file name.
//
// The layout (cube slot count and capacities) is found from the capture
// itself by Resolve, from a Request that says what the caller knows; Scan
// then checks every slot and record under it.
//
// Byte offsets in problems are offsets in the file, so they can be found
// with a hex viewer; for raw captures they equal offsets in the buffer.
package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/infile"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/sniff"
)

// Format is how the buffer is stored.
type Format int

// The capture formats.
const (
	Raw Format = iota // the buffer's bytes, nothing else
	NPY               // a NumPy .npy file whose payload is the buffer
)

func (f Format) String() string {
	if f == NPY {
		return "npy"
	}
	return "raw"
}

// Capture is a profiling buffer opened for reading. Reads go through
// ReadAt; when the bytes are already in memory, views of them are returned
// without copying.
type Capture struct {
	// Name labels the capture in errors (the file path, or a name given).
	Name string
	// Format is Raw or NPY.
	Format Format
	// Base is the file offset of the buffer's first byte (the .npy header
	// length; 0 for raw captures).
	Base int64
	// Warnings are what opening the capture found worth a look, though it
	// reads: bytes after a .npy array, a big-endian .npy dtype.
	Warnings []Problem

	r      io.ReaderAt
	size   int64  // buffer bytes
	data   []byte // the buffer when in memory, else nil
	closer io.Closer
}

// Open opens the capture file at path. The file stays open until Close;
// its bytes are read as needed, never all at once.
func Open(path string) (*Capture, error) { return open(path, false) }

// OpenPartial is Open for a partial decode (Request.Partial): a .npy file
// whose payload is shorter than its header declares opens with what it
// holds, the shortfall a truncated warning, instead of failing.
func OpenPartial(path string) (*Capture, error) { return open(path, true) }

func open(path string, partial bool) (*Capture, error) {
	f, st, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	// A gzip-compressed capture is read as its decompressed bytes, as a
	// .json.gz trace is.
	if z, err := gunzip(path, f, st.Size()); err != nil || z != nil {
		f.Close()
		if err != nil {
			return nil, err
		}
		zst, err := z.Stat()
		if err != nil {
			outfile.CloseScratch(z)
			return nil, err
		}
		c, err := fromReaderAt(path, z, zst.Size(), partial)
		if err != nil {
			outfile.CloseScratch(z)
			var p *Problem
			if errors.As(err, &p) && p.Code == CodeNotACapture {
				p.Msg = strings.Replace(p.Msg, "the file is ", "the file is gzip-compressed; decompressed, it is ", 1)
			}
			return nil, err
		}
		c.closer = scratchCloser{z}
		return c, nil
	}
	c, err := fromReaderAt(path, f, st.Size(), partial)
	if err != nil {
		f.Close()
		return nil, err
	}
	c.closer = f
	return c, nil
}

// FromBytes wraps an in-memory capture (raw or .npy); b is not copied and
// must not change while the capture is in use.
func FromBytes(name string, b []byte) (*Capture, error) {
	c, err := FromReaderAt(name, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	c.data = b[c.Base : c.Base+c.size]
	return c, nil
}

// FromReaderAt wraps a capture of size bytes readable through r.
func FromReaderAt(name string, r io.ReaderAt, size int64) (*Capture, error) {
	return fromReaderAt(name, r, size, false)
}

// fromReaderAt is FromReaderAt; partial opens a truncated .npy file (see
// OpenPartial).
func fromReaderAt(name string, r io.ReaderAt, size int64, partial bool) (*Capture, error) {
	if size < 0 {
		return nil, fmt.Errorf("%s: negative size %d", name, size)
	}
	c := &Capture{Name: name, r: r, size: size}
	var magic [len(npyMagic)]byte
	n, err := r.ReadAt(magic[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n == len(magic) && string(magic[:]) == npyMagic {
		h, err := readNPYHeader(r, size)
		if err != nil {
			return nil, &Problem{File: name, Severity: Error, Code: CodeBadNPY, Off: h.errOff, Record: -1, Msg: err.Error()}
		}
		c.Format, c.Base, c.size = NPY, h.dataOff, size-h.dataOff
		if present := uint64(c.size); h.payload > present {
			p := &Problem{File: name, Severity: Error, Code: CodeTruncated, Off: size, Record: -1,
				Msg: fmt.Sprintf("truncated .npy file: its header declares %d payload bytes, %d are present (%d missing)", h.payload, present, h.payload-present)}
			if !partial {
				return nil, p
			}
			p.Severity, p.Msg = Warning, p.Msg+"; the buffer is what is present"
			c.Warnings = append(c.Warnings, *p)
			h.payload = present
		}
		// Anything after the declared array is not part of the buffer.
		if extra := c.size - int64(h.payload); extra > 0 {
			c.Warnings = append(c.Warnings, Problem{File: name, Severity: Warning, Code: CodeBytesAfterLayout, Off: h.dataOff + int64(h.payload), Record: -1,
				Msg: fmt.Sprintf("%d bytes follow the .npy array (its header declares %d payload bytes); they are not part of the buffer and are ignored", extra, h.payload)})
		}
		c.size = int64(h.payload)
		if h.bigEndian {
			c.Warnings = append(c.Warnings, Problem{File: name, Severity: Warning, Code: CodeNPYByteOrder, Off: 8, Record: -1,
				Msg: fmt.Sprintf(".npy dtype %s is big-endian; the buffer's bytes are read as stored (little-endian, as the device wrote them), not as the dtype says", h.descr)})
		}
		return c, nil
	}
	// What a file given by mistake is, from the module's one sniffer
	// (without looking inside gzip: its phrase is the compressed file's).
	s, err := sniff.Head(io.NewSectionReader(r, 0, size), size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Kind != sniff.Capture {
		return nil, &Problem{File: name, Severity: Error, Code: CodeNotACapture, Off: 0, Record: -1,
			Msg: fmt.Sprintf("not a capture: the file is %s; a capture is the profiling buffer's bytes (tensor.numpy().tofile()) or a .npy file (np.save)", s.What)}
	}
	return c, nil
}

// Size is the number of buffer bytes (the .npy payload, or the whole raw file).
func (c *Capture) Size() int64 { return c.size }

// ReadAt reads buffer bytes at buffer offset off.
func (c *Capture) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > c.size {
		return 0, fmt.Errorf("%s: read at buffer offset %d outside %d bytes", c.Name, off, c.size)
	}
	if rest := c.size - off; int64(len(p)) > rest {
		n, err := c.ReadAt(p[:rest], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	if c.data != nil {
		return copy(p, c.data[off:]), nil
	}
	n, err := c.r.ReadAt(p, c.Base+off)
	if n == len(p) {
		err = nil
	}
	return n, err
}

// view returns the n buffer bytes at off: a slice of the buffer when it is
// in memory, else read into buf (grown if needed). The caller has checked
// that [off, off+n) is inside the buffer.
func (c *Capture) view(off int64, n int, buf []byte) ([]byte, error) {
	if c.data != nil {
		return c.data[off : off+int64(n)], nil
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := c.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("%s: reading %d bytes at @%#x: %w", c.Name, n, c.Base+off, err)
	}
	return buf, nil
}

// InMemory returns the whole buffer when it is in memory.
func (c *Capture) InMemory() ([]byte, bool) { return c.data, c.data != nil }

// FileOffset converts a buffer offset to an offset in the capture file.
func (c *Capture) FileOffset(off int64) int64 { return c.Base + off }

// Close releases the file behind the capture, if any.
func (c *Capture) Close() error {
	if c.closer == nil {
		return nil
	}
	err := c.closer.Close()
	c.closer = nil
	return err
}
