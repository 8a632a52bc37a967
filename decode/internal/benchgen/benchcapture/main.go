// Command benchcapture writes a synthetic capture for measuring decode
// (scripts/rss-decode.sh): go run ./decode/internal/benchgen/benchcapture -records 500000 -o big.bin
// It prints the decode flags of the capture's layout.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/megakernel/cycleabi/decode/internal/benchgen"
)

func main() {
	spec := benchgen.MB32
	out := flag.String("o", "", "capture file to write")
	flag.IntVar(&spec.Records, "records", spec.Records, "live records")
	flag.IntVar(&spec.Unsorted, "unsorted", spec.Unsorted, "slots with records out of start order")
	flag.BoolVar(&spec.Warnings, "warnings", false, "every slot draws validate warnings (unsorted, overlaps, records before entry)")
	flag.BoolVar(&spec.Full, "full", false, "capacities sized to the records (else twice them)")
	flag.Uint64Var(&spec.Seed, "seed", spec.Seed, "random seed")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: benchcapture [-records N] [-unsorted N] [-seed N] [-warnings] [-full] -o CAPTURE")
		os.Exit(2)
	}
	flags, err := benchgen.WriteFile(*out, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcapture:", err)
		os.Exit(1)
	}
	fmt.Println(flags)
}
