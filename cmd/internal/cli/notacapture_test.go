package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command that reads captures names a file that is not one for what
// it is (the capture loader's one check), exits 1 and writes nothing: the
// files a new user gives by mistake, each made as cycleabi or the tool
// that writes it makes it.
func TestCommandsNameFilesThatAreNotCaptures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := func(n string) string { return filepath.Join(dir, n) }
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", in("trace.json.gz"))
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	_, stderr, code = runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", in("trace.pftrace"))
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("x"))
	zw.Close()
	if err := os.WriteFile(in("tiny.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// torch.save's zip: a local file header for archive/data.pkl.
	if err := os.WriteFile(in("tensor.pt"), append([]byte("PK\x03\x04\x00\x00\x08\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00archive/data.pkl"), make([]byte, 300)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in("empty.bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile("../../../docs/report.png")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in("report.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	// A MegaKernel JSON trace, gzip or not, is read as its captures by
	// every command below but dump (TestTraceCommands); dump names it.
	_, stderr, code = runMain(t, "dump", in("trace.json.gz"))
	if code != 1 {
		t.Fatalf("%s: code = %v, want 1", stderr, code)
	}
	if want := in("trace.json.gz") + ": not-a-capture @0x0: not a capture: the file is gzip-compressed; decompressed, it is JSON (a trace,"; !strings.Contains(stderr, want) {
		t.Fatalf("stderr = %q, want it to contain %q", stderr, want)
	}
	files := map[string]string{
		// A gzip capture is read decompressed, as a .json.gz trace is: what
		// is not a capture is named for what it holds.
		"tiny.gz":       "gzip-compressed; decompressed, it is text",
		"trace.pftrace": "a Perfetto protobuf trace",
		"tensor.pt":     "a zip archive (torch.save? save the tensor with numpy().tofile or np.save)",
		"report.png":    "a PNG image",
		"empty.bin":     "empty (0 bytes)",
	}
	for name, what := range files {
		want := in(name) + ": not-a-capture @0x0: not a capture: the file is " + what + ";"
		for _, args := range [][]string{
			{"validate", in(name)},
			{"dump", in(name)},
			{"decode", in(name), "-o", in("out.json")},
			{"analyze", in(name)},
			{"report", in(name), "-o", in("out.html")},
			{"diff", "../../../examples/moe_layer.bin", in(name)},
		} {
			stdout, stderr, code := runMain(t, args...)
			if code != 1 {
				t.Fatalf("%v: %s: code = %v, want 1", args, stderr, code)
			}
			if args[0] == "validate" {
				// validate lists its findings on stdout.
				if want := "error not-a-capture @0x0: not a capture: the file is " + what + ";"; !strings.Contains(stdout, want) {
					t.Fatalf("%v: stdout = %q, want it to contain %q", args, stdout, want)
				}
			} else {
				if !strings.Contains(stderr, want) {
					t.Fatalf("%v: stderr = %q, want it to contain %q", args, stderr, want)
				}
			}
			for _, out := range []string{"out.json", "out.html"} {
				_, err := os.Stat(in(out))
				if !os.IsNotExist(err) {
					t.Fatalf("%v left %s: os.IsNotExist(err) = false, want true", args, out)
				}
			}
		}
	}
}
