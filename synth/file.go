package synth

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/outfile"
)

// Format is how a capture is stored in a file.
type Format int

// The capture file formats.
const (
	// Bin is the buffer's bytes and nothing else (what
	// tensor.numpy().tofile() writes).
	Bin Format = iota
	// NPY is a NumPy v1.0 .npy file holding the buffer as a 1-D uint8 array
	// (what np.save writes for it).
	NPY
)

// String returns the format's flag value ("bin", "npy").
func (f Format) String() string {
	if f == NPY {
		return "npy"
	}
	return "bin"
}

// ParseFormat returns the format named name ("bin" or "npy").
func ParseFormat(name string) (Format, bool) {
	switch name {
	case "bin":
		return Bin, true
	case "npy":
		return NPY, true
	}
	return 0, false
}

// NPYHeader returns the NumPy v1.0 header for a buffer of n bytes: magic,
// version 1.0, the header length, and the dict
// {'descr': '|u1', 'fortran_order': False, 'shape': (n,), } padded with
// spaces and a newline so that the data starts at a multiple of 64 bytes,
// as numpy.lib.format writes it.
func NPYHeader(n uint64) []byte {
	dict := fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }", n)
	const preamble = 10 // magic (6) + version (2) + header length (2)
	total := (preamble + len(dict) + 1 + 63) / 64 * 64
	h := make([]byte, 0, total)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(total-preamble))
	h = append(h, dict...)
	h = append(h, strings.Repeat(" ", total-preamble-len(dict)-1)...)
	return append(h, '\n')
}

// Write writes buffer to w in format f.
func Write(w io.Writer, buffer []byte, f Format) error {
	if f == NPY {
		if _, err := w.Write(NPYHeader(uint64(len(buffer)))); err != nil {
			return err
		}
	}
	_, err := w.Write(buffer)
	return err
}

// WriteFile writes buffer to path in format f through package outfile:
// atomically (a temporary file beside path, renamed over it once
// complete), "-" for standard output, a device or named pipe in place.
func WriteFile(path string, buffer []byte, f Format) error {
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	if err := Write(out, buffer, f); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}
