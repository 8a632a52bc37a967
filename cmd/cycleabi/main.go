// Command cycleabi works with MegaKernel cycle-trace captures: it plans a
// profiling buffer's size from a task schedule, simulates a device writing
// one, validates a captured buffer against every ABI invariant, dumps its
// bytes field by field, decodes it into a Perfetto-ready trace, and
// analyzes and compares captures.
//
// The commands live in cmd/internal/cli; this is the one place that
// touches the process's arguments, streams and exit status.
package main

import (
	"context"
	"os"

	"github.com/megakernel/cycleabi/cmd/internal/cli"
	"github.com/megakernel/cycleabi/internal/outfile"
)

func main() {
	outfile.HandleSignals()
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
