package outfile

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The registry of temporary files to remove if the process is killed by a
// signal. Every change to it, and every file-system operation that creates,
// renames or removes a registered file, happens under mu, so the signal
// handler (which takes mu and never gives it back) sees each temporary file
// either registered and present or gone for good.
var (
	mu    sync.Mutex
	temps = map[string]struct{}{}
)

func locked(fn func()) {
	mu.Lock()
	defer mu.Unlock()
	fn()
}

// Temporaries returns the temporary files registered now (tests).
func Temporaries() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(temps))
	for name := range temps {
		names = append(names, name)
	}
	return names
}

var handleOnce sync.Once

// terminating are the signals after which HandleSignals cleans up.
var terminating = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// HandleSignals makes SIGINT, SIGTERM and SIGHUP remove every registered
// temporary file and then kill the process with that same signal, so a
// shell reports status 128+signal (130, 143, 129) and a script running the
// command stops as it would for any other tool. A signal the process
// started with ignored (nohup, a background job) stays ignored. It also
// stops a write to a closed pipe from killing the process outright: the
// write fails with EPIPE instead, and the command unwinds through its
// usual cleanup (see BrokenPipe). Commands call it once, first thing in
// main; later calls do nothing.
func HandleSignals() {
	handleOnce.Do(func() {
		sigs := make(chan os.Signal, 1)
		var caught []os.Signal
		for _, s := range terminating {
			if !signal.Ignored(s) {
				caught = append(caught, s)
			}
		}
		signal.Notify(sigs, caught...)
		// Notified (and never read), SIGPIPE no longer kills the process
		// on a write to standard output: the write returns EPIPE.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		go func() {
			s := <-sigs
			mu.Lock() // kept: nothing is created or renamed from here on
			for name := range temps {
				os.Remove(name)
			}
			die(s)
		}()
	})
}

// die kills the process with s after restoring its default action; if the
// process is still alive a moment later, it exits with 128+s.
func die(s os.Signal) {
	signal.Reset(s)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(s)
	}
	time.Sleep(time.Second)
	code := 1
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	os.Exit(code)
}

// BrokenPipeStatus is the exit status for an output pipe whose reader went
// away (`cycleabi decode cap.bin -o - | head`): 128+SIGPIPE, what a shell
// reports for a tool killed by SIGPIPE.
const BrokenPipeStatus = 141

// BrokenPipe reports whether err is a write to a pipe with no reader
// (EPIPE). Commands exit quietly with BrokenPipeStatus on it, as cat and
// grep do, once their deferred cleanups have run.
func BrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
