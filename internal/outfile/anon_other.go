//go:build !linux

package outfile

import (
	"errors"
	"os"
)

var noAnonymous = true

// openAnonymous returns nil: nameless temporary files are Linux's
// (O_TMPFILE); elsewhere the temporary file is named, and swept by a
// later run when its owner died.
func openAnonymous(string) *os.File { return nil }

func linkAnonymous(*os.File, string) error { return errors.New("no nameless temporary files here") }
