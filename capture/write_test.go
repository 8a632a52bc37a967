package capture_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"pgregory.net/rapid"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var npyDict = regexp.MustCompile(`^\{'descr': '\|u1', 'fortran_order': False, 'shape': \((\d+),\), \} *\n$`)

func TestNPYHeader(t *testing.T) {
	for _, n := range []uint64{0, 1, 41472, 1 << 40, 1<<64 - 1} {
		h := capture.NPYHeader(n)
		require.Equalf(t, 0, len(h)%64, "n=%d: header %q", n, h)
		require.Equalf(t, "\x93NUMPY\x01\x00", string(h[:8]), "n=%d: header %q", n, h)
		assert.Equalf(t, len(h)-10, int(binary.LittleEndian.Uint16(h[8:10])), "n=%d: header length, header is %d bytes", n, len(h))
		m := npyDict.FindSubmatch(h[10:])
		require.NotNilf(t, m, "n=%d: dict %q", n, h[10:])
		assert.Equalf(t, fmt.Sprint(n), string(m[1]), "n=%d: dict %q", n, h[10:])
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	buf := []byte{1, 2, 3, 4}
	for _, f := range []capture.Format{capture.Raw, capture.NPY} {
		path := filepath.Join(dir, "capture."+f.String())
		os.WriteFile(path, []byte("old contents, replaced whole"), 0o600)
		require.NoError(t, capture.WriteFile(path, buf, f))
		got, _ := os.ReadFile(path)
		want := buf
		if f == capture.NPY {
			want = append(capture.NPYHeader(4), buf...)
		}
		assert.Equalf(t, []byte(want), []byte(got), "%s: wrote", f)
	}
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "temporary files left behind")
	assert.Error(t, capture.WriteFile(filepath.Join(dir, "no/such/dir/x.bin"), buf, capture.Raw), "writing into a missing directory succeeded")
}

// TestWriteThenOpen: what Write writes, Open reads back as the same
// format and the same buffer, for any buffer.
func TestWriteThenOpen(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		buf := rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "buffer")
		f := rapid.SampledFrom([]capture.Format{capture.Raw, capture.NPY}).Draw(t, "format")
		var file bytes.Buffer
		require.NoError(t, capture.Write(&file, buf, f))
		c, err := capture.FromBytes("x", file.Bytes())
		if err != nil {
			if f == capture.Raw {
				return // raw bytes need not be a capture (text is refused)
			}
			require.FailNow(t, fmt.Sprintf("%s: %v", f, err))
		}
		if !(f == capture.Raw && bytes.HasPrefix(buf, []byte("\x93NUMPY"))) {
			require.Equal(t, f, c.Format, "format read back")
		}
		if c.Format != f {
			return
		}
		got := make([]byte, c.Size())
		_, err = c.ReadAt(got, 0)
		if len(got) > 0 {
			require.NoError(t, err)
		}
		require.Equalf(t, []byte(buf), []byte(got), "%s: read back", f)
	})
}

// TestNPYHeaderDictNumPy: NumPy itself reads what NPYHeaderDict writes, for
// dicts of every length around the 64-byte padding steps (skipped without
// python3 and NumPy).
func TestNPYHeaderDictNumPy(t *testing.T) {
	short.Skip(t, "runs python3")
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("python3 with NumPy is not installed")
	}
	dir := t.TempDir()
	for n := 0; n < 200; n += 7 {
		// A shape padded with spaces inside the dict moves the length.
		dict := fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d,),%*s}", n, n%67, "")
		buf := bytes.Repeat([]byte{byte(n)}, n)
		path := filepath.Join(dir, fmt.Sprintf("%d.npy", n))
		require.NoError(t, os.WriteFile(path, append(capture.NPYHeaderDict(dict), buf...), 0o600))
	}
	out, err := exec.Command(python, "-c", `
import glob, os, sys, numpy as np
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.npy"))):
    n = int(os.path.basename(p)[:-4])
    a = np.load(p)
    assert a.dtype == np.uint8 and a.shape == (n,) and (a == n).all(), p
print("ok")
`, dir).CombinedOutput()
	require.NoErrorf(t, err, "numpy\n%s", out)
	require.Equalf(t, "ok\n", string(out), "numpy\n%s", out)
}
