package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/infile"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/spf13/cobra"
)

type diffFlags struct {
	in            AnalyzeInputs
	format        string
	top           int
	output        string
	allowMismatch bool
	strict        bool
}

// maxReportBytes bounds an analyze JSON report read by diff (it is
// streamed, but what it holds is kept: its critical paths, 16 bytes a
// segment).
const maxReportBytes = 1 << 30

func newDiffCmd() *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff BASE NEW [flags]",
		Short: "Compare two captures (or JSON traces, or analyze --format json reports)",
		Long: `diff analyzes BASE and NEW (each a capture or a MegaKernel JSON trace,
analyzed as 'cycleabi analyze' does with the same flags, or a report
'cycleabi analyze --format json' wrote) and compares them rank by rank: makespan, busy % and imbalance per
region, and per task type and stage the count, total, mean and p90 cycles,
each with its absolute and relative change, task types and stages by the
largest absolute change in total first. A capture diffed with itself shows
zero everywhere ("no change"). Ranks are paired by rank number (one rank
each: with each other); the sections of two windows (reports 'cycleabi
analyze --invocation-manifest ... --format json' wrote) by rank and
invocation id, whatever their order.

Reports of different ABI fingerprints are refused unless
--allow-abi-mismatch. Each analysis records what it was made with besides
the captures (the kernel family the captures were read under, and the
--plan and --names files by name and SHA-256 of their bytes, in an analyze
--format json report's "inputs"); where BASE's and
NEW's differ, diff says which on stderr and atop the text (and
"input_differences" in JSON), since the change may come from them rather
than the kernel, and --strict refuses to compare them (exit 1).

Exit status: 0 on success, 1 when an input is invalid or the ABIs differ,
2 for usage or I/O errors.`,
		Example: `  cycleabi diff before.bin after.bin --plan moe.yaml --names moe.names.yaml
  cycleabi analyze before.bin --format json -o before.json
  cycleabi diff before.json after.bin --format markdown`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return Usage(errors.New("diff needs BASE and NEW"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.in.Register(fs)
	fs.StringVar(&f.format, "format", "text", "text, json or markdown")
	fs.IntVar(&f.top, "top", 10, "rows per task type and stage table in text and markdown (0: all)")
	fs.StringVarP(&f.output, "output", "o", "-", `output file; "-" for stdout`)
	fs.BoolVar(&f.allowMismatch, "allow-abi-mismatch", false, "compare reports of different ABI fingerprints")
	fs.BoolVar(&f.strict, "strict", false, "refuse (exit 1) to compare analyses made with different inputs (kernel family, frequency, SoC, --plan, --names)")
	return cmd
}

func runDiff(cmd *cobra.Command, args []string, f *diffFlags) error {
	switch f.format {
	case "text", "json", "markdown":
	default:
		return Usage(fmt.Errorf("--format %q: expected text, json or markdown", f.format))
	}
	if f.top < 0 {
		return Usage(fmt.Errorf("--top %d: must be 0 (all) or more", f.top))
	}
	if err := outfile.SameFile(f.output, f.in.Files(args)...); err != nil {
		return Usage(err)
	}
	var reps [2]*analyze.Report
	for i, path := range args {
		var err error
		if reps[i], err = diffInput(cmd, &f.in, path); err != nil {
			return err
		}
	}
	d, err := analyze.Compare(reps[0], reps[1], f.allowMismatch)
	if err != nil {
		// ABIs that differ, or sections that do not pair: what the
		// inputs hold, not how diff was asked.
		return Invalid(err)
	}
	if err := compareInputs(cmd, d, f.strict); err != nil {
		return err
	}
	return writeOutput(cmd, f.output, func(w io.Writer) error {
		switch f.format {
		case "json":
			return d.WriteJSON(w)
		case "markdown":
			return d.WriteMarkdown(w, f.top)
		}
		return d.WriteText(w, f.top)
	})
}

// diffInput reads a report, or analyzes a capture or a JSON trace.
func diffInput(cmd *cobra.Command, in *AnalyzeInputs, path string) (*analyze.Report, error) {
	// Opened as every command opens an input: a trace is analyzed.
	if kind, err := input.TellInput(path); err != nil {
		return nil, err
	} else if kind.IsTrace {
		return in.Run(cmd, []string{path}, nil)
	}
	file, st, err := infile.Open(path)
	if err != nil {
		return nil, Usage(err)
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(file, head)
	head = head[:n]
	if !analyze.LooksLikeJSON(head) {
		file.Close()
		return in.Run(cmd, []string{path}, nil)
	}
	defer file.Close()
	if st.Size() > maxReportBytes {
		return nil, Usage(fmt.Errorf("%s: a %d-byte report is larger than the %d bytes diff reads", path, st.Size(), maxReportBytes))
	}
	// Streamed from the file already open (and checked), up to the bound
	// in case it grew since; what is read is never held whole.
	r, err := analyze.ReadReportToCompare(path, io.NewSectionReader(file, 0, maxReportBytes))
	var one [1]byte
	if n, _ := file.ReadAt(one[:], maxReportBytes); n > 0 {
		return nil, Usage(fmt.Errorf("%s: the report grew past the %d bytes diff reads while it was read", path, maxReportBytes))
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, Usage(err) // the file could not be read
		}
		return nil, Invalid(err)
	}
	return r, nil
}
