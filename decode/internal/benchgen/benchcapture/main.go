// Command benchcapture writes a synthetic capture for measuring decode
// (scripts/rss-decode.sh): go run ./decode/internal/benchgen/benchcapture -records 500000 -o big.bin
// It prints the decode flags of the capture's layout. With -sparse it writes
// the out-of-order worst case of scripts/rss-sparse.sh instead.
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
	sparse := flag.Bool("sparse", false, "write a sparse capture whose only live slot, AIV/0, holds -records records in random start order")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: benchcapture [-records N] [-unsorted N | -sparse] [-seed N] [-warnings] [-full] -o CAPTURE")
		os.Exit(2)
	}
	write := benchgen.WriteFile
	if *sparse {
		write = func(path string, s benchgen.Spec) (string, error) {
			return benchgen.WriteSparse(path, s.Records, s.Seed)
		}
	}
	flags, err := write(*out, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcapture:", err)
		os.Exit(1)
	}
	fmt.Println(flags)
}
