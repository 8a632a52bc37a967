//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildBinary builds the command into a temporary folder, for tests that
// need a real process (a hang cut short by a timeout, a SIGKILL).
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build cycleabi")
	}
	bin := filepath.Join(t.TempDir(), "cycleabi")
	out, err := exec.Command(goTool, "build", "-o", bin, "../../../cmd/cycleabi").CombinedOutput()
	require.NoErrorf(t, err, "go build: %s", out)
	return bin
}

// A named pipe with no writer, given as any input, is refused at once
// with an error naming it (it used to block in open forever); so is a
// directory. Each run has 20 s.
func TestSpecialFileInputs(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	capture, err := filepath.Abs("../../../examples/moe_layer.bin")
	require.NoError(t, err)
	fw, err := filepath.Abs("../../../examples/moe_layer.kineto.json")
	require.NoError(t, err)
	mk := filepath.Join(dir, "mk.json")
	out, err := exec.Command(bin, "decode", capture, "-o", mk).CombinedOutput()
	require.NoErrorf(t, err, "%s", out)
	for _, special := range []struct{ path, kind string }{{fifo, "a named pipe (FIFO)"}, {dir, "a directory"}} {
		for _, args := range [][]string{
			{"validate", special.path},
			{"dump", special.path},
			{"dump", capture, "--names", special.path},
			{"decode", special.path, "-o", filepath.Join(dir, "t.json")},
			{"analyze", special.path},
			{"report", special.path, "-o", filepath.Join(dir, "r.html")},
			{"plan", special.path},
			{"synth", special.path, "-o", filepath.Join(dir, "c.bin")},
			{"decode", capture, "--names", special.path, "-o", filepath.Join(dir, "t.json")},
			{"decode", capture, "--plan", special.path, "-o", filepath.Join(dir, "t.json")},
			{"validate", capture, "--plan", special.path},
			{"validate", "--invocation-manifest", special.path},
			{"diff", special.path, capture},
			{"merge", special.path, mk, "-o", filepath.Join(dir, "m.json")},
			{"merge", fw, special.path, "-o", filepath.Join(dir, "m.json")},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			cmd := exec.CommandContext(ctx, bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			timedOut := ctx.Err() != nil
			cancel()
			require.Falsef(t, timedOut, "%v: still running after 20 s: timedOut = true, want false", args)
			assert.Equalf(t, 2, shellStatus(err), "%v: %s: shellStatus(err)", args, stderr.String())
			assert.Containsf(t, stderr.String(), special.path+": is "+special.kind+", not a regular file", "%v: stderr.String()", args)
		}
	}
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, left, 2, "only the FIFO and mk.json are left: len(left)")
}

// Help and version text that cannot be written (a full disk) is an I/O
// error, exit 2, as any other output is; they used to exit 0.
func TestHelpToFullDisk(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	defer full.Close()
	for _, args := range [][]string{{"--help"}, {"decode", "--help"}, {"--version"}, {"help", "merge"}} {
		var stderr strings.Builder
		code := Run(context.Background(), args, strings.NewReader(""), full, &stderr)
		assert.Equalf(t, 2, code, "%v: %s: code", args, stderr.String())
		assert.Containsf(t, stderr.String(), "no space left on device", "%v: string(stderr)", args)
	}
}
