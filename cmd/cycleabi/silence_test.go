package main

import (
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
