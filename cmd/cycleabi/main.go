// Command cycleabi works with MegaKernel cycle-trace captures: it plans a
// profiling buffer's size from a task schedule, simulates a device writing
// one, validates a captured buffer against every ABI invariant, dumps its
// bytes field by field, decodes it into a Perfetto-ready trace, and
// analyzes and compares captures.
//
// The commands live in cmd/internal/cli, which cmd/cycleabi-export shares.
package main

import (
	"os"

	"github.com/megakernel/cycleabi/cmd/internal/cli"
	"github.com/megakernel/cycleabi/internal/outfile"
)

func main() {
	outfile.HandleSignals()
	os.Exit(cli.Main(os.Args[1:]))
}
