package render

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"runtime"

	"github.com/klauspost/compress/flate"
)

// parallelGzip writes one gzip member (RFC 1952) whose deflate stream is
// compressed in segments on several goroutines, as pigz does: each segment
// of segmentSize input bytes is deflated on its own, primed with the last
// 32 KiB of the segment before it (so matches reach back as in one
// stream), and ends with a sync flush (an empty stored block, byte
// aligned), so that the segments, written in order, are one deflate
// stream; the last ends with the final block. The CRC-32 and size of the
// trailer are computed in order as the segments are written.
//
// A single member, not one member per segment: Perfetto's trace processor
// inflates the first member of a .gz and ignores the rest, so a
// concatenation of members (valid gzip, which gzip -t and Go's reader
// accept) would load as a truncated trace there.
//
// At most segments segments exist at once (input and output buffers), so
// memory is bounded whatever the trace's size.
type parallelGzip struct {
	dst   io.Writer
	cur   *segment
	work  chan *segment // to the compressing goroutines
	order chan *segment // to the writing goroutine, in stream order
	free  chan *segment
	done  chan struct{}
	err   error // the writing goroutine's first error; read after done
}

// segment is one segment of the stream: its input, the tail of the input
// before it, and its deflated bytes once ready is closed.
type segment struct {
	in    []byte
	dict  []byte
	out   bytes.Buffer
	last  bool
	err   error
	ready chan struct{}
}

const (
	segmentSize = 512 << 10
	// dictSize is deflate's window: how far back a match may reach.
	dictSize = 32 << 10
)

// gzipHeader is the member header Go's gzip writers write at BestSpeed
// with no name, comment or time: magic, deflate, no flags, mtime 0, XFL 4
// (fastest), OS unknown.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

func newParallelGzip(dst io.Writer) *parallelGzip {
	workers := runtime.GOMAXPROCS(0)
	segments := 2*workers + 1
	z := &parallelGzip{dst: dst, work: make(chan *segment, segments), order: make(chan *segment, segments),
		free: make(chan *segment, segments), done: make(chan struct{})}
	for range segments - 1 {
		z.free <- &segment{in: make([]byte, 0, segmentSize)}
	}
	z.cur = &segment{in: make([]byte, 0, segmentSize)}
	for range workers {
		go z.compress()
	}
	go z.write()
	return z
}

// compress deflates segments as they come.
func (z *parallelGzip) compress() {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	for s := range z.work {
		s.out.Reset()
		fw.ResetDict(&s.out, s.dict)
		_, s.err = fw.Write(s.in)
		if s.err == nil {
			if s.last {
				s.err = fw.Close()
			} else {
				s.err = fw.Flush()
			}
		}
		close(s.ready)
	}
}

// write writes the header, the segments in order and the trailer.
func (z *parallelGzip) write() {
	defer close(z.done)
	_, z.err = z.dst.Write(gzipHeader)
	crc, size := uint32(0), uint32(0)
	for s := range z.order {
		<-s.ready
		if z.err == nil {
			z.err = s.err
		}
		if z.err == nil {
			crc = crc32.Update(crc, crc32.IEEETable, s.in)
			size += uint32(len(s.in)) // the input's size mod 2^32, as RFC 1952 says
			_, z.err = z.dst.Write(s.out.Bytes())
		}
		if !s.last {
			z.free <- s
		}
	}
	if z.err == nil {
		var trailer [8]byte
		binary.LittleEndian.PutUint32(trailer[:4], crc)
		binary.LittleEndian.PutUint32(trailer[4:], size)
		_, z.err = z.dst.Write(trailer[:])
	}
}

// Write copies p into segments, handing each full one over; a write error
// is returned by Close.
func (z *parallelGzip) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		s := z.cur
		k := copy(s.in[len(s.in):cap(s.in)], p)
		s.in, p = s.in[:len(s.in)+k], p[k:]
		if len(s.in) == cap(s.in) {
			z.send(false)
		}
	}
	return n, nil
}

// send hands the current segment over and starts the next, primed with
// the current one's tail.
func (z *parallelGzip) send(last bool) {
	s := z.cur
	s.last = last
	s.ready = make(chan struct{})
	z.order <- s
	z.work <- s
	if last {
		z.cur = nil
		return
	}
	next := <-z.free
	next.in = next.in[:0]
	next.dict = append(next.dict[:0], s.in[len(s.in)-min(len(s.in), dictSize):]...)
	z.cur = next
}

// Close hands over the last segment (the final block, empty if nothing
// was written), waits for every goroutine and returns the first error.
func (z *parallelGzip) Close() error {
	if z.cur == nil {
		return z.err
	}
	z.send(true)
	close(z.work)
	close(z.order)
	<-z.done
	return z.err
}
