//go:build unix

package outfile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// startEnvChild starts the test binary as a child that writes under env
// (see TestMain) and waits until it says it is ready.
func startEnvChild(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	return cmd
}

// TestKilledDirIsSwept: an output folder's temporary folder left by a
// SIGKILLed run carries its owner and is removed, with what it holds, by
// the next output created beside it, while a live run's stays. A killed
// export left .out.tmp-<random> folders no later run removed (107 MB
// after 7 kills).
func TestKilledDirIsSwept(t *testing.T) {
	parent := t.TempDir()
	killed := startEnvChild(t, dirEnv+"="+filepath.Join(parent, "out"))
	killed.Process.Kill()
	killed.Wait()
	left := entries(t, parent)
	prefix := ".out.tmp-" + strconv.Itoa(killed.Process.Pid) + "-"
	if len(left) != 1 || !strings.HasPrefix(left[0], prefix) {
		t.Fatalf("after SIGKILL: %v, want one folder %s…", left, prefix)
	}
	alive := startEnvChild(t, dirEnv+"="+filepath.Join(parent, "other"))
	defer func() {
		alive.Process.Kill()
		alive.Wait()
	}()
	d, err := CreateDir(filepath.Join(parent, "next"))
	if err != nil {
		t.Fatal(err)
	}
	d.Abort()
	left = entries(t, parent)
	if len(left) != 1 || !strings.HasPrefix(left[0], ".other.tmp-"+strconv.Itoa(alive.Process.Pid)+"-") {
		t.Errorf("after the next run: %v, want the live run's folder only", left)
	}
}

// TestSweptWithoutProc: without /proc, a temporary name carries the token
// "u" (it carried none, which no sweep parsed: the file stayed for ever)
// and a killed run's file is swept by the pid alone.
func TestSweptWithoutProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the /proc path is Linux's")
	}
	old := procRoot
	procRoot = "/nonexistent-proc"
	defer func() { procRoot = old }()
	if tok := ownerToken(os.Getpid()); tok != "u" {
		t.Fatalf("ownerToken without /proc = %q, want u", tok)
	}
	if _, _, ok := parseTempName(filepath.Base(tempName(t.TempDir(), "x.json"))); !ok {
		t.Fatal("a name written without /proc does not parse")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.json")
	killed := startEnvChild(t, childEnv+"="+out, namedEnv+"=1", noProcEnv+"=1")
	killed.Process.Kill()
	killed.Wait()
	if left := entries(t, dir); len(left) != 1 || !strings.HasPrefix(left[0], ".trace.json.tmp-"+strconv.Itoa(killed.Process.Pid)+"-u-") {
		t.Fatalf("after SIGKILL: %v, want the temporary file of token u", left)
	}
	if ownerGone(os.Getpid(), "u") {
		t.Error("this process, token u, is taken for gone")
	}
	if err := write(t, filepath.Join(dir, "next.json"), "x", true); err != nil {
		t.Fatal(err)
	}
	if left := entries(t, dir); len(left) != 1 || left[0] != "next.json" {
		t.Errorf("after the next run: %v, want next.json only", left)
	}
}
