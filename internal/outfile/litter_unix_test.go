//go:build unix

package outfile

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startEnvChild starts the test binary as a child that writes under env
// (see TestMain) and waits until it says it is ready.
func startEnvChild(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		require.FailNow(t, fmt.Sprintf("child said %q", line))
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
	require.Lenf(t, left, 1, "after SIGKILL, want one folder %s…", prefix)
	require.Truef(t, strings.HasPrefix(left[0], prefix), "after SIGKILL, want one folder %s…", prefix)
	alive := startEnvChild(t, dirEnv+"="+filepath.Join(parent, "other"))
	defer func() {
		alive.Process.Kill()
		alive.Wait()
	}()
	d, err := CreateDir(filepath.Join(parent, "next"))
	require.NoError(t, err)
	d.Abort()
	left = entries(t, parent)
	require.Len(t, left, 1, "after the next run")
	assert.True(t, strings.HasPrefix(left[0], ".other.tmp-"+strconv.Itoa(alive.Process.Pid)+"-"), "after the next run")
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
	require.Equal(t, "u", ownerToken(os.Getpid()), "ownerToken without /proc")
	_, _, ok := parseTempName(filepath.Base(tempName(t.TempDir(), "x.json")))
	require.True(t, ok, "a name written without /proc does not parse")
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.json")
	killed := startEnvChild(t, childEnv+"="+out, namedEnv+"=1", noProcEnv+"=1")
	killed.Process.Kill()
	killed.Wait()
	left := entries(t, dir)
	require.Len(t, left, 1, "after SIGKILL")
	require.True(t, strings.HasPrefix(left[0], ".trace.json.tmp-"+strconv.Itoa(killed.Process.Pid)+"-u-"), "after SIGKILL")
	assert.False(t, ownerGone(os.Getpid(), "u"), "this process, token u, is taken for gone")
	require.NoError(t, write(t, filepath.Join(dir, "next.json"), "x", true))
	assert.Equal(t, []string{"next.json"}, entries(t, dir), "after the next run: want next.json only")
}
