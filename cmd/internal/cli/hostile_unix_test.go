//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestManifestSpecialFileNamed: a manifest's entry naming a FIFO is
// refused with the manifest's line first in every command that reads a
// window (decode, analyze, report and export lost the prefix; validate
// had it).
func TestManifestSpecialFileNamed(t *testing.T) {
	dir := window(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	man := filepath.Join(dir, "special.yaml")
	require.NoError(t, os.WriteFile(man, []byte("- {capture: fwd.bin, rank: 0, step: 1, direction: forward}\n- {capture: fifo, rank: 0, step: 2, direction: forward}\n"), 0o644))
	want := man + ":2: "
	for _, cmd := range []string{"validate", "decode", "analyze", "report", "export"} {
		args := []string{cmd, "--invocation-manifest", man}
		if cmd != "validate" && cmd != "analyze" {
			args = append(args, "-o", filepath.Join(t.TempDir(), "out"))
		}
		_, stderr, code := runMain(t, args...)
		require.Equalf(t, 2, code, "%s: code", cmd)
		require.Containsf(t, stderr, want, "%s: code", cmd)
		assert.Containsf(t, stderr, "named pipe", "%s: code", cmd)
	}
}
