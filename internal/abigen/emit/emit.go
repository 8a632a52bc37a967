// Package emit is what the text emitters (cppgen, pygen) share: the file
// being written, the names it declares at its top scope, and the problems
// found on the way, each at the schema element to blame.
package emit

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// File is one generated file in the making. Its zero value is ready to
// use; lang names the output language in collision messages ("C++").
type File struct {
	Buf      bytes.Buffer
	Lang     string
	declared map[string]declared
	errs     []posError
}

// declared is what took a name, and where in the schema (zero for the
// file's own names).
type declared struct {
	what string
	pos  schema.Pos
}

// posError is a schema the file cannot express, at the element to blame.
type posError struct {
	pos schema.Pos
	msg string
}

// P writes one line: format and args as fmt.Sprintf, then a newline.
func (f *File) P(format string, args ...any) {
	fmt.Fprintf(&f.Buf, format, args...)
	f.Buf.WriteByte('\n')
}

// ErrorAt records a problem at pos.
func (f *File) ErrorAt(pos schema.Pos, format string, args ...any) {
	f.errs = append(f.errs, posError{pos, fmt.Sprintf(format, args...)})
}

// Declare records a name at the file's top scope and returns it; what
// says where it came from and pos where the schema declares it (zero for
// the file's own names). A second declaration of a name is a problem,
// reported at the schema element involved.
func (f *File) Declare(name, what string, pos schema.Pos) string {
	if prev, dup := f.declared[name]; dup {
		at := pos
		if at.Line == 0 {
			at = prev.pos
		}
		f.ErrorAt(at, "%s name %s of %s is already taken by %s", f.Lang, name, what, prev.what)
		return name
	}
	if f.declared == nil {
		f.declared = map[string]declared{}
	}
	f.declared[name] = declared{what, pos}
	return name
}

// Err returns the problems recorded, one "file:line:col: message" line
// each in file order as the schema loader reports its own, or nil.
func (f *File) Err(file string) error {
	if len(f.errs) == 0 {
		return nil
	}
	sort.SliceStable(f.errs, func(i, j int) bool {
		a, b := f.errs[i].pos, f.errs[j].pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	msgs := make([]string, len(f.errs))
	for i, e := range f.errs {
		msgs[i] = fmt.Sprintf("%s:%d:%d: %s", file, e.pos.Line, e.pos.Col, e.msg)
	}
	return errors.New(strings.Join(msgs, "\n"))
}
