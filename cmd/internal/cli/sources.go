package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/megakernel/cycleabi/input"
	"github.com/spf13/cobra"
)

// ProgramName is the name of the program cmd runs in, its root command's
// ("cycleabi"): what begins every line it writes to standard error.
func ProgramName(cmd *cobra.Command) string {
	return cmd.Root().Name()
}

// Stderr is cmd's standard error with the program's name (ProgramName)
// and ": " put before every line: where package input's notes and
// warnings go (Options.Warn), which name no program.
func Stderr(cmd *cobra.Command) io.Writer {
	return &prefixWriter{w: cmd.ErrOrStderr(), prefix: []byte(ProgramName(cmd) + ": ")}
}

// prefixWriter writes prefix before every line written to w.
type prefixWriter struct {
	w      io.Writer
	prefix []byte
	mid    bool // the last write ended inside a line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for rest := b; len(rest) > 0; {
		if !p.mid {
			out = append(out, p.prefix...)
		}
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		out = append(out, line...)
		rest = rest[len(line):]
		p.mid = line[len(line)-1] != '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// PrintNotes writes what each trace could not carry to cmd's standard
// error, once per note and trace.
func PrintNotes(cmd *cobra.Command, srcs []*input.Source) {
	w, prog := cmd.ErrOrStderr(), ProgramName(cmd)
	for _, s := range srcs {
		for _, n := range s.Notes() {
			fmt.Fprintf(w, "%s: note: %s: %s\n", prog, s.Name(), n)
		}
	}
}

// PrintWarnings writes what of each trace was not taken as it stands (a
// name cut, a rank, invocation or core missing), and each source's cores
// far outside its launch (an earlier launch's slots), to cmd's standard error,
// once per warning and trace, and returns how many it wrote (--strict
// fails on any).
func PrintWarnings(cmd *cobra.Command, srcs []*input.Source) int {
	w, prog := cmd.ErrOrStderr(), ProgramName(cmd)
	n := 0
	for _, s := range srcs {
		for _, m := range s.Warnings() {
			fmt.Fprintf(w, "%s: warning: %s: %s\n", prog, s.Name(), m)
			n++
		}
	}
	return n
}
