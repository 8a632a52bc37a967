//go:build unix && !linux

package outfile

import (
	"errors"
	"syscall"
)

// ownerToken is "u" where there is no /proc to tell one run of a pid from
// another.
func ownerToken(int) string { return "u" }

// ownerGone reports whether process pid has ended (signal 0 to it finds
// no process). A reused pid keeps a stale file until that process ends
// too.
func ownerGone(pid int, _ string) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
