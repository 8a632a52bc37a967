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
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	if err != nil {
		t.Fatalf("go build: %s: %v", out, err)
	}
	capturePath = filepath.Join(dir, "sparse.bin")
	out, err = exec.Command(goTool, "run", "../../../decode/internal/benchgen/benchcapture",
		"-sparse", "-records", strconv.Itoa(records), "-o", capturePath).Output()
	if err != nil {
		t.Fatalf("benchcapture: %v", err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
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
			if err := os.WriteFile(out, []byte("previous trace"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, append([]string{"decode", capturePath, "-o", out}, flags...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+spillDir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the temporary trace holds bytes: decode is
			// midway through writing.
			deadline := time.Now().Add(time.Minute)
			for !writingTemp(cmd.Process.Pid, outDir, "trace.json.gz") {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no temporary trace appeared in %s: %s", outDir, stderr.String())
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			status := shellStatus(cmd.Wait())
			if want := 128 + int(sig); status != want {
				t.Errorf("stderr: %s: status = %v, want %v", stderr.String(), status, want)
			}
			if got, want := dirNames(t, outDir), []string{"trace.json.gz"}; !reflect.DeepEqual(got, want) {
				t.Errorf("files left beside the trace: dirNames(t, outDir) = %v, want %v", got, want)
			}
			if got := dirNames(t, spillDir); len(got) != 0 {
				t.Errorf("spill files left in TMPDIR: dirNames(t, spillDir) = %v, want empty", got)
			}
			got, _ := os.ReadFile(out)
			if g := string(got); g != "previous trace" {
				t.Errorf("string(got) = %q, want %q", g, "previous trace")
			}
		})
	}

	// SIGKILL gives decode no chance to clean up: its temporary trace
	// has no name (Linux) and vanishes with it, or has one that says
	// whose it is and the next run into the folder removes it. The
	// previous trace stays as it was.
	t.Run("SIGKILL", func(t *testing.T) {
		outDir, spillDir := t.TempDir(), t.TempDir()
		out := filepath.Join(outDir, "trace.json.gz")
		if err := os.WriteFile(out, []byte("previous trace"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append([]string{"decode", capturePath, "-o", out}, flags...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+spillDir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for !writingTemp(cmd.Process.Pid, outDir, "trace.json.gz") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no temporary trace appeared in %s", outDir)
			}
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if got := shellStatus(cmd.Wait()); got != 128+int(syscall.SIGKILL) {
			t.Errorf("shellStatus(cmd.Wait()) = %v, want %v", got, 128+int(syscall.SIGKILL))
		}
		got, _ := os.ReadFile(out)
		if g := string(got); g != "previous trace" {
			t.Errorf("string(got) = %q, want %q", g, "previous trace")
		}
		if got := dirNames(t, spillDir); len(got) != 0 {
			t.Errorf("spill files left in TMPDIR: dirNames(t, spillDir) = %v, want empty", got)
		}
		t.Logf("after SIGKILL: %v", dirNames(t, outDir))
		second := exec.Command(bin, "decode", "../../../examples/moe_layer.bin", "-o", filepath.Join(outDir, "second.json"))
		msg, err := second.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		if got, want := dirNames(t, outDir), []string{"second.json", "trace.json.gz"}; !reflect.DeepEqual(got, want) {
			t.Errorf("files left beside the traces: dirNames(t, outDir) = %v, want %v", got, want)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 10)
		_, err = io.ReadFull(stdout, head)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(head[:9]); got != `{"traceEv` {
			t.Errorf("string(head[:9]) = %q, want %q", got, `{"traceEv`)
		}
		stdout.Close()
		status := shellStatus(cmd.Wait())
		if status != 141 {
			t.Errorf("stderr: %s: status = %v, want 141", stderr.String(), status)
		}
		if got := stderr.String(); got != "" {
			t.Errorf("a broken pipe is not an error to report: stderr.String() = %q, want empty", got)
		}
		if got := dirNames(t, spillDir); len(got) != 0 {
			t.Errorf("spill files left in TMPDIR: dirNames(t, spillDir) = %v, want empty", got)
		}
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
