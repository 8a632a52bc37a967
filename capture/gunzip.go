package capture

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/sniff"
)

// MaxGunzipBytes bounds what a gzip-compressed capture may decompress to
// (64 GiB, past any device's profiling buffer): a gzip bomb is refused
// before it fills the disk.
const MaxGunzipBytes = 64 << 30

// scratchCloser removes a decompressed capture's scratch file on Close.
type scratchCloser struct{ f *os.File }

func (s scratchCloser) Close() error {
	outfile.CloseScratch(s.f)
	return nil
}

// gunzip decompresses the gzip capture read through f (of path) into a
// scratch file, which is returned, rewound; nil when f is not gzip.
// Offsets in the capture are then of the decompressed bytes, as gunzip
// would leave them. Package sniff says what is gzip: a capture whose
// first header happens to begin with gzip's magic bytes is a capture.
func gunzip(path string, f io.ReaderAt, size int64) (*os.File, error) {
	head := make([]byte, min(size, sniff.Size))
	read, _ := f.ReadAt(head, 0)
	if sniff.Bytes(head[:read], size).Kind != sniff.Gzip {
		return nil, nil
	}
	zr, err := gzip.NewReader(io.NewSectionReader(f, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip data that does not open: %w", path, err)
	}
	out, err := outfile.CreateScratch("", "cycleabi-gunzip-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(out, io.LimitReader(zr, MaxGunzipBytes+1))
	switch {
	case err != nil:
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = &Problem{File: path, Severity: Error, Code: CodeTruncated, Off: size, Record: -1,
				Msg: fmt.Sprintf("gzip data that does not decompress (%v): a truncated or damaged .gz", err)}
		} else {
			err = fmt.Errorf("%s: decompressing: %w", path, err)
		}
	case n > MaxGunzipBytes:
		err = fmt.Errorf("%s: decompresses to more than %d bytes, past any capture", path, int64(MaxGunzipBytes))
	}
	if err == nil {
		_, err = out.Seek(0, io.SeekStart)
	}
	if err != nil {
		outfile.CloseScratch(out)
		return nil, err
	}
	return out, nil
}
