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
