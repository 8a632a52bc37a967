// Package infile is the one way cycleabi opens a file the user named as an
// input: captures, schedules, names files, manifests, reports and
// framework traces.
//
// Only regular files are read. A named pipe (FIFO) with no writer would
// block open forever, a pipe or a terminal has no size to check against a
// cap before reading and cannot be read at random, and a character device
// such as /dev/zero never ends; each is refused with an error naming the
// file and what it is. The file is opened without blocking and its type
// checked on the open descriptor, so the check cannot hang and cannot be
// raced by renaming another file into place. /dev/stdin works when
// standard input is redirected from a regular file (`< capture.bin`): the
// system then opens that file itself.
package infile

import (
	"fmt"
	"io/fs"
	"os"
)

// NotRegularError is an input that exists but is not a regular file.
type NotRegularError struct {
	Path string // the path as given
	// Kind says what the file is: "a directory", "a named pipe (FIFO)",
	// "a character device", "a block device", "a socket".
	Kind string
}

// Error says which file, what it is, and what cycleabi reads instead.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file; inputs are read from regular files only (save the data to a file first)", e.Path, e.Kind)
}

// Open opens the regular file at path for reading and returns it with its
// FileInfo. Anything else is a *NotRegularError; a missing file is an
// *fs.PathError that matches fs.ErrNotExist, as from os.Open.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: kindOf(st.Mode())}
	}
	return f, st, nil
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "a file of an unknown type"
	}
	return "not a regular file"
}
