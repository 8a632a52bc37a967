package outfile

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// noAnonymous turns the nameless temporary file off (tests of the named
// one and its sweep).
var noAnonymous = false

// openAnonymous creates a temporary file in dir that has no name
// (O_TMPFILE): a process killed by SIGKILL, or a machine that loses power,
// leaves nothing behind, since the file only gets a name at Commit. It
// returns nil where the file system or the kernel has no O_TMPFILE (the
// caller then uses a named temporary file), and where /proc is missing,
// which giving the file a name needs.
func openAnonymous(dir string) *os.File {
	if noAnonymous {
		return nil
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), dir)
}

// linkAnonymous gives the file from openAnonymous the name name, which
// must not exist.
func linkAnonymous(f *os.File, name string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) {
		// No /proc after all: AT_EMPTY_PATH, which some systems allow
		// only with CAP_DAC_READ_SEARCH.
		err = unix.Linkat(int(f.Fd()), "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH)
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: proc, New: name, Err: err}
	}
	return nil
}
