//go:build unix

package infile

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblocking opens path with O_NONBLOCK, which makes opening a FIFO
// return at once instead of waiting for a writer, and then turns
// O_NONBLOCK off again (it has no effect on a regular file, but the
// descriptor is handed on as an ordinary blocking one).
func openNonblocking(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
