package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is an output folder written whole or not at all: its files are
// written under a temporary folder beside it, which Commit renames into
// place and Abort (or a terminating signal, see HandleSignals) removes.
type Dir struct {
	name, temp string
	closed     bool
}

// CreateDir starts the output folder path. path must not exist, or be an
// empty folder (which Commit replaces): a folder with files in it is never
// written into or replaced, so nothing the user has is lost.
func CreateDir(path string) (*Dir, error) {
	if path == "" || path == Stdout {
		return nil, errors.New("output folder: give a folder path")
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("writing %s: not a folder", path)
	case err == nil:
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if len(entries) > 0 {
			return nil, fmt.Errorf("writing %s: the folder exists and is not empty (%d entries): give a new folder, nothing in it is replaced", path, len(entries))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	parent, base := filepath.Split(filepath.Clean(path))
	if parent == "" {
		parent = "."
	}
	sweep(parent)
	for range 100 {
		// Named as a temporary file is, with its owner: a run killed
		// while it writes leaves it, and the next output created here
		// removes it (sweep).
		name := tempName(parent, base)
		locked(func() {
			err = os.Mkdir(name, 0o777)
			if err == nil {
				temps[name] = struct{}{}
			}
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w (the folder is written under a temporary name in %s, then renamed)", path, err, parent)
		}
		return &Dir{name: path, temp: name}, nil
	}
	return nil, fmt.Errorf("writing %s: cannot create a temporary folder in %s: too many name collisions", path, parent)
}

// Path returns where a file named rel (slash-separated, inside the folder)
// is to be written before Commit; its parent folders are created.
func (d *Dir) Path(rel string) (string, error) {
	if d.closed {
		return "", fmt.Errorf("writing %s: already committed or aborted", d.name)
	}
	p := filepath.Join(d.temp, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return "", fmt.Errorf("writing %s: %w", d.name, err)
	}
	return p, nil
}

// Create creates the file rel of the folder (as Path) for writing. Its
// write-back to disk is started as it is written, every writebackChunk
// bytes, as a File's is: Commit's fsync then waits for little more than
// the last chunk of each file instead of all of them.
func (d *Dir) Create(rel string) (*DirFile, error) {
	p, err := d.Path(rel)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(p)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", d.name, err)
	}
	return &DirFile{file: f}, nil
}

// DirFile is a file of a Dir being written (Dir.Create).
type DirFile struct {
	file *os.File
	wb   writeback
}

// Write writes p at the end of the file.
func (f *DirFile) Write(p []byte) (int, error) {
	n, err := f.file.Write(p)
	f.wb.wrote(f.file, n)
	return n, err
}

// Close closes the file; Commit syncs it.
func (f *DirFile) Close() error { return f.file.Close() }

// Commit syncs the folder's files and renames the folder into place.
func (d *Dir) Commit() error {
	if d.closed {
		return fmt.Errorf("writing %s: already committed or aborted", d.name)
	}
	d.closed = true
	err := filepath.WalkDir(d.temp, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
	locked(func() {
		if err == nil {
			// An empty folder stands in the way (os.Rename replaces no
			// folder); one that gained files since CreateDir is not removed.
			if st, serr := os.Lstat(d.name); serr == nil && st.IsDir() {
				err = os.Remove(d.name)
			}
		}
		if err == nil {
			err = os.Rename(d.temp, d.name)
		}
		if err != nil {
			os.RemoveAll(d.temp)
		}
		delete(temps, d.temp)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", d.name, err)
	}
	syncDir(filepath.Dir(filepath.Clean(d.name)))
	return nil
}

// Abort removes everything written; the target is untouched. A no-op
// after Commit or Abort, so it can be deferred.
func (d *Dir) Abort() {
	if d.closed {
		return
	}
	d.closed = true
	locked(func() {
		os.RemoveAll(d.temp)
		delete(temps, d.temp)
	})
}
