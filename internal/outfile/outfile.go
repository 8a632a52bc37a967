// Package outfile is the one way the project's commands write a file the
// user named, and the one place that makes sure nothing is left behind.
//
// Create opens an output for writing; Commit puts it in place, Abort
// discards it:
//
//	f, err := outfile.Create(path) // "-" is standard output
//	if err != nil { ... }
//	defer f.Abort()                // a no-op after Commit
//	... write to f ...
//	return f.Commit()
//
// A regular (or missing) target is written to a temporary file beside it,
// synced, and renamed over it by Commit, so a reader never sees half a file
// and a failed or interrupted write leaves the previous file as it was. A
// new file gets 0666 less the umask, as os.Create gives; a file replaced
// keeps its permission bits (not its owner, group or other hard links: it
// is a new inode); one the user may not write is refused, as os.Create
// would refuse it. A symbolic link is followed: the file it points to is
// replaced and the link stays. A target that exists and is not a regular
// file (a device such as /dev/null, a named pipe, a socket) is written in
// place and never replaced. Every error names the path the user gave, never
// the temporary one.
//
// On Linux the temporary file has no name until Commit (O_TMPFILE, then
// linkat and rename), so even SIGKILL or a power cut leaves nothing
// behind. Where that is not available the temporary file is named
// ".<target>.tmp-<pid>-<token>-<random>", saying which run owns it; it is
// registered in a process-wide list that HandleSignals (called once by
// each command's main) removes on SIGINT, SIGTERM, SIGHUP or SIGPIPE, and
// one left by a run that died (SIGKILL) is removed by the next output
// created in the same folder (see sweep). CreateScratch makes the
// nameless scratch files (spill files) that need no cleanup at all.
// SameFile refuses an output that is one of the command's inputs.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// File is an output being written. Its methods are not safe for
// concurrent use.
type File struct {
	name   string    // the path as the user gave it
	target string    // the file renamed over (path with symbolic links resolved)
	w      io.Writer // where Write goes
	file   *os.File  // the file written; nil for standard output
	temp   string    // the temporary name, "" when writing in place or anon
	anon   bool      // file is a nameless temporary file (O_TMPFILE)
	dir    string    // the target's folder and name, of a temporary file
	base   string
	mode   fs.FileMode
	keep   bool  // give the temporary file mode (the replaced file's) before the rename
	err    error // the first write error, returned again by Write and Commit
	closed bool

	// Of a temporary file: how far its write-back to disk has started.
	wb writeback
}

// writebackChunk is how many bytes of a temporary file are written
// before their write-back to disk is started: Commit's fsync then waits
// for little more than the last chunk instead of the whole file (0.10 s
// of a 155 MB trace).
const writebackChunk = 8 << 20

// Create opens the output named path. "-" is standard output (os.Stdout
// as it is at the call).
func Create(path string) (*File, error) { return CreateStdout(path, nil) }

// CreateStdout is Create with stdout standing for "-" (os.Stdout when nil),
// for commands whose standard output is redirected (cobra's OutOrStdout).
func CreateStdout(path string, stdout io.Writer) (*File, error) {
	f := &File{name: path, target: path}
	if path == Stdout {
		if stdout == nil {
			stdout = os.Stdout
		}
		f.w = stdout
		return f, nil
	}
	if path == "" {
		return nil, errors.New("output path is empty")
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		if st.IsDir() {
			return nil, fmt.Errorf("writing %s: is a directory", path)
		}
		// A device, pipe or socket: written in place, never replaced.
		if f.file, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return nil, f.wrap(err)
		}
		f.w = f.file
		return f, nil
	case err == nil:
		f.mode, f.keep = st.Mode().Perm(), true
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			f.target = resolved
		}
		// A file the user may not write (chmod a-w) is not replaced
		// either, as os.Create and the shell's > would refuse it.
		// Opening it without O_TRUNC changes nothing.
		w, err := os.OpenFile(f.target, os.O_WRONLY, 0)
		if err != nil {
			return nil, f.wrap(err)
		}
		w.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, f.wrap(err)
	}
	if err := f.createTemp(); err != nil {
		return nil, err
	}
	f.w = f.file
	return f, nil
}

// createTemp creates the temporary file beside the target: on Linux a
// nameless one (O_TMPFILE) that only gets a name at Commit, so that no
// death of the process leaves it behind; else a named one, registered for
// the signal handler, whose name says which run owns it (see sweep).
// Either way the folder is first swept of temporary files whose run has
// ended. Unlike os.CreateTemp (mode 0600) it asks for 0666 and lets the
// umask decide, as os.Create does for the file it stands in for.
func (f *File) createTemp() error {
	dir, base := filepath.Split(f.target)
	if dir == "" {
		dir = "."
	}
	f.dir, f.base = dir, base
	sweep(dir)
	if file := openAnonymous(dir); file != nil {
		f.file, f.anon = file, true
		return nil
	}
	return f.createNamed()
}

// createNamed creates and registers a named temporary file beside the
// target.
func (f *File) createNamed() error {
	dir := f.dir
	for range 100 {
		name := tempName(dir, f.base)
		var file *os.File
		var err error
		// Created under the registry's lock, so a signal either finds
		// the file registered or comes before it exists.
		locked(func() {
			file, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			if err == nil {
				temps[name] = struct{}{}
			}
		})
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// The file is written beside the target; say so when the
			// folder is what refuses (the target itself may be writable).
			err = f.wrap(err)
			if errors.Is(err, fs.ErrPermission) {
				err = fmt.Errorf("%w (the file is written under a temporary name in %s, then renamed)", err, dir)
			}
			return err
		}
		f.file, f.temp = file, name
		return nil
	}
	return fmt.Errorf("writing %s: cannot create a temporary file in %s: too many name collisions", f.name, dir)
}

// link gives the nameless temporary file a name (tests replace it).
var link = linkAnonymous

// putInPlace gives the nameless temporary file a temporary name and
// renames it over the target, under the registry's lock (a signal between
// the two removes the name). linked is false when the file system would
// not name the file, and nothing was done.
func (f *File) putInPlace() (linked bool, err error) {
	locked(func() {
		for range 100 {
			name := tempName(f.dir, f.base)
			if err = link(f.file, name); errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return
			}
			linked = true
			temps[name] = struct{}{}
			if err = os.Rename(name, f.target); err != nil {
				os.Remove(name)
			}
			delete(temps, name)
			return
		}
	})
	return linked, f.wrap(err)
}

// toNamed copies the nameless temporary file into a named one, for a file
// system that made the first but will not name it.
func (f *File) toNamed() error {
	anon := f.file
	defer anon.Close()
	if err := f.createNamed(); err != nil {
		return err
	}
	f.anon = false
	if _, err := io.Copy(f.file, io.NewSectionReader(anon, 0, f.wb.written)); err != nil {
		return f.wrap(err)
	}
	return nil
}

// Name returns the path as given to Create ("-" for standard output).
func (f *File) Name() string { return f.name }

// Replaces reports whether Commit puts the output in place of a regular
// file that was there when it was created (what a command says, so that
// a file is never replaced without a word).
func (f *File) Replaces() bool { return f.keep }

// Write writes p; an error names the output's path.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.closed {
		return 0, fmt.Errorf("writing %s: already committed or aborted", f.display())
	}
	n, err := f.w.Write(p)
	if err != nil {
		f.err = f.wrap(err)
	}
	if f.temp != "" || f.anon {
		f.wb.wrote(f.file, n)
	}
	return n, f.err
}

// Commit puts the output in place: a temporary file is synced, given the
// replaced file's permissions, closed and renamed over the target; a file
// written in place is closed. After an error nothing is left behind and
// the previous file is unchanged. Commit after Commit or Abort returns an
// error.
func (f *File) Commit() error {
	if f.closed {
		if f.err != nil {
			return f.err
		}
		return fmt.Errorf("writing %s: already committed or aborted", f.display())
	}
	f.closed = true
	err := f.err
	if f.file == nil { // standard output: nothing to put in place
		return err
	}
	if f.temp == "" && !f.anon {
		if cerr := f.file.Close(); err == nil && cerr != nil {
			err = f.wrap(cerr)
		}
		f.file = nil
		f.err = err
		return err
	}
	if err == nil {
		err = f.wrap(f.file.Sync())
	}
	if err == nil && f.keep {
		err = f.wrap(f.file.Chmod(f.mode))
	}
	if f.anon && err == nil {
		linked, lerr := f.putInPlace()
		if !linked {
			// Named the slow way: copied into a named temporary file,
			// which is then synced, given its mode and renamed below.
			if err = f.toNamed(); err == nil {
				err = f.wrap(f.file.Sync())
			}
			if err == nil && f.keep {
				err = f.wrap(f.file.Chmod(f.mode))
			}
		} else {
			err = lerr
		}
	}
	if f.anon {
		if cerr := f.file.Close(); err == nil && cerr != nil {
			err = f.wrap(cerr)
		}
		f.file = nil
		if err == nil {
			syncDir(f.dir)
		}
		f.err = err
		return err
	}
	if cerr := f.file.Close(); err == nil && cerr != nil {
		err = f.wrap(cerr)
	}
	f.file = nil
	temp := f.temp
	f.temp = ""
	locked(func() {
		if err == nil {
			err = f.wrap(os.Rename(temp, f.target))
		}
		if err != nil {
			os.Remove(temp)
		}
		delete(temps, temp)
	})
	if err == nil {
		syncDir(filepath.Dir(f.target))
	}
	f.err = err
	return err
}

// Abort discards the output: a temporary file is removed, the target is
// untouched. It is a no-op after Commit or Abort, so it can be deferred.
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	if f.file != nil {
		f.file.Close()
		f.file = nil
	}
	if f.temp != "" {
		temp := f.temp
		f.temp = ""
		locked(func() {
			os.Remove(temp)
			delete(temps, temp)
		})
	}
}

// WriteFile writes data to path through Create and Commit.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// display is the output's name in messages.
func (f *File) display() string {
	if f.name == Stdout {
		return "standard output"
	}
	return f.name
}

// wrap turns an error from the file system into one that names the user's
// path, whatever file name (temporary or resolved) the error carried. The
// cause stays reachable with errors.Is (syscall.EPIPE, fs.ErrPermission).
func (f *File) wrap(err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &Error{Path: f.display(), Err: err}
}

// Error is a failure to write an output, with the path the user gave.
type Error struct {
	Path string // the output's path as given ("standard output" for "-")
	Err  error  // the cause
}

// Error returns "writing PATH: cause".
func (e *Error) Error() string { return "writing " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// syncDir makes a rename in dir durable; file systems that cannot sync a
// directory are not an error (the data itself was synced).
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
