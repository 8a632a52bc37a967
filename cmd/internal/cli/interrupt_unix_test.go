//go:build unix

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildCycleabi builds the command into a temporary folder (signals and
// broken pipes are tested on a real process) and writes the out-of-order
// worst case capture of scripts/rss-sparse.sh with records records; it
// returns the binary, the capture and its decode flags.
func buildCycleabi(t *testing.T, records int) (bin, capturePath string, flags []string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build cycleabi")
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "cycleabi")
	out, err := exec.Command(goTool, "build", "-o", bin, "../../../cmd/cycleabi").CombinedOutput()
	require.NoErrorf(t, err, "go build: %s", out)
	capturePath = filepath.Join(dir, "sparse.bin")
	out, err = exec.Command(goTool, "run", "../../../decode/internal/benchgen/benchcapture",
		"-sparse", "-records", strconv.Itoa(records), "-o", capturePath).Output()
	require.NoError(t, err, "benchcapture")
	return bin, capturePath, strings.Fields(string(out))
}

// shellStatus is the status a shell reports for a finished process: its
// exit code, or 128+signal when a signal killed it.
func shellStatus(err error) int {
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		return -1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// writingTemp reports whether process pid has a temporary file in dir
// (any file but keep) open that holds bytes: a named one, or on Linux a
// nameless one (O_TMPFILE), which only /proc/PID/fd shows.
func writingTemp(pid int, dir, keep string) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if entries, err := os.ReadDir(fds); err == nil {
		for _, e := range entries {
			target, err := os.Readlink(filepath.Join(fds, e.Name()))
			if err != nil || !strings.HasPrefix(target, dir+"/") || target == filepath.Join(dir, keep) {
				continue
			}
			if st, err := os.Stat(filepath.Join(fds, e.Name())); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
				return true
			}
		}
		return false
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && e.Name() != keep && st.Size() > 0 {
			return true
		}
	}
	return false
}

// A decode interrupted while it writes (SIGINT, SIGTERM, SIGHUP) leaves
// no temporary trace and no spill file behind, keeps the previous trace as
// it was, and dies of the signal (the shell reports 130, 143, 129). The
// capture is the out-of-order worst case, so decode is sorting runs into
// TMPDIR when the signal comes, or merging them.
func TestDecodeInterrupted(t *testing.T) {
	t.Parallel()
	bin, capturePath, flags := buildCycleabi(t, 1<<20)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			skipIgnored(t, sig)
			outDir, spillDir := t.TempDir(), t.TempDir()
			out := filepath.Join(outDir, "trace.json.gz")
			require.NoError(t, os.WriteFile(out, []byte("previous trace"), 0o644))
			cmd := exec.Command(bin, append([]string{"decode", capturePath, "-o", out}, flags...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+spillDir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			// Signal once the temporary trace holds bytes: decode is
			// midway through writing.
			deadline := time.Now().Add(time.Minute)
			for !writingTemp(cmd.Process.Pid, outDir, "trace.json.gz") {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					require.FailNow(t, fmt.Sprintf("no temporary trace appeared in %s: %s", outDir, stderr.String()))
				}
				time.Sleep(time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			status := shellStatus(cmd.Wait())
			assert.Equalf(t, 128+int(sig), status, "stderr: %s: status", stderr.String())
			assert.Equal(t, []string{"trace.json.gz"}, dirNames(t, outDir), "files left beside the trace: dirNames(t, outDir)")
			assert.Empty(t, dirNames(t, spillDir), "spill files left in TMPDIR: dirNames(t, spillDir)")
			got, _ := os.ReadFile(out)
			assert.Equal(t, "previous trace", string(got), "string(got)")
		})
	}

	// SIGKILL gives decode no chance to clean up: its temporary trace
	// has no name (Linux) and vanishes with it, or has one that says
	// whose it is and the next run into the folder removes it. The
	// previous trace stays as it was.
	t.Run("SIGKILL", func(t *testing.T) {
		outDir, spillDir := t.TempDir(), t.TempDir()
		out := filepath.Join(outDir, "trace.json.gz")
		require.NoError(t, os.WriteFile(out, []byte("previous trace"), 0o644))
		cmd := exec.Command(bin, append([]string{"decode", capturePath, "-o", out}, flags...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+spillDir)
		require.NoError(t, cmd.Start())
		deadline := time.Now().Add(time.Minute)
		for !writingTemp(cmd.Process.Pid, outDir, "trace.json.gz") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				require.FailNow(t, fmt.Sprintf("no temporary trace appeared in %s", outDir))
			}
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, cmd.Process.Kill())
		assert.Equal(t, 128+int(syscall.SIGKILL), shellStatus(cmd.Wait()), "shellStatus(cmd.Wait())")
		got, _ := os.ReadFile(out)
		assert.Equal(t, "previous trace", string(got), "string(got)")
		assert.Empty(t, dirNames(t, spillDir), "spill files left in TMPDIR: dirNames(t, spillDir)")
		t.Logf("after SIGKILL: %v", dirNames(t, outDir))
		second := exec.Command(bin, "decode", "../../../examples/moe_layer.bin", "-o", filepath.Join(outDir, "second.json"))
		msg, err := second.CombinedOutput()
		require.NoErrorf(t, err, "%s", msg)
		assert.Equal(t, []string{"second.json", "trace.json.gz"}, dirNames(t, outDir), "files left beside the traces: dirNames(t, outDir)")
	})

	// A reader that goes away (decode -o - | head -c 10): decode exits
	// quietly with 141, as a tool killed by SIGPIPE, and leaves no spill
	// file.
	t.Run("EPIPE", func(t *testing.T) {
		spillDir := t.TempDir()
		cmd := exec.Command(bin, append([]string{"decode", capturePath, "-o", "-"}, flags...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+spillDir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		head := make([]byte, 10)
		_, err = io.ReadFull(stdout, head)
		require.NoError(t, err)
		assert.Equal(t, `{"traceEv`, string(head[:9]), "string(head[:9])")
		stdout.Close()
		status := shellStatus(cmd.Wait())
		assert.Equalf(t, 141, status, "stderr: %s: status", stderr.String())
		assert.Empty(t, stderr.String(), "a broken pipe is not an error to report: stderr.String()")
		assert.Empty(t, dirNames(t, spillDir), "spill files left in TMPDIR: dirNames(t, spillDir)")
	})
}

// skipIgnored skips a test of death by sig when sig is ignored in this
// process (SIGHUP under nohup): the child inherits that, and cycleabi
// then keeps ignoring it, as it should.
func skipIgnored(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if signal.Ignored(sig) {
		t.Skipf("%v is ignored in this process (nohup?), and so in cycleabi", sig)
	}
}
