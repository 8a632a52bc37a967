package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// Kind is what a file is, as far as its leading bytes tell.
type Kind int

// The kinds Sniff tells apart. Only KindCapture and KindNPY can be
// captures; the others are files users give by mistake.
const (
	KindCapture  Kind = iota // none of the below: raw bytes, maybe a buffer
	KindNPY                  // a NumPy .npy file
	KindEmpty                // no bytes at all
	KindJSON                 // text starting with { or [
	KindYAML                 // other text that looks like YAML
	KindText                 // other text (blank, Markdown, prose)
	KindGzip                 // gzip-compressed data (cycleabi writes .json.gz traces)
	KindZip                  // a zip archive (what torch.save writes)
	KindPNG                  // a PNG image
	KindELF                  // an ELF program or library
	KindPerfetto             // a Perfetto protobuf trace
)

// SniffSize is how many leading bytes Sniff looks at.
const SniffSize = 512

// The magic bytes of the kinds told by them.
var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08} // ID1, ID2, CM = deflate (RFC 1952)
	zipMagic  = []byte("PK\x03\x04")     // a local file header
	zipEmpty  = []byte("PK\x05\x06")     // the end record of an empty archive
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	elfMagic  = []byte("\x7fELF")
)

// Sniff says what a file whose first bytes are head (its first SniffSize
// bytes, or all of it when shorter) and whose size is size is, and a
// phrase naming it for an error ("a PNG image"). It is the one place that
// tells a capture from the files given by mistake, for every command that
// reads captures: a caller that takes other inputs too (a JSON trace)
// routes on the Kind.
//
// Text is never a capture (every core header holds zero bytes; text holds
// none). The other kinds are told by their magic bytes, and only when the
// file cannot be a capture anyway: it is shorter than one core header, or
// its first 64 bytes are not a header slot 0 could hold (reserved not 0,
// or a core type and block id other than unused or the first region's
// block 0), which validate would refuse. So Sniff never turns a capture
// that decodes into an error; it only names what an invalid file is.
func Sniff(head []byte, size int64) (Kind, string) {
	if size == 0 {
		return KindEmpty, "empty (0 bytes)"
	}
	if bytes.HasPrefix(head, []byte(npyMagic)) {
		return KindNPY, "a NumPy .npy file"
	}
	if kind, what := textKind(head); kind != KindCapture {
		return kind, what
	}
	if couldBeSlot0(head) {
		return KindCapture, ""
	}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return KindGzip, "gzip-compressed data (a compressed trace?)"
	case bytes.HasPrefix(head, zipMagic), bytes.HasPrefix(head, zipEmpty):
		return KindZip, "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"
	case bytes.HasPrefix(head, pngMagic):
		return KindPNG, "a PNG image"
	case bytes.HasPrefix(head, elfMagic):
		return KindELF, "an ELF program or library"
	case perfettoPacket(head):
		return KindPerfetto, "a Perfetto protobuf trace"
	}
	return KindCapture, ""
}

// SniffReader is Sniff of the first SniffSize bytes read through r.
func SniffReader(r io.ReaderAt, size int64) (Kind, string, error) {
	var buf [SniffSize]byte
	n, err := r.ReadAt(buf[:min(size, SniffSize)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return KindCapture, "", err
	}
	k, what := Sniff(buf[:n], size)
	return k, what, nil
}

// couldBeSlot0 says whether head starts with a header that slot 0 (the
// first region's block 0) could hold without validate refusing it.
func couldBeSlot0(head []byte) bool {
	if len(head) < abi.CoreHeaderSize {
		return false
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(head[off:]) }
	t := u32(abi.CoreHeaderCoreTypeOffset)
	return u32(abi.CoreHeaderReservedOffset) == 0 && u32(abi.CoreHeaderBlockIDOffset) == 0 &&
		(t == 0 || t == uint32(abi.Regions()[0].CoreType))
}

// perfettoPacket says whether head starts as a Perfetto trace does: a
// Trace message's first field, packet (field 1, length-delimited), whose
// bytes are protobuf fields up to its end, or up to the end of head for a
// packet longer than head (its last field may be cut there).
func perfettoPacket(head []byte) bool {
	if len(head) < 2 || head[0] != 0x0a {
		return false
	}
	n, k := binary.Uvarint(head[1:])
	if k <= 0 || n == 0 {
		return false
	}
	p := head[1+k:]
	cut := uint64(len(p)) < n
	if !cut {
		p = p[:n]
	}
	fields := 0
walk:
	for len(p) > 0 {
		tag, k := binary.Uvarint(p)
		if k < 0 || k > 0 && tag>>3 == 0 {
			return false
		}
		if k == 0 {
			break
		}
		p = p[k:]
		var skip uint64
		switch tag & 7 {
		case 0:
			_, k := binary.Uvarint(p)
			if k < 0 {
				return false
			}
			if k == 0 {
				break walk
			}
			skip = uint64(k)
		case 1:
			skip = 8
		case 5:
			skip = 4
		case 2:
			l, k := binary.Uvarint(p)
			if k < 0 {
				return false
			}
			if k == 0 || l > uint64(len(p)-k) {
				break walk
			}
			skip = uint64(k) + l
		default:
			return false
		}
		if skip > uint64(len(p)) {
			break
		}
		p = p[skip:]
		fields++
	}
	return fields > 0 && (len(p) == 0 || cut)
}

// textKind says what head is when it is text (KindJSON, KindYAML or
// KindText, with a phrase: "JSON (a trace, ...)", "text (YAML or Markdown)",
// ...), else KindCapture.
func textKind(head []byte) (Kind, string) {
	b := head
	// A multi-byte character may be cut at the end of the sample.
	for cut := 0; len(head) == SniffSize && cut < utf8.UTFMax-1 && !utf8.Valid(b); cut++ {
		b = b[:len(b)-1]
	}
	if len(b) == 0 || !utf8.Valid(b) {
		return KindCapture, ""
	}
	for _, r := range string(b) {
		if r != '\n' && r != '\r' && r != '\t' && !unicode.IsPrint(r) {
			return KindCapture, ""
		}
	}
	t := strings.TrimSpace(string(b))
	switch {
	case t == "":
		return KindText, "blank text"
	case t[0] == '{' || t[0] == '[':
		return KindJSON, "JSON (a trace, a schedule or a names file?)"
	case strings.HasPrefix(t, "---") || strings.Contains(strings.SplitN(t, "\n", 2)[0], ":"):
		return KindYAML, "YAML (a schedule, a names file or a manifest?)"
	case t[0] == '#':
		// A YAML comment, or a Markdown heading: say both.
		return KindText, "text (YAML or Markdown)"
	}
	return KindText, "text"
}
