package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode warns of bytes after the layout as validate does, in the same
// words: validate's line, less its "warning " prefix, is in decode's.
func TestDecodeWarnsBytesAfterLayout(t *testing.T) {
	path := writeCapture(t, "trail.bin", append(validCapture().Bytes(), make([]byte, 96)...))
	out, _, code := runMain(t, "validate", path)
	require.Equal(t, exitOK, code)
	var line string
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(l, "warning bytes-after-layout "); ok {
			line = "bytes-after-layout " + strings.TrimSuffix(rest, "\n")
		}
	}
	require.NotEmpty(t, line, "validate reports no bytes-after-layout:\n%s", out)
	assert.Contains(t, line, "96 extra bytes")

	_, stderr, code := runMain(t, "decode", path, "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "cycleabi: warning: "+path+": "+line+"\n")

	// A capture that ends with its layout gets no such warning.
	_, stderr, code = runMain(t, "decode", writeCapture(t, "ok.bin", validCapture().Bytes()), "-o", filepath.Join(t.TempDir(), "t.json"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "bytes-after-layout")
}

// decode says when it replaced a file, most of all the default
// ./trace.json and ./trace.pftrace a second decode would replace.
func TestDecodeSaysReplaced(t *testing.T) {
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{}, {"--format", "perfetto"}, {"-o", "named.json"}} {
		_, stderr, code := runMain(t, append([]string{"decode", path}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.NotContains(t, stderr, "replaced", args)
		_, stderr, code = runMain(t, append([]string{"decode", path}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, " (replaced the file that was there)", args)
	}
	_, stderr, code := runMain(t, "decode", path, "-o", "-")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "written to stdout;")
}

// report says where the page went and how large it is, and when it
// replaced a file.
func TestReportSaysWhereAndSize(t *testing.T) {
	path := writeCapture(t, "c.bin", validCapture().Bytes())
	page := filepath.Join(t.TempDir(), "r.html")
	for _, replaced := range []string{"", " (replaced the file that was there)"} {
		_, stderr, code := runMain(t, "report", path, "-o", page)
		require.Equal(t, exitOK, code, stderr)
		st, err := os.Stat(page)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("cycleabi: report of 1 capture(s) written to %s%s, %d bytes (%s); open it in a browser\n",
			page, replaced, st.Size(), humanBytes(uint64(st.Size()))), stderr)
	}
	stdout, stderr, code := runMain(t, "report", path, "-o", "-")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, fmt.Sprintf("written to stdout, %d bytes", len(stdout)))
}
