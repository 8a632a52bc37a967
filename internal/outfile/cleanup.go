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

// temporaries returns the temporary files registered now (tests).
func temporaries() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(temps))
	for name := range temps {
		names = append(names, name)
	}
	return names
}

var handleOnce sync.Once

// terminating are the signals after which HandleSignals cleans up and
// ends the process.
var terminating = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// HandleSignals makes SIGINT, SIGTERM, SIGHUP and SIGPIPE remove every
// registered temporary file first. SIGINT, SIGTERM and SIGHUP then kill
// the process with that same signal, so a shell reports status
// 128+signal (130, 143, 129) and a script running the command stops as it
// would for any other tool. SIGPIPE (a write to a pipe whose reader went
// away, such as `cycleabi decode cap.bin -o - | head`) ends it quietly
// with BrokenPipeStatus, what a shell reports for a tool killed by
// SIGPIPE. A signal the process started with ignored (nohup, a background
// job) stays ignored; an ignored SIGPIPE makes the write fail with EPIPE
// instead (see BrokenPipe). Commands call it once, first thing in main;
// later calls do nothing.
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
		go func() {
			s := <-sigs
			mu.Lock() // kept: nothing is created or renamed from here on
			for name := range temps {
				os.RemoveAll(name) // a file, or an output folder (CreateDir)
			}
			if s == syscall.SIGPIPE {
				// Raised again, SIGPIPE would not kill a Go program.
				os.Exit(BrokenPipeStatus)
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
// (EPIPE), which a command sees when SIGPIPE is ignored or before the
// signal handler ends it. Commands exit quietly with BrokenPipeStatus on
// it, as cat and grep do, once their deferred cleanups have run.
func BrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
