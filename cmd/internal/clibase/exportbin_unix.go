//go:build unix

package clibase

import (
	"io"
	"syscall"
)

// execExport replaces the process with the program at path: it returns
// only when that fails. The program inherits the process's own standard
// streams (the exec keeps them).
func execExport(path string, args, env []string, _ io.Reader, _, _ io.Writer) (int, error) {
	return 0, syscall.Exec(path, append([]string{path}, args...), env)
}
