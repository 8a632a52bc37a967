package capture_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// mistakenFiles are files a user gives where a capture belongs, each
// written by the library that writes such files (the Perfetto trace by
// hand: a TracePacket with a timestamp, field 8, and a sequence id, 10),
// with the kind Sniff must say and the phrase the error must hold.
func mistakenFiles(t testing.TB) map[string]struct {
	data []byte
	kind capture.Kind
	what string
} {
	t.Helper()
	trace := []byte(`{"traceEvents":[],"megaKernelCycleTrace":{}}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat(trace, 20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	za := zip.NewWriter(&zb)
	w, err := za.Create("archive/data.pkl")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte{0x80, 2, 0x8a, 0x0a}, 100))
	if err := za.Close(); err != nil {
		t.Fatal(err)
	}
	var pb bytes.Buffer
	if err := png.Encode(&pb, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
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
		kind capture.Kind
		what string
	}
	return map[string]c{
		"trace.json.gz":   {gz.Bytes(), capture.KindGzip, "gzip-compressed data (a compressed trace?)"},
		"tensor.pt":       {zb.Bytes(), capture.KindZip, "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)"},
		"report.png":      {pb.Bytes(), capture.KindPNG, "a PNG image"},
		"cycleabi":        {elf[:min(len(elf), 4096)], capture.KindELF, "an ELF program or library"},
		"trace.pftrace":   {pf, capture.KindPerfetto, "a Perfetto protobuf trace"},
		"empty.bin":       {nil, capture.KindEmpty, "empty (0 bytes)"},
		"trace.json":      {trace, capture.KindJSON, "JSON (a trace, a schedule or a names file?)"},
		"moe.yaml":        {[]byte("num_workers: 48\ntasks: []\n"), capture.KindYAML, "YAML (a schedule, a names file or a manifest?)"},
		"notes.txt":       {[]byte("hello\n"), capture.KindText, "text"},
		"capture.npy.bin": {capturetest.NPYWithHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (0,), }", nil), capture.KindNPY, "a NumPy .npy file"},
	}
}

// Files that are not captures are named for what they are, by Sniff and
// in the loader's error, before anything about fields; cut to fewer bytes
// than a core header, they still are.
func TestSniffNamesMistakenFiles(t *testing.T) {
	for name, f := range mistakenFiles(t) {
		head := f.data[:min(len(f.data), capture.SniffSize)]
		kind, what := capture.Sniff(head, int64(len(f.data)))
		if kind != f.kind {
			t.Errorf("%s: kind = %v, want %v", name, kind, f.kind)
		}
		if what != f.what {
			t.Errorf("%s: what = %q, want %q", name, what, f.what)
		}
		if f.kind == capture.KindNPY {
			continue
		}
		_, err := capture.FromBytes(name, f.data)
		p := problem(t, err)
		if p.Code != capture.CodeNotACapture {
			t.Errorf("%s: p.Code = %q, want %q", name, p.Code, capture.CodeNotACapture)
		}
		if p.Msg != "not a capture: the file is "+f.what+"; a capture is the profiling buffer's bytes (tensor.numpy().tofile()) or a .npy file (np.save)" {
			t.Errorf("%s: p.Msg = %q, want %q", name, p.Msg, "not a capture: the file is "+f.what+"; a capture is the profiling buffer's bytes (tensor.numpy().tofile()) or a .npy file (np.save)")
		}
		if len(f.data) > 12 && f.kind != capture.KindJSON && f.kind != capture.KindYAML {
			k, _ := capture.Sniff(f.data[:12], 12)
			if k != f.kind {
				t.Errorf("%s cut to 12 bytes: k = %v, want %v", name, k, f.kind)
			}
		}
	}
}

// A capture whose first bytes happen to be one of those magics (the low
// bytes of AIC/0's entry cycle) is a capture: Sniff names a file only
// when its first 64 bytes are no header slot 0 could hold.
func TestSniffKeepsCaptures(t *testing.T) {
	for name, f := range mistakenFiles(t) {
		if len(f.data) < 8 || f.kind == capture.KindNPY || f.kind == capture.KindJSON || f.kind == capture.KindYAML || f.kind == capture.KindText {
			continue
		}
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, binary.LittleEndian.Uint64(f.data)).Span(abi.CoreTypeAIC, 0, 100, 200, abi.TaskTypeBase, 1)
		if !bytes.HasPrefix(b.Bytes(), f.data[:8]) {
			t.Fatalf("%s: bytes.HasPrefix(b.Bytes(), f.data[:8]) = false, want true", name)
		}
		kind, _ := capture.Sniff(b.Bytes()[:capture.SniffSize], int64(len(b.Bytes())))
		if kind != capture.KindCapture {
			t.Errorf("%s: kind = %v, want %v", name, kind, capture.KindCapture)
		}
		_, err := capture.FromBytes(name, b.Bytes())
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		// With reserved set (which validate refuses) it is named again.
		binary.LittleEndian.PutUint32(b.Buf[abi.CoreHeaderReservedOffset:], 1)
		kind, _ = capture.Sniff(b.Bytes()[:capture.SniffSize], int64(len(b.Bytes())))
		if kind != f.kind {
			t.Errorf("%s: kind = %v, want %v", name, kind, f.kind)
		}
	}
	// An unused slot 0 (all zero) and slot 0 entered: captures.
	for _, b := range [][]byte{capturetest.New(24, 16, 16).Bytes(), small().Bytes()} {
		kind, _ := capture.Sniff(b[:capture.SniffSize], int64(len(b)))
		if kind != capture.KindCapture {
			t.Errorf("kind = %v, want %v", kind, capture.KindCapture)
		}
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
		kind, what := capture.Sniff(data[:min(len(data), capture.SniffSize)], int64(len(data)))
		switch kind {
		case capture.KindGzip, capture.KindZip, capture.KindPNG, capture.KindELF, capture.KindPerfetto:
			if h, err := abi.DecodeCoreHeader(data); err == nil && h.Reserved == 0 && h.BlockID == 0 &&
				(h.CoreType == 0 || h.CoreType == abi.Regions()[0].CoreType) {
				t.Fatalf("named %q, but its first header could be slot 0's: %+v", what, h)
			}
		}
		_, err := capture.FromBytes("f", data)
		var p *capture.Problem
		named := errors.As(err, &p) && p.Code == capture.CodeNotACapture
		if named != (kind != capture.KindCapture && kind != capture.KindNPY) {
			t.Fatalf("Sniff says %d (%q); the loader: %v", kind, what, err)
		}
	})
}
