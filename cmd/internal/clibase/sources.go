package clibase

import (
	"fmt"
	"io"

	"github.com/megakernel/cycleabi/input"
)

// PrintNotes writes what each trace could not carry to stderr, once per
// note and trace.
func PrintNotes(w io.Writer, s *input.Sources) {
	for i, t := range s.Traces {
		if t == nil {
			continue
		}
		for _, n := range t.Notes {
			fmt.Fprintf(w, "cycleabi: note: %s: %s\n", s.Name(i), n)
		}
	}
}

// PrintWarnings writes what of each trace was not taken as it stands (a
// name cut, a rank, invocation or core missing) to stderr, once per
// warning and trace, and returns how many it wrote (--strict fails on
// any).
func PrintWarnings(w io.Writer, s *input.Sources) int {
	n := 0
	for i, t := range s.Traces {
		if t == nil {
			continue
		}
		for _, m := range t.Warnings {
			fmt.Fprintf(w, "cycleabi: warning: %s: %s\n", s.Name(i), m)
			n++
		}
	}
	return n
}
