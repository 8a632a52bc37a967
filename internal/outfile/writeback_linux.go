package outfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f at off to
// disk, without waiting for it (sync_file_range SYNC_FILE_RANGE_WRITE): the
// data Commit syncs is then mostly on disk already, written while the
// rest was produced. A failure is ignored: Commit's fsync still syncs
// everything.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
