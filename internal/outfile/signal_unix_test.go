//go:build unix

package outfile

import (
	"bufio"
	"errors"
	"fmt"
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

// childEnv makes the test binary act as a command interrupted mid-write:
// it opens the output named by the variable and a scratch file beside it,
// says "ready" and waits for a signal.
const childEnv = "OUTFILE_TEST_CHILD"

// namedEnv makes the child use a named temporary file where it would use
// a nameless one.
const namedEnv = "OUTFILE_TEST_NAMED"

// dirEnv makes the child write an output folder (CreateDir) where it
// would write a file; noProcEnv makes it run as without /proc.
const (
	dirEnv    = "OUTFILE_TEST_DIR"
	noProcEnv = "OUTFILE_TEST_NOPROC"
)

func TestMain(m *testing.M) {
	if os.Getenv(noProcEnv) != "" {
		procRoot = "/nonexistent-proc"
	}
	if path := os.Getenv(dirEnv); path != "" {
		d, err := CreateDir(path)
		if err != nil {
			os.Exit(3)
		}
		f, err := d.Create("part-0.parquet")
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("half a file"))
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		os.Exit(4)
	}
	if path := os.Getenv(childEnv); path != "" {
		noAnonymous = noAnonymous || os.Getenv(namedEnv) != ""
		HandleSignals()
		f, err := Create(path)
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("half a file"))
		if _, err := CreateScratch(filepath.Dir(path), "spill-*"); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		os.Exit(4)
	}
	os.Exit(m.Run())
}

// shellStatus is the status a shell reports for a finished process:
// its exit code, or 128+signal when a signal killed it.
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

// A signal while an output is half written removes the temporary and
// scratch files, leaves the previous output as it was, and the process
// dies of the signal (exits 141 for SIGPIPE).
func TestSignalRemovesTemporaries(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE} {
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				// Under nohup the program keeps ignoring SIGHUP, as it
				// should (HandleSignals): there is no death to test.
				t.Skipf("%v is ignored in this process (nohup?), and so in the child", sig)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "trace.json")
			require.NoError(t, os.WriteFile(out, []byte("previous"), 0o644))
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+out, namedEnv+"=1")
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				require.FailNow(t, fmt.Sprintf("child said %q", line))
			}
			assert.Len(t, entries(t, dir), 2, "while writing")
			cmd.Process.Signal(sig)
			status := shellStatus(cmd.Wait())
			assert.Equal(t, 128+int(sig), status, "status")
			names := entries(t, dir)
			require.Len(t, names, 1, "left behind")
			assert.Equal(t, "trace.json", names[0], "left behind")
			got, _ := os.ReadFile(out)
			assert.Equalf(t, "previous", string(got), "previous output now %q", got)
		})
	}
}

// A named pipe is written in place: its reader gets the bytes, and the
// node stays a pipe.
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	require.NoError(t, WriteFile(fifo, []byte("through the pipe")))
	assert.Equal(t, "through the pipe", <-got, "reader")
	if st, err := os.Lstat(fifo); assert.NoError(t, err, "the pipe") {
		assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the pipe was replaced: %v", st.Mode())
	}
}

// startChild starts the test binary as a command midway through writing
// out (named: with a named temporary file) and returns once it is.
func startChild(t *testing.T, out string, named bool) *exec.Cmd {
	t.Helper()
	env := []string{childEnv + "=" + out}
	if named {
		env = append(env, namedEnv+"=1")
	}
	return startEnvChild(t, env...)
}

// SIGKILL gives no chance to clean up. A nameless temporary file (Linux)
// leaves nothing; a named one is left, and the next output created in the
// folder removes it, while the temporary file of a run still writing
// there stays.
func TestKilledLeavesNothing(t *testing.T) {
	for _, named := range []bool{false, true} {
		t.Run(map[bool]string{false: "nameless", true: "named"}[named], func(t *testing.T) {
			dir := t.TempDir()
			if !named && openAnonymous(dir) == nil {
				t.Skip("no O_TMPFILE here")
			}
			out := filepath.Join(dir, "trace.json")
			require.NoError(t, os.WriteFile(out, []byte("previous"), 0o644))
			killed := startChild(t, out, named)
			killed.Process.Kill()
			killed.Wait()
			left := entries(t, dir)
			if !named {
				require.Len(t, left, 1, "a nameless temporary file left")
				require.Equal(t, "trace.json", left[0], "a nameless temporary file left")
				return
			}
			require.Len(t, left, 2, "after SIGKILL")
			// A second writer, alive, into the same folder.
			alive := startChild(t, filepath.Join(dir, "other.json"), true)
			defer func() {
				alive.Process.Kill()
				alive.Wait()
			}()
			require.NoError(t, write(t, out, "new", true))
			left = entries(t, dir)
			prefix := ".other.json.tmp-" + strconv.Itoa(alive.Process.Pid) + "-" + ownerToken(alive.Process.Pid) + "-"
			require.Len(t, left, 2, "after the next run")
			require.True(t, strings.HasPrefix(left[0], prefix), "after the next run")
			assert.Equal(t, "trace.json", left[1], "after the next run")
			got, _ := os.ReadFile(out)
			assert.Equalf(t, "new", string(got), "trace.json holds %q", got)
		})
	}
}
