package sniff_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/sniff"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mistakenFiles are files a user gives where a capture belongs, each
// written by the library that writes such files (the Perfetto trace by
// hand: a TracePacket with a timestamp, field 8, and a sequence id, 10),
// with the kind Sniff must say and the phrase the error must hold.
func mistakenFiles(t testing.TB) map[string]struct {
	data []byte
	kind sniff.Kind
	what string
} {
	t.Helper()
	trace := []byte(`{"traceEvents":[],"megaKernelCycleTrace":{}}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat(trace, 20))
	require.NoError(t, zw.Close())
	var zb bytes.Buffer
	za := zip.NewWriter(&zb)
	w, err := za.Create("archive/data.pkl")
	require.NoError(t, err)
	w.Write(bytes.Repeat([]byte{0x80, 2, 0x8a, 0x0a}, 100))
	require.NoError(t, za.Close())
	var pb bytes.Buffer
	require.NoError(t, png.Encode(&pb, image.NewGray(image.Rect(0, 0, 3, 2))))
	packet := []byte{0x40}
	packet = binary.AppendUvarint(packet, 123456789)
	packet = append(packet, 0x50, 0x01)
	pf := []byte{0x0a}
	pf = binary.AppendUvarint(pf, uint64(len(packet)))
	pf = append(pf, packet...)
	pf = append(append(pf, pf...), pf...) // three packets
	elf, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		elf = append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00"), make([]byte, 100)...)
	}
	type c = struct {
		data []byte
		kind sniff.Kind
		what string
	}
	return map[string]c{
		"trace.json.gz":   {gz.Bytes(), sniff.Gzip, "gzip-compressed data (a compressed trace?)"},
		"tensor.pt":       {zb.Bytes(), sniff.Zip, "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"},
		"report.png":      {pb.Bytes(), sniff.PNG, "a PNG image"},
		"cycleabi":        {elf[:min(len(elf), 4096)], sniff.ELF, "an ELF program or library"},
		"trace.pftrace":   {pf, sniff.Perfetto, "a Perfetto protobuf trace"},
		"empty.bin":       {nil, sniff.Empty, "empty (0 bytes)"},
		"trace.json":      {trace, sniff.JSON, "JSON (a trace, a schedule or a names file?)"},
		"moe.yaml":        {[]byte("num_workers: 48\ntasks: []\n"), sniff.YAML, "YAML (a schedule, a names file or a manifest?)"},
		"notes.txt":       {[]byte("hello\n"), sniff.Text, "text"},
		"capture.npy.bin": {capturetest.NPYWithHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (0,), }", nil), sniff.NPY, "a NumPy .npy file"},
	}
}

// Files that are not captures are named for what they are, by Sniff and
// in the loader's error, before anything about fields; cut to fewer bytes
// than a core header, they still are.
func TestSniffNamesMistakenFiles(t *testing.T) {
	for name, f := range mistakenFiles(t) {
		head := f.data[:min(len(f.data), sniff.Size)]
		kind, what := sniffBytes(head, int64(len(f.data)))
		assert.Equalf(t, f.kind, kind, "%s: kind", name)
		assert.Equalf(t, f.what, what, "%s: what", name)
		if f.kind == sniff.NPY {
			continue
		}
		_, err := capture.FromBytes(name, f.data)
		p := problem(t, err)
		assert.Equalf(t, capture.Code(capture.CodeNotACapture), p.Code, "%s: p.Code", name)
		assert.Equalf(t, "not a capture: the file is "+f.what+"; a capture is the profiling buffer's bytes (tensor.numpy().tofile()) or a .npy file (np.save)", p.Msg, "%s: p.Msg", name)
		if len(f.data) > 12 && f.kind != sniff.JSON && f.kind != sniff.YAML {
			k, _ := sniffBytes(f.data[:12], 12)
			assert.Equalf(t, f.kind, k, "%s cut to 12 bytes: k", name)
		}
	}
}

// A capture whose first bytes happen to be one of those magics (the low
// bytes of AIC/0's entry cycle) is a capture: Sniff names a file only
// when its first 64 bytes are no header slot 0 could hold.
func TestSniffKeepsCaptures(t *testing.T) {
	for name, f := range mistakenFiles(t) {
		if len(f.data) < 8 || f.kind == sniff.NPY || f.kind == sniff.JSON || f.kind == sniff.YAML || f.kind == sniff.Text {
			continue
		}
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, binary.LittleEndian.Uint64(f.data)).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase, 1)
		require.Truef(t, bytes.HasPrefix(b.Bytes(), f.data[:8]), "%s: bytes.HasPrefix(b.Bytes(), f.data[:8]) = false, want true", name)
		kind, _ := sniffBytes(b.Bytes()[:sniff.Size], int64(len(b.Bytes())))
		assert.Equalf(t, sniff.Kind(sniff.Capture), kind, "%s: kind", name)
		_, err := capture.FromBytes(name, b.Bytes())
		assert.NoErrorf(t, err, "%s", name)
		// With reserved set (which validate refuses) it is named again.
		binary.LittleEndian.PutUint32(b.Buf[abi.CoreHeaderReservedOffset:], 1)
		kind, _ = sniffBytes(b.Bytes()[:sniff.Size], int64(len(b.Bytes())))
		assert.Equalf(t, f.kind, kind, "%s: kind", name)
	}
	// An unused slot 0 (all zero) and slot 0 entered: captures.
	for _, b := range [][]byte{capturetest.New(24, 16, 16).Bytes(), small().Bytes()} {
		kind, _ := sniffBytes(b[:sniff.Size], int64(len(b)))
		assert.Equal(t, sniff.Kind(sniff.Capture), kind, "kind")
	}
}

// FuzzSniff: Sniff reads any bytes without panicking; a file it names by
// magic bytes is one no capture could be (shorter than a core header, or
// a first header validate refuses: reserved set, or not AIC/0 nor
// unused), read here with the generated header decoder; and the loader
// refuses exactly the files Sniff names, as not-a-capture.
func FuzzSniff(f *testing.F) {
	for _, m := range mistakenFiles(f) {
		f.Add(m.data)
	}
	f.Add(small().Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, what := sniffBytes(data[:min(len(data), sniff.Size)], int64(len(data)))
		switch kind {
		case sniff.Gzip, sniff.Zip, sniff.PNG, sniff.ELF, sniff.Perfetto:
			h, err := abi.DecodeCoreHeader(data)
			require.Falsef(t, err == nil && h.Reserved == 0 && h.BlockID == 0 &&
				(h.CoreType == 0 || h.CoreType == abi.Regions()[0].CoreType), "named %q, but its first header could be slot 0's: %+v", what, h)
		}
		_, err := capture.FromBytes("f", data)
		var p *capture.Problem
		named := errors.As(err, &p) && p.Code == capture.CodeNotACapture
		require.Equalf(t, (kind != sniff.Capture && kind != sniff.NPY), named, "Sniff says %d (%q); the loader: %v", kind, what, err)
	})
}

// sniffBytes is sniff.Bytes as kind and phrase.
func sniffBytes(head []byte, size int64) (sniff.Kind, string) {
	r := sniff.Bytes(head, size)
	return r.Kind, r.What
}

func problem(t *testing.T, err error) *capture.Problem {
	t.Helper()
	var p *capture.Problem
	require.ErrorAsf(t, err, &p, "want a *capture.Problem, got %v: errors.As(err, &p) = false, want true", err)
	return p
}

// Text may start with a UTF-8 byte-order mark and any amount of
// whitespace: a trace so written is a trace (it had been read as a
// capture, "bad-capacity AIC/0", with a BOM; as blank text after 498
// spaces, since 512 bytes were read). UTF-16 and UTF-32 text are named.
func TestReaderText(t *testing.T) {
	trace := `{"traceEvents":[],"megaKernelCycleTrace":{}}`
	gzipped := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.String()
	}
	utf16le := func(s string) string {
		b := []byte("\xff\xfe")
		for _, c := range []byte(s) {
			b = append(b, c, 0)
		}
		return string(b)
	}
	for _, c := range []struct {
		name, data string
		kind       sniff.Kind
		trace, gz  bool
		what       string
	}{
		{"plain", trace, sniff.JSON, true, false, ""},
		{"BOM", "\xef\xbb\xbf" + trace, sniff.JSON, true, false, ""},
		{"600 spaces", strings.Repeat(" ", 600) + trace, sniff.JSON, true, false, ""},
		{"BOM, 100000 newlines", "\xef\xbb\xbf" + strings.Repeat("\r\n", 50000) + trace, sniff.JSON, true, false, ""},
		{"blank, long", strings.Repeat(" \n", 5000), sniff.Text, false, false, "blank text"},
		{"a schedule", `{"num_workers": 2, "tasks": []}`, sniff.JSON, false, false, ""},
		{"keys after 600 bytes", `{"deviceProperties": "` + strings.Repeat("x", 600) + `", "traceEvents": []}`, sniff.JSON, true, false, ""},
		{"keys after 70000 bytes", `{"deviceProperties": "` + strings.Repeat("x", 70000) + `", "megaKernelCycleTrace": {}}`, sniff.JSON, true, false, ""},
		{"a long schedule", `{"tasks": "` + strings.Repeat("x", 600) + `"}`, sniff.JSON, false, false, ""},
		{"gzip of a trace", gzipped(strings.Repeat(" ", 700) + trace), sniff.JSON, true, true, ""},
		{"gzip of YAML", gzipped("num_workers: 2\n"), sniff.YAML, false, true, "gzip holding YAML (a schedule, a names file or a manifest?)"},
		{"gzip of gzip", gzipped(gzipped(trace)), sniff.Gzip, false, true, "gzip holding gzip-compressed data (a compressed trace?)"},
		{"UTF-16", utf16le(trace), sniff.UTF16, false, false, "UTF-16 text (save it as UTF-8)"},
		{"UTF-32", "\xff\xfe\x00\x00{\x00\x00\x00", sniff.UTF32, false, false, "UTF-32 text (save it as UTF-8)"},
		{"HTML", "<!DOCTYPE html>\n<html>", sniff.HTML, false, false, "HTML or XML (a report.html?)"},
		{"PDF", "%PDF-1.7\n\x80\x81\x82", sniff.PDF, false, false, "a PDF document"},
		{"zstd", "\x28\xb5\x2f\xfd\x00\x58", sniff.Zstd, false, false, "zstd-compressed data"},
	} {
		r, err := sniff.Reader(strings.NewReader(c.data), int64(len(c.data)))
		require.NoError(t, err)
		assert.Equalf(t, c.kind, r.Kind, "%s: Reader, trace, in gzip, %q, %q", c.name, r.What, c.what)
		assert.Equalf(t, c.trace, r.Trace, "%s: Reader, trace, in gzip, %q, %q", c.name, r.What, c.what)
		assert.Equalf(t, c.gz, r.InGzip, "%s: Reader, trace, in gzip, %q, %q", c.name, r.What, c.what)
		assert.Falsef(t, c.what != "" && r.What != c.what, "%s: Reader, trace, in gzip, %q, %q", c.name, r.What, c.what)
	}
}

// small is a capture of the smallest layout with a few records.
func small() *capturetest.Builder {
	b := capturetest.New(abi.MinCubeSlots, 16, 32)
	b.Enter(abi.CoreTypeAIV, 0, 800)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Span(abi.CoreTypeAIC, 0, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
		Span(abi.CoreTypeAIC, 0, 1250, 1300, abi.RuntimeStageTriggerEvent, 1)
	b.Enter(abi.CoreTypeAIV, 5, 900).
		Span(abi.CoreTypeAIV, 5, 950, 990, abi.TaskTypeBase+uint32(abi.TaskTypeSwiGLU), 2)
	return b
}

// TestSniffKeepsCapturesStartingWithABOM: a capture whose AIC/0 entry
// cycle begins with a byte-order mark (UTF-16 and UTF-32 either way,
// UTF-8) or gzip's magic is a capture, to Bytes and to Reader, plain and
// inside gzip; with reserved set (no capture) the mark names it again.
func TestSniffKeepsCapturesStartingWithABOM(t *testing.T) {
	marks := map[string]sniff.Kind{
		"\xff\xfe": sniff.UTF16, "\xfe\xff": sniff.UTF16,
		"\xff\xfe\x00\x00": sniff.UTF32, "\x00\x00\xfe\xff": sniff.UTF32,
		"\xef\xbb\xbf": sniff.Text, "\x1f\x8b\x08": sniff.Gzip,
	}
	for mark, named := range marks {
		pre := []byte(mark + "AAAAAAAA")[:8] // ff fe, then no 00 00 of UTF-32's
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, binary.LittleEndian.Uint64(pre)).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase, 1)
		data := b.Bytes()
		r := sniff.Bytes(data[:sniff.Size], int64(len(data)))
		assert.Equalf(t, sniff.Kind(sniff.Capture), r.Kind, "% x: Bytes (%s), want a capture", mark, r.What)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		for _, in := range []struct {
			data []byte
			gzip bool
		}{{data, false}, {gz.Bytes(), true}} {
			r, err := sniff.Reader(bytes.NewReader(in.data), int64(len(in.data)))
			require.NoErrorf(t, err, "% x (gzip: Reader (%s), in gzip; want a capture", mark, r.What)
			assert.Equalf(t, sniff.Kind(sniff.Capture), r.Kind, "% x (gzip: Reader (%s), in gzip; want a capture", mark, r.What)
			assert.Equalf(t, in.gzip, r.InGzip, "% x (gzip: Reader (%s), in gzip; want a capture", mark, r.What)
		}
		if named == sniff.Text {
			continue // the rest holds zero bytes, so it is no text
		}
		binary.LittleEndian.PutUint32(b.Buf[abi.CoreHeaderReservedOffset:], 1)
		r = sniff.Bytes(data[:sniff.Size], int64(len(data)))
		assert.Equalf(t, named, r.Kind, "% x with reserved set: Bytes (%s)", mark, r.What)
	}
}

// TestReaderFindsTraceKeysPastAMegabyte: a JSON object whose trace keys
// follow a first member of any size (a merged trace: cycleabi merge
// writes the framework trace's members first) is a trace to Reader; it
// looked in the first megabyte only. An object without them is not.
func TestReaderFindsTraceKeysPastAMegabyte(t *testing.T) {
	big := `{"deviceProperties":[` + strings.Repeat(`{"name":"NPU"},`, 300000) + `{}],`
	for _, c := range []struct {
		text  string
		trace bool
	}{
		{big + `"traceEvents":[],"megaKernelCycleTrace":{}}`, true},
		{big + `"megaKernelCycleTrace":{}}`, true},
		{big + `"other":[]}`, false},
	} {
		r, err := sniff.Reader(strings.NewReader(c.text), int64(len(c.text)))
		tail := c.text[max(0, len(c.text)-30):]
		if assert.NoErrorf(t, err, "%d bytes, ending %q", len(c.text), tail) {
			assert.Equalf(t, sniff.JSON, r.Kind, "%d bytes, ending %q", len(c.text), tail)
			assert.Equalf(t, c.trace, r.Trace, "%d bytes, ending %q: trace", len(c.text), tail)
		}
	}
}
