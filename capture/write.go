package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/megakernel/cycleabi/internal/outfile"
)

// This file writes what Open reads (npy.go reads the .npy header): the
// buffer's bytes alone (Raw) or as a NumPy .npy file (NPY).

// NPYHeader returns the NumPy v1.0 header for a buffer of n bytes stored as
// a 1-D uint8 array (what np.save writes for it): magic, version 1.0, the
// header length, and the dict
// {'descr': '|u1', 'fortran_order': False, 'shape': (n,), }.
func NPYHeader(n uint64) []byte {
	return NPYHeaderDict(fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }", n))
}

// NPYHeaderDict returns a NumPy v1.0 header holding the header dict given
// as text, padded with spaces and a newline so that the data starts at a
// multiple of 64 bytes, as numpy.lib.format writes it. NPYHeader is it for
// a uint8 buffer; tests use it for other dtypes and shapes. A dict of 64 KiB
// or more does not fit format 1.0's 16-bit length and panics.
func NPYHeaderDict(dict string) []byte {
	const preamble = 10 // magic (6) + version (2) + header length (2)
	total := (preamble + len(dict) + 1 + 63) / 64 * 64
	if total-preamble > 0xffff {
		panic("capture.NPYHeaderDict: header dict too long for .npy format 1.0")
	}
	h := make([]byte, 0, total)
	h = append(h, npyMagic+"\x01\x00"...)
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
