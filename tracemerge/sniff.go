package tracemerge

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"unicode/utf8"
)

// sniffJSON checks that the file at path starts like JSON (after gzip,
// whitespace and a byte-order mark) and otherwise says what it is: a
// capture, a Perfetto trace, an image, an archive, so that a file given
// in the wrong place gets an error naming it, not a JSON syntax error at
// byte 0. what is the role the file was given as ("a framework trace").
func sniffJSON(path, what string) error {
	f, err := openFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	gz := ""
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			return &InputError{File: path, Msg: fmt.Sprintf("gzip data that does not open (%v), not %s", err, what)}
		}
		head = make([]byte, 512)
		n, _ := io.ReadFull(zr, head)
		head, gz = head[:n], "gzip holding "
	}
	kind := fileKind(head)
	if kind == "" {
		return nil
	}
	return &InputError{File: path, Msg: fmt.Sprintf("this is %s%s, not %s (a Chrome JSON trace: %s)", gz, kind, what, expectedJSON(what))}
}

func expectedJSON(what string) string {
	if what == "a MegaKernel trace" {
		return "what cycleabi decode writes with --format json, the default"
	}
	return "torch profiler / Kineto, or CANN msprof's trace.json"
}

// fileKind names what head (a file's first bytes) is when it is not the
// start of JSON; "" when it may be JSON.
func fileKind(head []byte) string {
	t := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t = bytes.TrimLeft(t, " \t\r\n")
	if len(head) == 0 {
		return "an empty file"
	}
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && !hasControl(head) {
		return ""
	}
	for _, k := range []struct{ magic, kind string }{
		{"\x93NUMPY", "a NumPy .npy file (a capture? cycleabi decode turns it into a trace)"},
		{"\x89PNG\r\n\x1a\n", "a PNG image"},
		{"PK\x03\x04", "a zip archive (torch.save? a capture is saved with numpy().tofile or np.save)"},
		{"%PDF", "a PDF document"},
		{"\x7fELF", "an ELF executable"},
		{"\x28\xb5\x2f\xfd", "zstd-compressed data"},
		{"BZh", "bzip2-compressed data"},
		{"\xfd7zXZ", "xz-compressed data"},
	} {
		if bytes.HasPrefix(head, []byte(k.magic)) {
			return k.kind
		}
	}
	if len(t) > 0 && t[0] == '<' {
		return "HTML or XML (a report.html?)"
	}
	if isPerfetto(head) {
		return "a Perfetto protobuf trace (.pftrace; merge reads JSON traces: decode with --format json)"
	}
	if !utf8.Valid(head[:max(0, len(head)-3)]) || hasControl(head) {
		return "binary data (a raw capture? cycleabi decode turns it into a trace)"
	}
	return fmt.Sprintf("text that is not JSON (it starts %q)", firstLine(t))
}

// isPerfetto reports whether b starts like a Perfetto Trace: field 1
// (TracePacket, length-delimited) with a length varint, then a packet
// whose first byte is a plausible field tag.
func isPerfetto(b []byte) bool {
	if len(b) < 3 || b[0] != 0x0a {
		return false
	}
	i, l := 1, 0
	for shift := 0; i < len(b) && shift < 35; shift += 7 {
		c := b[i]
		i++
		l |= int(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	if l == 0 || i >= len(b) {
		return false
	}
	wire := b[i] & 7
	return b[i] >= 8 && (wire == 0 || wire == 1 || wire == 2 || wire == 5)
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
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
