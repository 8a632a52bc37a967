// Command fwgen writes a large Kineto-style framework trace for measuring
// cycleabi merge's memory: host cpu_op/cuda_runtime events on one thread
// and device kernels on one stream, a step's worth at a time, until the
// file reaches -size bytes (or it holds -kernels MegaKernel launches).
// Each step has -ops operators; every -every-th step launches a kernel
// named MegaKernel_moe_<step> (what the example MegaKernel trace's default
// pattern matches) in place of the middle one.
//
//	go run ./tracemerge/internal/fwgen -size 1100000000 -o /tmp/big.json
//	go run ./tracemerge/internal/fwgen -kernels 1000000 -ops 1 -every 1 -o /tmp/matching.json
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	size := flag.Int64("size", 1<<30, "bytes to write at least")
	out := flag.String("o", "", "output file")
	every := flag.Int("every", 1000, "a MegaKernel launch every this many steps (0: none)")
	ops := flag.Int("ops", 50, "operators (a cpu_op and its kernel) per step")
	maxKernels := flag.Int("kernels", 0, "stop at this many MegaKernel launches (0: at -size)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "fwgen: -o is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fwgen:", err)
		os.Exit(2)
	}
	cw := &countWriter{w: f}
	w := bufio.NewWriterSize(cw, 1<<20)
	fmt.Fprint(w, `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"Ascend910B2"}],"traceEvents":[`+"\n")
	fmt.Fprint(w, `{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}}`)
	ts := int64(1733800000000000) // nanoseconds
	kernels, events := 0, 1
	done := func() bool {
		if *maxKernels > 0 {
			return kernels >= *maxKernels
		}
		return cw.n+int64(w.Buffered()) >= *size
	}
	for step := 0; !done(); step++ {
		for op := range *ops {
			name := fmt.Sprintf("aten::op_%d", op)
			kernel := fmt.Sprintf("Kernel_%d_%x", op, step%4096)
			if op == *ops/2 && *every > 0 && step%*every == 0 {
				kernel = fmt.Sprintf("MegaKernel_moe_%d", step)
				kernels++
			}
			fmt.Fprintf(w, ",\n"+`{"ph":"X","cat":"cpu_op","name":"%s","pid":41235,"tid":41235,"ts":%d.%03d,"dur":12.5,"args":{"External id":%d,"Sequence number":%d}}`,
				name, ts/1000, ts%1000, step*50+op, step)
			fmt.Fprintf(w, ",\n"+`{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d.%03d,"dur":2500.25,"args":{"External id":%d,"device":0,"stream":7}}`,
				kernel, (ts+40_000)/1000, (ts+40_000)%1000, step*50+op)
			ts += 2_600_125
			events += 2
		}
	}
	fmt.Fprint(w, "\n],\n"+`"displayTimeUnit":"ms"}`+"\n")
	if err := w.Flush(); err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fwgen:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "fwgen: %d bytes, %d events, %d MegaKernel launches\n", cw.n, events, kernels)
}

type countWriter struct {
	w *os.File
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
