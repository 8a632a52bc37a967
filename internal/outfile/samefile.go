package outfile

import (
	"fmt"
	"os"
)

// SameFileError is an output that is one of the command's inputs.
type SameFileError struct {
	Output string // the output path as given
	Input  string // the input path as given
}

// Error says which output is refused and which input it is.
func (e *SameFileError) Error() string {
	if e.Output == e.Input {
		return fmt.Sprintf("refusing to write %s: it is an input of this command (choose another output)", e.Output)
	}
	return fmt.Sprintf("refusing to write %s: it is the same file as the input %s (choose another output)", e.Output, e.Input)
}

// SameFile returns a *SameFileError when output is the same file (same
// device and inode, after symbolic links) as one of inputs, so that a
// command never replaces what it reads. "-" as output is standard output
// (refused when it is redirected to an input); an output or input that
// does not exist, an empty input, and an output that is no file a write
// replaces (a device such as /dev/null, a pipe, a socket) match nothing.
func SameFile(output string, inputs ...string) error {
	var out os.FileInfo
	var err error
	if output == Stdout {
		out, err = os.Stdout.Stat()
	} else {
		out, err = os.Stat(output)
	}
	if err != nil {
		return nil
	}
	if out.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeNamedPipe|os.ModeSocket) != 0 {
		// Writing a device (/dev/null, a terminal), a pipe or a socket
		// replaces no input: --names /dev/null with standard output at
		// /dev/null is no clash.
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == Stdout {
			continue
		}
		st, err := os.Stat(in)
		if err == nil && os.SameFile(out, st) {
			return &SameFileError{Output: output, Input: in}
		}
	}
	return nil
}
