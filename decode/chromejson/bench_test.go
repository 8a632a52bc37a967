package chromejson

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func BenchmarkDecode(b *testing.B) {
	for _, size := range []string{"32MB", "320MB"} {
		for _, from := range []string{"memory", "file"} {
			b.Run(size+"/"+from, func(b *testing.B) { benchDecode(b, size, from, false) })
		}
	}
}

// BenchmarkDecodeGzip is the 32 MB capture written as .json.gz (MB/s of
// trace before compression).
func BenchmarkDecodeGzip(b *testing.B) { benchDecode(b, "32MB", "memory", true) }

func benchDecode(b *testing.B, size, from string, gz bool) {
	decodetest.BenchWrite(b, size, from, gz, decodetest.DefaultConfig(), Write)
}

// TestBenchCaptureShape keeps the benchmark honest: the captures are the
// size the figures claim.
func TestBenchCaptureShape(t *testing.T) {
	for name, spec := range decodetest.BenchSpecs {
		l, err := spec.Layout()
		require.NoError(t, err)
		mb := float64(l.Size()) / 1e6
		want := map[string]float64{"32MB": 32, "320MB": 320}[name]
		assert.GreaterOrEqualf(t, mb, 0.95*want, "%s capture", name)
		assert.LessOrEqualf(t, mb, 1.1*want, "%s capture", name)
	}
	buf, err := benchgen.Bytes(benchgen.Spec{Records: 10_000, Unsorted: 1, Seed: 1})
	require.NoError(t, err)
	c, _ := capture.FromBytes("b", buf)
	l, _ := benchgen.Spec{Records: 10_000}.Layout()
	d, err := decode.Decode(c, capture.Request{Capacities: &l.Capacities})
	require.NoError(t, err)
	unsorted := 0
	for _, a := range d.Summary.Active {
		if !a.Sorted {
			unsorted++
		}
	}
	assert.Equal(t, uint64(10_000), d.Summary.Records, "records")
	assert.Len(t, d.Summary.Active, 72, "slots")
	assert.Equal(t, 1, unsorted, "unsorted slots")
}

// BenchmarkDecodeOutOfOrder is the spill sort's worst case at 1/16 of
// scripts/rss-sparse.sh's size: one slot of 1,048,576 records in random
// start order (16 runs, 15 of them spilled to TempDir), decoded from a
// sparse file to io.Discard.
func BenchmarkDecodeOutOfOrder(b *testing.B) {
	const records = 1 << 20
	path := filepath.Join(b.TempDir(), "sparse.bin")
	_, err := benchgen.WriteSparse(path, records, 1)
	require.NoError(b, err)
	capacity, _ := abi.RoundUpCapacity(records)
	opts := capture.Request{Capacities: &abi.Capacities{AIC: 0, AIV: capacity}}
	tmp := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		c, err := capture.Open(path)
		require.NoError(b, err)
		d, err := decode.Decode(c, opts)
		require.NoError(b, err)
		d.TempDir = tmp
		require.NoError(b, Write(io.Discard, []render.Input{{Decoded: d, Config: decodetest.DefaultConfig()}}, render.WriteOptions{}))
		c.Close()
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecodeFormatters is the 32 MB capture (from memory, to
// io.Discard) with its events formatted by the capture's own goroutine
// (1) or handed in batches to 2 formatters; run with -cpu 2.
func BenchmarkDecodeFormatters(b *testing.B) {
	d := decodetest.Decoded32MB(b)
	stages, tasks := benchgen.MB32.Names()
	cfg := decodetest.DefaultConfig()
	cfg.Names = &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cw := &decodetest.CountingWriter{W: io.Discard}
			for b.Loop() {
				cw.N = 0
				require.NoError(b, Write(cw, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{Formatters: n}))
			}
			b.SetBytes(cw.N)
		})
	}
}

// BenchmarkRecords is the merge alone: the 32 MB capture's 72 slots
// walked in trace order (from memory), nothing rendered.
func BenchmarkRecords(b *testing.B) {
	d := decodetest.Decoded32MB(b)
	for b.Loop() {
		n := uint64(0)
		require.NoError(b, d.Records(func(r decode.Record) bool { n += r.StartCycle; return true }))
	}
	b.ReportMetric(float64(d.Summary.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppendEvent32MB renders the first 64Ki events of the 32 MB
// benchmark capture from memory, without and with its names file, in
// trace order on one goroutine, in batches as the formatters take them:
// the formatters' work in decode without the merge, the hand-offs or I/O.
func BenchmarkAppendEvent32MB(b *testing.B) {
	d := decodetest.Decoded32MB(b)
	recs := make([]decode.Record, 0, 1<<16)
	require.NoError(b, d.Records(func(r decode.Record) bool { recs = append(recs, r); return len(recs) < cap(recs) }))
	for _, names := range []string{"no-names", "names"} {
		b.Run(names, func(b *testing.B) {
			cfg := decodetest.DefaultConfig()
			if names == "names" {
				stages, tasks := benchgen.MB32.Names()
				cfg.Names = &kernelnames.Names{Stages: stages, Tasks: kernelnames.TaskNamesOf(tasks)}
			}
			in := &render.Input{Decoded: d, Config: cfg}
			benchAppendEvents(b, newRenderer(0, in, placementOf(b, in)), recs)
		})
	}
}

func benchAppendEvents(b *testing.B, r *renderer, recs []decode.Record) {
	// Batches of render.FormatBatch into one buffer, as each formatter does.
	out := make([]byte, 0, 400*render.FormatBatch)
	var n int64
	for b.Loop() {
		n = 0
		for i := range recs {
			if i%render.FormatBatch == 0 {
				n += int64(len(out))
				out = out[:0]
			}
			out = r.appendEvent(out, &recs[i])
		}
		n += int64(len(out))
	}
	b.SetBytes(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/event")
}
