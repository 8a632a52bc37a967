package perfetto

import (
	"io"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
)

// BenchmarkFormats writes the 32 MB capture as JSON and as Perfetto
// protobuf, side by side (-count runs each sub-benchmark that many times
// in a row; for the two to alternate, so a busy machine slows both alike,
// run the test binary in a loop, as docs/performance.md shows). cpu-ms is
// the process's user+sys CPU time per op, steadier than ns/op when other
// work shares the machine.
func BenchmarkFormats(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchFormat(b, chromejson.Write) })
	b.Run("perfetto", func(b *testing.B) { benchFormat(b, Write) })
}

// benchFormat decodes the 32 MB capture from memory and writes it with
// write, as decode/chromejson's BenchmarkDecode does with the JSON writer.
func benchFormat(b *testing.B, write func(io.Writer, []render.Input, render.WriteOptions) error) {
	buf, err := decodetest.BenchCaptures["32MB"]()
	if err != nil {
		b.Fatal(err)
	}
	spec := decodetest.BenchSpecs["32MB"]
	l, _ := spec.Layout()
	opts := capture.Request{Capacities: &l.Capacities}
	stages, tasks := spec.Names()
	cfg := defaultConfig()
	cfg.Names = &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}

	var written int64
	var elapsed time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c, err := capture.FromBytes("bench.bin", buf)
		if err != nil {
			b.Fatal(err)
		}
		d, err := decode.Decode(c, opts)
		if err != nil {
			b.Fatal(err)
		}
		cw := &decodetest.CountingWriter{W: io.Discard}
		if err := write(cw, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		c.Close()
		elapsed += time.Since(start)
		written = cw.N
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	b.SetBytes(written)
	b.ReportMetric(float64(spec.Records)*float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(written)/1e6, "MB-trace")
}
