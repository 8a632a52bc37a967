package input

import "fmt"

// Finding is a note or a warning loading drew (a family inferred, a
// --kernel-name applied over the data's, ids a family does not fit):
// data, which the command writes to its standard error, a line each
// (Finding.String), naming no program.
type Finding struct {
	Warning bool
	Text    string
}

// String is the finding's line: "note: ..." or "warning: ...".
func (f Finding) String() string {
	if f.Warning {
		return "warning: " + f.Text
	}
	return "note: " + f.Text
}

func note(format string, args ...any) Finding {
	return Finding{Text: fmt.Sprintf(format, args...)}
}

func warning(format string, args ...any) Finding {
	return Finding{Warning: true, Text: fmt.Sprintf(format, args...)}
}
