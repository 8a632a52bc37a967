// Package sniff tells what a file is from its first bytes: the one
// sniffer of the module. The commands that read captures, traces and
// framework traces all ask it, so a file given in the wrong place is
// named for what it is (a PNG image, a Perfetto trace, UTF-16 text) by
// one set of rules, and a JSON trace is told from a capture the same way
// everywhere.
//
// What it tells apart: a capture (what is left: raw bytes a buffer could
// hold), a NumPy .npy file, an empty file, JSON (and among it a JSON trace:
// cycleabi's, upstream's single or windowed export, a framework trace, a
// merged one — their readers tell those apart), YAML, other text, HTML or
// XML, UTF-16 and UTF-32 text, gzip (File and Reader look inside it),
// zip, PNG, PDF, ELF, zstd, bzip2, xz and Perfetto protobuf traces. Text
// may start with a UTF-8 byte-order mark and any amount of whitespace.
package sniff

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/infile"
)

// Kind is what a file is, as far as its leading bytes tell.
type Kind int

// The kinds. Only Capture and NPY can be captures; JSON can be a trace
// (Result.Trace); the others are files users give by mistake.
const (
	Capture  Kind = iota // none of the below: raw bytes, maybe a buffer
	NPY                  // a NumPy .npy file
	Empty                // no bytes at all
	JSON                 // text starting with { or [
	YAML                 // other text that looks like YAML
	Text                 // other text (blank, Markdown, prose)
	HTML                 // text starting with < (HTML, XML)
	UTF16                // text in UTF-16 (a byte-order mark says so)
	UTF32                // text in UTF-32 (a byte-order mark says so)
	Gzip                 // gzip-compressed data
	Zip                  // a zip archive (what torch.save writes)
	PNG                  // a PNG image
	PDF                  // a PDF document
	ELF                  // an ELF program or library
	Zstd                 // zstd-compressed data
	Bzip2                // bzip2-compressed data
	XZ                   // xz-compressed data
	Perfetto             // a Perfetto protobuf trace
)

// Size is how many bytes of text, after a byte-order mark and leading
// whitespace, Bytes looks at (and Reader reads).
const Size = 512

// Result is what a file is.
type Result struct {
	Kind Kind
	// What names it for an error ("a PNG image", "blank text").
	What string
	// Trace says JSON is a trace: an object with a traceEvents or
	// megaKernelCycleTrace member (Bytes looks among the first Size bytes,
	// Reader and File through the whole object).
	Trace bool
	// InGzip says Kind is of what gzip-compressed data holds (File and
	// Reader look inside; Bytes does not).
	InGzip bool
	// Start is text's first bytes after a byte-order mark and leading
	// whitespace (up to Size), for a message to quote.
	Start []byte
}

// The magic bytes of the kinds told by them, tried in order.
var magics = []struct {
	magic string
	kind  Kind
	what  string
}{
	{"\x1f\x8b\x08", Gzip, "gzip-compressed data (a compressed trace?)"}, // ID1, ID2, CM = deflate (RFC 1952)
	{"PK\x03\x04", Zip, "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"},
	{"PK\x05\x06", Zip, "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"}, // an empty archive's end record
	{"\x89PNG\r\n\x1a\n", PNG, "a PNG image"},
	{"%PDF", PDF, "a PDF document"},
	{"\x7fELF", ELF, "an ELF program or library"},
	{"\x28\xb5\x2f\xfd", Zstd, "zstd-compressed data"},
	{"BZh", Bzip2, "bzip2-compressed data"},
	{"\xfd7zXZ\x00", XZ, "xz-compressed data"},
}

// NPYMagic starts every NumPy .npy file.
const NPYMagic = "\x93NUMPY"

const utf8BOM = "\xef\xbb\xbf"

// Bytes says what a file whose first bytes are head (at least its first
// Size bytes after any byte-order mark and leading whitespace, or all of
// it when shorter) and whose size is size is.
//
// Text is never a capture (every core header holds zero bytes; text holds
// none). The other kinds are told by their byte-order marks and magic
// bytes, and only when the file cannot be a capture anyway: it is shorter than one core header, or
// its first 64 bytes are not a header slot 0 could hold (reserved not 0,
// or a core type and block id other than unused or the first region's
// block 0), which validate would refuse. So Bytes never turns a capture
// that decodes into an error; it only names what an invalid file is.
func Bytes(head []byte, size int64) Result {
	r, _ := classify(head, size)
	return r
}

// classify is Bytes, also saying whether head is blank text (a BOM and
// whitespace only), which Reader reads past.
func classify(head []byte, size int64) (Result, bool) {
	switch {
	case size == 0:
		return Result{Kind: Empty, What: "empty (0 bytes)"}, false
	case bytes.HasPrefix(head, []byte(NPYMagic)):
		return Result{Kind: NPY, What: "a NumPy .npy file"}, false
	case couldBeSlot0(head):
		// Before any byte-order mark: AIC/0's entry cycle may end in
		// 0xfeff (one capture in 32,768), and text holds no zero bytes.
		return Result{Kind: Capture}, false
	case bytes.HasPrefix(head, []byte("\xff\xfe\x00\x00")), bytes.HasPrefix(head, []byte("\x00\x00\xfe\xff")):
		return Result{Kind: UTF32, What: "UTF-32 text (save it as UTF-8)"}, false
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")):
		return Result{Kind: UTF16, What: "UTF-16 text (save it as UTF-8)"}, false
	}
	if r, blank, ok := text(head); ok {
		return r, blank
	}
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return Result{Kind: m.kind, What: m.what}, false
		}
	}
	if perfettoPacket(head) {
		return Result{Kind: Perfetto, What: "a Perfetto protobuf trace"}, false
	}
	return Result{Kind: Capture}, false
}

// text says what head is when it is text (after a UTF-8 byte-order mark):
// JSON, YAML, HTML or other text; ok is false for anything else.
func text(head []byte) (r Result, blank, ok bool) {
	b := bytes.TrimPrefix(head, []byte(utf8BOM))
	whole := b
	// A multi-byte character may be cut at the end of the sample.
	for cut := 0; len(head) >= Size && cut < utf8.UTFMax-1 && !utf8.Valid(b); cut++ {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return Result{}, false, len(head) > 0 // a BOM alone is blank text
	}
	printable := utf8.Valid(b)
	for _, c := range string(b) {
		if printable && c != '\n' && c != '\r' && c != '\t' && !unicode.IsPrint(c) {
			printable = false
		}
	}
	if !printable {
		// JSON may hold bytes that are not UTF-8 or not printable in its
		// strings (a reader replaces them), never a control character:
		// a capture, whose headers hold zero bytes, is never JSON.
		start := bytes.TrimLeft(b, " \t\r\n")
		if len(start) == 0 || start[0] != '{' && start[0] != '[' || hasControl(whole) {
			return Result{}, false, false
		}
	}
	start := bytes.TrimLeft(b, " \t\r\n")
	t := strings.TrimSpace(string(b))
	r = Result{Start: start}
	switch {
	case t == "":
		r.Kind, r.What = Text, "blank text"
		return r, true, true
	case t[0] == '{' || t[0] == '[':
		r.Kind, r.What = JSON, "JSON (a trace, a schedule or a names file?)"
		r.Trace = t[0] == '{' && (strings.Contains(t, `"traceEvents"`) || strings.Contains(t, `"megaKernelCycleTrace"`))
	case t[0] == '<':
		r.Kind, r.What = HTML, "HTML or XML (a report.html?)"
	case strings.HasPrefix(t, "---") || strings.Contains(strings.SplitN(t, "\n", 2)[0], ":"):
		r.Kind, r.What = YAML, "YAML (a schedule, a names file or a manifest?)"
	case t[0] == '#':
		// A YAML comment, or a Markdown heading: say both.
		r.Kind, r.What = Text, "text (YAML or Markdown)"
	default:
		r.Kind, r.What = Text, "text"
	}
	return r, false, true
}

// Reader says what the data r yields is (size bytes; -1 when not known),
// reading past a byte-order mark and any amount of leading whitespace to
// Size bytes of text, and into gzip-compressed data (Result.InGzip).
func Reader(r io.Reader, size int64) (Result, error) {
	return reader(r, size, true)
}

// Head is Reader without looking inside gzip-compressed data: for a
// reader of captures, to which gzip of anything is a compressed file.
func Head(r io.Reader, size int64) (Result, error) {
	return reader(r, size, false)
}

func reader(r io.Reader, size int64, gunzip bool) (Result, error) {
	head, err := readHead(r, Size)
	if err != nil {
		return Result{}, err
	}
	if size < 0 && len(head) < Size {
		size = int64(len(head))
	}
	res, blank := classify(head, size)
	if blank && len(head) == Size {
		// Whitespace to the end of the sample: read on to the first
		// byte that is not, and look at Size bytes from there.
		bom := bytes.HasPrefix(head, []byte(utf8BOM))
		rest, err := skipSpace(r)
		if err != nil {
			return Result{}, err
		}
		if len(rest) > 0 {
			if bom {
				rest = append([]byte(utf8BOM), rest...)
			}
			res, _ = classify(rest, size)
		}
	}
	if res.Kind == JSON && !res.Trace && len(res.Start) > 0 && res.Start[0] == '{' && len(head) == Size {
		// A trace's keys may follow other members (a framework trace
		// merged into, whose deviceProperties come first, a megabyte or
		// more): look further, to the end if need be, a piece at a time.
		found, err := traceKeyIn(r)
		if err != nil {
			return Result{}, err
		}
		res.Trace = found
	}
	if res.Kind != Gzip || !gunzip {
		return res, nil
	}
	zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(head), r))
	if err != nil {
		res.What = "gzip data that does not open (" + err.Error() + ")"
		return res, nil
	}
	in, err := reader(zr, -1, false)
	if err != nil {
		res.What = "gzip data that does not open (" + err.Error() + ")"
		return res, nil
	}
	if in.Kind == Capture {
		in.What = "binary data"
	}
	in.InGzip, in.What = true, "gzip holding "+in.What
	return in, nil
}

// File says what the file at path is (see Reader). It is opened as every
// input is (internal/infile: a pipe or device is refused, named).
func File(path string) (Result, error) {
	f, st, err := infile.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	return Reader(f, st.Size())
}

// readHead reads up to n bytes of r.
func readHead(r io.Reader, n int) ([]byte, error) {
	head := make([]byte, n)
	k, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return head[:k], nil
}

var traceKeys = [][]byte{[]byte(`"traceEvents"`), []byte(`"megaKernelCycleTrace"`)}

// traceKeyIn reads r to the first of a trace's keys, or to its end, 64 KiB
// at a time (memory does not grow with the file), and says whether it
// found one. A merged trace's keys follow the framework trace's members,
// which may be of any size: looking in the first megabyte only, a merged
// trace cycleabi wrote was not read back.
func traceKeyIn(r io.Reader) (bool, error) {
	const keep = len(`"megaKernelCycleTrace"`) - 1 // a key cut between chunks
	buf := make([]byte, 0, 64<<10)
	for {
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		for _, key := range traceKeys {
			if bytes.Contains(buf, key) {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) || k == 0 && err == nil && len(buf) == 0 {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
}

// skipSpace reads r past whitespace and returns up to Size bytes from the
// first byte that is not (none when r ends first).
func skipSpace(r io.Reader) ([]byte, error) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if i := bytes.IndexFunc(buf[:n], func(c rune) bool { return c != ' ' && c != '\t' && c != '\r' && c != '\n' }); i >= 0 {
			start := append([]byte(nil), buf[i:n]...)
			if len(start) < Size {
				more, err := readHead(r, Size-len(start))
				if err != nil {
					return nil, err
				}
				start = append(start, more...)
			}
			return start[:min(len(start), Size)], nil
		}
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// hasControl reports whether b holds a control character other than tab,
// newline and carriage return: JSON has none anywhere (a string escapes
// them), binary data (a capture that happens to start with '[') does.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return false
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
