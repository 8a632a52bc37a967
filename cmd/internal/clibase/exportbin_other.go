//go:build !unix

package clibase

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
)

// execExport runs the program at path with the run's standard
// streams and returns its exit code. An interrupt reaches both processes
// (a console sends it to the whole group): this one ignores it and waits,
// so the exit code is the export's, and so is the cleanup.
func execExport(path string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	signal.Ignore(os.Interrupt)
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr, c.Env = stdin, stdout, stderr, env
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
