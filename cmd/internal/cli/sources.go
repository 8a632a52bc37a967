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
// and ": " put before every line: where package input's findings go
// (PrintInputs), which name no program.
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

// PrintInputs writes to cmd's standard error what reading the inputs
// drew, the one path package input's notes and warnings take there (each
// line after the program's name): l's findings (loadErr or not), then,
// once l loaded (loadErr nil), each source's notes when notes is set
// (decode; analyze carries them in its report) and each source's
// warnings: what of its trace was not taken as it stands (a name cut, a
// rank, invocation or core missing) and its cores far outside its launch
// (an earlier launch's slots). It returns how many warnings it wrote
// (--strict fails on any).
func PrintInputs(cmd *cobra.Command, l *input.Loaded, loadErr error, notes bool) int {
	w := Stderr(cmd)
	n := 0
	for _, f := range l.Findings {
		fmt.Fprintln(w, f)
		if f.Warning {
			n++
		}
	}
	if loadErr != nil {
		return n
	}
	// A source's note or warning is one line, whatever it holds, as
	// before the findings were data.
	raw, prog := cmd.ErrOrStderr(), ProgramName(cmd)
	for _, s := range l.Sources {
		for _, m := range s.Notes() {
			if notes {
				fmt.Fprintf(raw, "%s: note: %s: %s\n", prog, s.Name(), m)
			}
		}
	}
	for _, s := range l.Sources {
		for _, m := range s.Warnings() {
			fmt.Fprintf(raw, "%s: warning: %s: %s\n", prog, s.Name(), m)
			n++
		}
	}
	return n
}
