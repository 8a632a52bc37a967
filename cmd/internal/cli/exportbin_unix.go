//go:build unix

package cli

import "syscall"

// execExport replaces the process with the program at path: it returns
// only when that fails.
func execExport(path string, args, env []string) (int, error) {
	return 0, syscall.Exec(path, append([]string{path}, args...), env)
}
