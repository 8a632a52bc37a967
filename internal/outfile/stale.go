package outfile

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// A temporary file that has a name (see Create) is named
//
//	.<target>.tmp-<pid>-<token>-<random>
//
// pid and token (ownerToken: on Linux the boot and the process's start
// time) say which run wrote it. A run killed by SIGKILL, or a machine that
// lost power, leaves one behind; the next output created in the same
// folder removes every such file whose run has ended (sweep). An output
// folder's temporary folder (CreateDir) is named the same way and swept
// the same way, with what it holds. Files whose run is alive, files of
// other names, and what is neither a regular file nor a folder (a
// symbolic link) are never touched.

// tempMarker separates the target's name from the owner in a temporary
// file's name.
const tempMarker = ".tmp-"

var (
	ownerOnce sync.Once
	owner     string // "<pid>-<token>" of this process
)

// self returns this process's "<pid>-<token>".
func self() string {
	ownerOnce.Do(func() {
		pid := os.Getpid()
		owner = strconv.Itoa(pid) + "-" + ownerToken(pid)
	})
	return owner
}

// tempName returns a new temporary name for target base in dir.
func tempName(dir, base string) string {
	self()
	return filepath.Join(dir, "."+base+tempMarker+owner+"-"+strconv.FormatUint(rand.Uint64(), 36))
}

// parseTempName returns the owner written in a temporary file's name; ok
// is false for any other name.
func parseTempName(name string) (pid int, token string, ok bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, "", false
	}
	i := strings.LastIndex(name, tempMarker)
	if i < 1 {
		return 0, "", false
	}
	parts := strings.Split(name[i+len(tempMarker):], "-")
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return 0, "", false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return 0, "", false
	}
	if _, err := strconv.ParseUint(parts[2], 36, 64); err != nil {
		return 0, "", false
	}
	return pid, parts[1], true
}

var swept sync.Map // folders swept by this process

// sweep removes, once per folder per process, the temporary files in dir
// whose run has ended. Errors are ignored: a stale file left is no worse
// than before.
func sweep(dir string) {
	key := dir
	if abs, err := filepath.Abs(dir); err == nil {
		key = abs
	}
	if _, done := swept.LoadOrStore(key, true); done {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	me := self()
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			pid, token, ok := parseTempName(name)
			if !ok || strconv.Itoa(pid)+"-"+token == me || !ownerGone(pid, token) {
				continue
			}
			path := filepath.Join(dir, name)
			st, err := os.Lstat(path)
			switch {
			case err != nil:
			case st.Mode().IsRegular():
				os.Remove(path)
			case st.IsDir():
				// An output folder's temporary (CreateDir), named the same
				// way: a killed export left .out.tmp-<random> folders.
				os.RemoveAll(path)
			}
		}
		if err != nil {
			return
		}
	}
}
