package abidiff

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// GitPrefix starts a schema source read from git: "git:REV:PATH" is PATH as
// committed in REV ("git:HEAD:abi/schema.yaml"); an empty REV
// ("git::abi/schema.yaml") is the version staged in the index.
const GitPrefix = "git:"

// Load reads and validates a schema from source: a file path, or
// "git:REV:PATH" to read a committed version through `git show REV:PATH`
// (run in the current directory; PATH is relative to the repository root, or
// to the current directory when it starts with "./"). The schema's File, and
// so every location in a comparison, is source as given.
//
// A bad schema returns its schema.ErrorList (every problem); a missing file,
// a missing git, revision or path returns one error that names source.
func Load(source string) (*schema.Schema, error) {
	rest, ok := strings.CutPrefix(source, GitPrefix)
	if !ok {
		return schema.LoadFile(source)
	}
	rev, path, ok := strings.Cut(rest, ":")
	if !ok || path == "" {
		return nil, fmt.Errorf("%s: want git:REV:PATH (e.g. git:HEAD:abi/schema.yaml)", source)
	}
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%s: revision %q starts with '-' (git would read it as an option)", source, rev)
	}
	data, err := gitShow(rev + ":" + path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return schema.Load(source, data)
}

// gitShow returns the contents of object (REV:PATH) from the repository
// around the current directory.
func gitShow(object string) ([]byte, error) {
	// --end-of-options: a REV starting with "-" is a revision, never an option.
	cmd := exec.Command("git", "show", "--end-of-options", object)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, errors.New("git is not installed (needed to read a committed schema)")
	}
	msg := strings.TrimSpace(stderr.String())
	msg = strings.TrimPrefix(msg, "fatal: ")
	if msg == "" {
		msg = err.Error()
	}
	return nil, fmt.Errorf("git show %s: %s", object, msg)
}
