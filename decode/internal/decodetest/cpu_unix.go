//go:build unix

package decodetest

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+sys CPU time so far: per op, steadier
// than ns/op when other work shares the machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
