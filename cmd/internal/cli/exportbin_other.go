//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// execExport runs the program at path with this process's standard
// streams and returns its exit code. An interrupt reaches both processes
// (a console sends it to the whole group): this one ignores it and waits,
// so the exit code is the export's, and so is the cleanup.
func execExport(path string, args, env []string) (int, error) {
	signal.Ignore(os.Interrupt)
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr, c.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
