//go:build unix

package outfile

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary act as a command interrupted mid-write:
// it opens the output named by the variable and a scratch file beside it,
// says "ready" and waits for a signal.
const childEnv = "OUTFILE_TEST_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
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
			dir := t.TempDir()
			out := filepath.Join(dir, "trace.json")
			if err := os.WriteFile(out, []byte("previous"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+out)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q", line)
			}
			if names := entries(t, dir); len(names) != 2 { // trace.json and its temporary
				t.Errorf("while writing: %v", names)
			}
			cmd.Process.Signal(sig)
			status := shellStatus(cmd.Wait())
			if want := 128 + int(sig); status != want { // 141 for SIGPIPE
				t.Errorf("status %d, want %d", status, want)
			}
			if names := entries(t, dir); len(names) != 1 || names[0] != "trace.json" {
				t.Errorf("left behind: %v", names)
			}
			if got, _ := os.ReadFile(out); string(got) != "previous" {
				t.Errorf("previous output now %q", got)
			}
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
	if err := WriteFile(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
}
