// Command cycleabi-export writes captures' records as Apache Parquet: it is
// `cycleabi export`, a program of its own so that the Parquet writer
// (export/internal/pq, with zstd) is in no other command. cycleabi runs it for `cycleabi export ARGS...`; run
// directly, `cycleabi-export ARGS...` does the same. It is built from
// cmd/internal/clibase (the inputs' flags and loading, and the export
// command), analyze and export: none of cycleabi's other commands.
package main

import (
	"context"
	"os"

	"github.com/megakernel/cycleabi/cmd/internal/clibase"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/internal/outfile"
)

func main() {
	outfile.HandleSignals()
	os.Exit(clibase.RunExport(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, newExporter))
}

// newExporter starts an export into dir with package export's writer.
func newExporter(dir string) (clibase.Exporter, error) {
	w, err := export.Create(dir)
	if err != nil {
		return nil, err // not a nil *export.Writer in a non-nil Exporter
	}
	return w, nil
}
