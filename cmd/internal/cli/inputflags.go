package cli

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/spf13/pflag"
)

// The flags every command that reads captures shares, each registered here
// with its one help text: decode, analyze, report, diff and export (through
// AnalyzeInputs), dump and validate read captures under the same words.

// RegisterFrequency adds --soc and --freq-mhz, the system-counter
// frequency the cycles count at (Frequency resolves them).
func RegisterFrequency(fs *pflag.FlagSet, soc *string, mhz *float64) {
	fs.StringVar(soc, "soc", "ascend910b", "SoC whose system-counter frequency the cycles count at (the µs figures), matched by prefix: "+SoCChoices()+"; a trace's own frequency stands unless --soc or --freq-mhz is given")
	fs.Float64Var(mhz, "freq-mhz", 0, "system-counter frequency in MHz, 0.001 to 1e6 (as a trace's cycleFrequencyMHz); overrides --soc")
}

// RegisterNames adds --names, the names file.
func RegisterNames(fs *pflag.FlagSet, file *string) {
	fs.StringVar(file, "names", "", "YAML or JSON file naming stages, graph stages and task stages; default: a trace's own names, else the schema's")
}

// RegisterRanks adds --rank, the rank of each capture.
func RegisterRanks(fs *pflag.FlagSet, ranks *[]uint) {
	fs.UintSliceVar(ranks, "rank", nil, "rank of each capture (a trace's pid), repeated in order (default: from the file name, else 0; a JSON trace states its own)")
	fs.Lookup("rank").DefValue = ""
}

// SoCChoices lists the schema's SoC prefixes and frequencies for --help.
func SoCChoices() string {
	var b strings.Builder
	for i, soc := range abi.SoCs() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%g MHz)", soc.Prefix, soc.MHz)
	}
	b.WriteString("; Ascend910B2 matches ascend910b")
	return b.String()
}
