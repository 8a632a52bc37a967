package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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
	require.Equalf(t, 0, code, "%s: code", stderr)
	_, stderr, code = runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", in("trace.pftrace"))
	require.Equalf(t, 0, code, "%s: code", stderr)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("x"))
	zw.Close()
	require.NoError(t, os.WriteFile(in("tiny.gz"), z.Bytes(), 0o644))
	// torch.save's zip: a local file header for archive/data.pkl.
	require.NoError(t, os.WriteFile(in("tensor.pt"), append([]byte("PK\x03\x04\x00\x00\x08\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00archive/data.pkl"), make([]byte, 300)...), 0o644))
	require.NoError(t, os.WriteFile(in("empty.bin"), nil, 0o644))
	png, err := os.ReadFile("../../../docs/report.png")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in("report.png"), png, 0o644))
	// A MegaKernel JSON trace, gzip or not, is read as its captures by
	// every command below but dump (TestTraceCommands); dump names it.
	_, stderr, code = runMain(t, "dump", in("trace.json.gz"))
	require.Equalf(t, 1, code, "%s: code", stderr)
	require.Contains(t, stderr, in("trace.json.gz")+": not-a-capture @0x0: not a capture: the file is gzip-compressed; decompressed, it is JSON (a trace,", "stderr")
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
			require.Equalf(t, 1, code, "%v: %s: code", args, stderr)
			if args[0] == "validate" {
				// validate lists its findings on stdout.
				require.Containsf(t, stdout, "error not-a-capture @0x0: not a capture: the file is "+what+";", "%v: stdout", args)
			} else {
				require.Containsf(t, stderr, want, "%v: stderr", args)
			}
			for _, out := range []string{"out.json", "out.html"} {
				_, err := os.Stat(in(out))
				require.Truef(t, os.IsNotExist(err), "%v left %s: os.IsNotExist(err) = false, want true", args, out)
			}
		}
	}
}
