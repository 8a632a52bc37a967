package outfile

import (
	"fmt"
	"os"
)

// CreateScratch creates a scratch file in dir ("" for os.TempDir, which
// honours TMPDIR) for data the process writes and reads back itself, such
// as decode's sorted runs. On Linux it never has a name (O_TMPFILE); on
// other Unix systems its name is removed at once, which leaves a moment
// in which SIGKILL would leave it behind. Either way the file lives only
// as long as it is open. Elsewhere it is registered like a temporary
// output and removed by Close or on a signal. Close it with CloseScratch.
func CreateScratch(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if f := openAnonymous(dir); f != nil {
		return f, nil
	}
	var f *os.File
	var err error
	locked(func() {
		if f, err = os.CreateTemp(dir, pattern); err != nil {
			return
		}
		if os.Remove(f.Name()) != nil {
			temps[f.Name()] = struct{}{}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("creating a scratch file: %w", err)
	}
	return f, nil
}

// CloseScratch closes a file from CreateScratch and removes it if it still
// has a name. It can be called more than once.
func CloseScratch(f *os.File) {
	if f == nil {
		return
	}
	f.Close()
	locked(func() {
		if _, ok := temps[f.Name()]; ok {
			os.Remove(f.Name())
			delete(temps, f.Name())
		}
	})
}
