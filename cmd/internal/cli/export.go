package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/spf13/cobra"
)

// exportMemoryLimit is export's soft memory limit (runtime/debug).
const exportMemoryLimit = 40 << 20

type exportFlags struct {
	in          AnalyzeInputs
	Invocations InvocationFlags
	output      string
	strict      bool
}

// NewExportCmd is the export command: captures' records written as
// Parquet by package export, in this process.
func NewExportCmd() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export CAPTURE... -o DIR [flags]",
		Short: "Write captures' records as Parquet tables for DuckDB, Spark or Trino",
		Long: `export checks each capture as analyze does (same layout, names and schedule
flags) and writes its records as Apache Parquet into a new folder,
Hive-partitioned by rank:

  DIR/records/rank=R/part-NNNNN.parquet   one row per record: every record
      field, its display name, its kind (compute, wait, trigger, other), task
      type and stage as analyze counts them, start and end in ns from the
      rank's anchor, and invocation_id, step and direction in a window
  DIR/cores/rank=R/part-NNNNN.parquet     one row per entered core: where its
      time went, in cycles, as analyze reports it
  DIR/ranks/rank=R/part-NNNNN.parquet     one row per capture: its layout,
      frequency, ABI fingerprint, anchor and totals

The rank is in the path: engines add it as a column (DuckDB:
read_parquet('DIR/records/*/*.parquet', hive_partitioning = true)). Export
one rank per job on as many machines as there are, into separate folders,
and copy the folders' rank=R subfolders together: nothing is shared
between ranks. DIR must not exist or be empty; it appears whole when the
export succeeds and not at all when it fails or is interrupted.

Exit status: 0 on success, 1 when a capture is invalid or does not match
the schedule (or, with --strict, an input drew a warning: the folder is
written all the same), 2 for usage or I/O errors.`,
		Example: `  cycleabi export examples/moe_layer.bin --names examples/moe_layer.names.yaml -o moe.parquet
  cycleabi export rank*.bin -o step42
  duckdb -c "SELECT rank, stage, sum(end_ns - start_ns) FROM read_parquet('step42/records/*/*.parquet', hive_partitioning = true) WHERE kind = 'compute' GROUP BY ALL"`,
		Args: CapturesOrManifest,
		RunE: func(cmd *cobra.Command, args []string) error { return runExport(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.in.Register(fs)
	f.Invocations.RegisterLabels(fs)
	fs.StringVarP(&f.output, "output", "o", "", "the folder to create (required): it must not exist or be empty")
	fs.BoolVar(&f.strict, "strict", false, "exit 1 when an input drew a warning (a trace's name cut or rank missing, a kernel family left open), once the folder is written")
	return cmd
}

func runExport(cmd *cobra.Command, paths []string, f *exportFlags) error {
	// A command line that cannot work is refused before any capture is
	// read.
	if f.output == "" {
		return Usage(errors.New("export needs -o DIR, the folder to write"))
	}
	if f.output == outfile.Stdout {
		return Usage(errors.New("export writes a folder of files, not standard output: give -o DIR"))
	}
	if err := checkExportFolder(f.output); err != nil {
		return Usage(err)
	}
	invs, err := f.Invocations.Resolve(paths, f.in.Ranks)
	if err != nil {
		return Usage(err)
	}
	inputs := paths
	if invs != nil {
		inputs = append([]string{f.Invocations.Manifest}, invs.Captures()...)
	}
	if err := outfile.SameFile(f.output, f.in.Files(inputs)...); err != nil {
		return Usage(err)
	}
	w, err := export.Create(f.output)
	if err != nil {
		return Usage(err)
	}
	defer w.Abort()
	// export's live memory is bounded (row groups in flight and the
	// encoders' buffers, about 20 MiB), but the collector lets the heap
	// grow to twice it between collections: a soft limit keeps the
	// process within its budget (docs/performance.md). A limit the user
	// set (GOMEMLIMIT) stands.
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(exportMemoryLimit))
	}
	var records, captures uint64
	f.in.analyze, f.in.discard = w.Add, true
	_, err = f.in.RunEach(cmd, paths, invs, func(_ int, d *decode.Decoded, r *analyze.Rank, o analyze.Options) error {
		records += r.Records
		captures++
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.Commit(); err != nil {
		return Usage(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d records of %d capture(s) as Parquet (records/, cores/, ranks/)\n", f.output, records, captures)
	return StrictWarned(cmd, f.strict, f.in.Warned)
}

// checkExportFolder refuses, before any capture is read, an -o that
// export could only fail to put its folder at once the work is done:
// the folder is written under a temporary name beside it and renamed
// into place, and a rename replaces no symbolic link (a dangling one,
// or one to an empty folder) and no file. What CreateDir checks itself
// (a folder with files in it) it says when export starts.
func checkExportFolder(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(filepath.Clean(path))
		if pst, err := os.Stat(parent); err != nil {
			return fmt.Errorf("-o %s: its folder %s: %w", path, parent, errors.Unwrap(err))
		} else if !pst.IsDir() {
			return fmt.Errorf("-o %s: %s is not a folder", path, parent)
		}
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return fmt.Errorf("-o %s is a symbolic link (to %s): export renames its folder into place, which a link cannot take; give the folder's own path", path, target)
	case !st.IsDir():
		return fmt.Errorf("-o %s exists and is not a folder: give a new folder, nothing is replaced", path)
	}
	return nil
}
