package capture

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/megakernel/cycleabi/internal/infile"
)

// MaxParkedOpen is how many files of captures from OpenParked are open at
// once: opening one more closes the one read least recently (unless a read
// of it is under way). Far below any limit on open files, far above the
// captures a run reads at once (one per core).
var MaxParkedOpen = 64

// OpenParked opens the capture at path as Open (or, partial, OpenPartial)
// does, for a run that holds many captures at once (a manifest of
// thousands): its file is closed when MaxParkedOpen others have been read
// since it was, and opened again on its next read, so that the number of
// captures held does not meet the limit on open files. A file that is no
// longer the one first opened (replaced, or resized) is refused when it
// is opened again.
func OpenParked(path string, partial bool) (*Capture, error) {
	c, err := open(path, partial)
	if err != nil {
		return nil, err
	}
	f, ok := c.closer.(*os.File)
	if !ok {
		return c, nil
	}
	st, err := f.Stat()
	if err != nil {
		c.Close()
		return nil, err
	}
	p := &parkedFile{path: path, st: st}
	parking.mu.Lock()
	p.f, p.elem = f, parking.open.PushFront(p)
	parking.evict()
	parking.mu.Unlock()
	c.r, c.closer = p, p
	return c, nil
}

// fileParking holds the open files of parked captures, the most recently
// read first.
type fileParking struct {
	mu   sync.Mutex
	open list.List
}

var parking fileParking

// evict closes the least recently read files not being read, down to
// MaxParkedOpen open; the caller holds pk.mu.
func (pk *fileParking) evict() {
	for e := pk.open.Back(); e != nil && pk.open.Len() > MaxParkedOpen; {
		prev := e.Prev()
		if p := e.Value.(*parkedFile); p.reading == 0 {
			p.f.Close() // only read from: nothing to lose
			p.f = nil
			pk.open.Remove(e)
			p.elem = nil
		}
		e = prev
	}
}

// parkedFile is a capture file that may be closed between reads.
type parkedFile struct {
	path string
	st   os.FileInfo // of the file first opened

	// Under parking.mu: the open file (nil while parked), its place in
	// parking.open, the reads under way, and whether Close was called.
	f       *os.File
	elem    *list.Element
	reading int
	closed  bool
}

var errParkedClosed = errors.New("capture closed")

func (p *parkedFile) ReadAt(b []byte, off int64) (int, error) {
	f, err := p.acquire()
	if err != nil {
		return 0, err
	}
	n, err := f.ReadAt(b, off)
	parking.mu.Lock()
	p.reading--
	parking.mu.Unlock()
	return n, err
}

// acquire returns the open file, opening it again if it was closed, and
// counts a read under way.
func (p *parkedFile) acquire() (*os.File, error) {
	parking.mu.Lock()
	defer parking.mu.Unlock()
	switch {
	case p.closed:
		return nil, fmt.Errorf("%s: %w", p.path, errParkedClosed)
	case p.f != nil:
		parking.open.MoveToFront(p.elem)
	default:
		f, err := p.reopen()
		if err != nil {
			return nil, err
		}
		p.f, p.elem = f, parking.open.PushFront(p)
		parking.evict()
	}
	p.reading++
	return p.f, nil
}

// reopen opens the file again. The path is checked before it is opened (a
// FIFO put in its place would block the open) and the file after.
func (p *parkedFile) reopen() (*os.File, error) {
	same := func(st os.FileInfo) error {
		if !os.SameFile(st, p.st) || st.Size() != p.st.Size() || !st.ModTime().Equal(p.st.ModTime()) {
			return fmt.Errorf("%s: the file changed while it was being read (%d bytes at first, %d now)", p.path, p.st.Size(), st.Size())
		}
		return nil
	}
	st, err := os.Stat(p.path)
	if err != nil {
		return nil, err
	}
	if err := same(st); err != nil {
		return nil, err
	}
	// Through infile, as the first open: a FIFO put at the path since
	// is refused, not waited on.
	f, st, err := infile.Open(p.path)
	if err != nil {
		return nil, err
	}
	if err := same(st); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Close closes the file for good.
func (p *parkedFile) Close() error {
	parking.mu.Lock()
	defer parking.mu.Unlock()
	p.closed = true
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	parking.open.Remove(p.elem)
	p.elem = nil
	return err
}
