package outfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procRoot is where /proc is; tests point it elsewhere to run as
// without /proc.
var procRoot = "/proc"

// ownerToken says which run of process pid this is: the first 8 hex
// digits of the boot id and the process's start time in clock ticks since
// boot (/proc/PID/stat field 22). A pid is reused; a pid with its start
// time in one boot is not. "u" when /proc cannot tell (not mounted, or
// hidden), as on other systems: ownerGone then asks the process itself.
// (It was "", a name no sweep parsed: such a file stayed for ever.)
func ownerToken(pid int) string {
	boot, err := os.ReadFile(procRoot + "/sys/kernel/random/boot_id")
	if err != nil || len(boot) < 8 {
		return "u"
	}
	start := startTime(pid)
	if start == "" {
		return "u"
	}
	return string(boot[:8]) + "x" + start
}

// startTime returns field 22 of /proc/PID/stat, or "".
func startTime(pid int) string {
	stat, err := os.ReadFile(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: the fields after it start past the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // field 22: fields here start at field 3
}

// ownerGone reports whether the run named by pid and token has ended:
// the process is gone, or pid now names another process (another start
// time, or another boot). When /proc cannot tell, the owner is taken to
// be alive and its file is left alone.
func ownerGone(pid int, token string) bool {
	if token == "u" {
		// Written without /proc: as elsewhere, the pid alone (a reused
		// pid keeps the file until that process ends too).
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	bootNow, err := os.ReadFile(procRoot + "/sys/kernel/random/boot_id")
	if err != nil || len(bootNow) < 8 || len(token) < 9 {
		return false
	}
	if token[:8] != string(bootNow[:8]) {
		return true // written before this boot
	}
	_, err = os.Stat(procRoot + "/" + strconv.Itoa(pid))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false
	}
	start := startTime(pid)
	return start != "" && start != token[9:]
}
