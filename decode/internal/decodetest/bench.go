package decodetest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/stretchr/testify/require"
)

// WriteFunc is a trace writer: chromejson.Write or perfetto.Write.
type WriteFunc func(io.Writer, []render.Input, render.WriteOptions) error

// BenchWrite opens the benchmark capture of size (BenchSpecs) from
// memory, or from a file when from is "file", decodes it and writes its
// trace with write, at each iteration: cfg with the capture's names file,
// through gzip at BestSpeed when gz. It reports cpu-ms/op, events/s and
// the trace's size before compression (MB-trace, and MB/s by SetBytes).
func BenchWrite(b *testing.B, size, from string, gz bool, cfg render.Config, write WriteFunc) {
	buf, err := BenchCaptures[size]()
	require.NoError(b, err)
	spec := BenchSpecs[size]
	l, _ := spec.Layout()
	opts := capture.Request{Capacities: &l.Capacities}
	open := func() (*capture.Capture, error) { return capture.FromBytes("bench.bin", buf) }
	if from == "file" {
		path := filepath.Join(b.TempDir(), "bench.bin")
		require.NoError(b, os.WriteFile(path, buf, 0o644))
		open = func() (*capture.Capture, error) { return capture.Open(path) }
	}
	stages, tasks := spec.Names()
	cfg.Names = &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}

	var written int64
	var elapsed time.Duration
	cpu0 := CPUTime()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c, err := open()
		require.NoError(b, err)
		d, err := decode.Decode(c, opts)
		require.NoError(b, err)
		// Count the trace before compression.
		cw := &CountingWriter{W: io.Discard}
		var zw *gzip.Writer
		if gz {
			zw, _ = gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
			cw.W = zw
		}
		require.NoError(b, write(cw, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{}))
		if zw != nil {
			zw.Close()
		}
		c.Close()
		elapsed += time.Since(start)
		written = cw.N
	}
	if cpu := CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	b.SetBytes(written)
	b.ReportMetric(float64(spec.Records)*float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(written)/1e6, "MB-trace")
}
