package chromejson

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rankInputs are two ranks: one with a slot out of start order (sorted
// when walked), one with a record before its core's entry.
func rankInputs(t *testing.T) []render.Input {
	t.Helper()
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	a := capturetest.New(24, 16, 16)
	a.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1400, 1500, mm, 1).Span(abi.CoreTypeAIC, 0, 1000, 1200, mm, 2)
	a.Enter(abi.CoreTypeAIV, 3, 1000).Span(abi.CoreTypeAIV, 3, 1100, 2000, mm, 3)
	b := capturetest.New(24, 16, 16)
	b.Enter(abi.CoreTypeAIV, 5, 700).Span(abi.CoreTypeAIV, 5, 600, 900, mm, 4)
	b.Enter(abi.CoreTypeAIC, 7, 500).Span(abi.CoreTypeAIC, 7, 800, 950, mm, 5)
	var inputs []render.Input
	for i, buf := range [][]byte{a.Bytes(), b.Bytes()} {
		d, err := decodetest.Decode(fmt.Sprintf("r%d.bin", i), buf, capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		cfg := decodetest.DefaultConfig()
		cfg.Rank = uint32(i)
		inputs = append(inputs, render.Input{Decoded: d, Config: cfg})
	}
	return inputs
}

// TestDropSlots: a trace of captures whose slots were dropped after
// decoding (decode of many captures) is the trace of the same captures
// decoded and kept whole, byte for byte, however the invocations are laid
// out; the slots stay dropped after.
func TestDropSlots(t *testing.T) {
	zero := 0.0
	for _, c := range []struct {
		name   string
		inputs func(*testing.T) []render.Input
		o      render.WriteOptions
	}{
		{"ranks", rankInputs, render.WriteOptions{}},
		{"ranks shifted", rankInputs, render.WriteOptions{ShiftNegativeTS: true}},
		{"ranks serial", rankInputs, render.WriteOptions{Formatters: 1}},
		{"invocations", invocationInputs, render.WriteOptions{}},
		{"invocations end to end", invocationInputs, render.WriteOptions{InvocationGapUs: &zero}},
		{"invocations absolute", invocationInputs, render.WriteOptions{AbsoluteTime: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kept, dropped bytes.Buffer
			require.NoError(t, Write(&kept, c.inputs(t), c.o))
			inputs := c.inputs(t)
			for _, in := range inputs {
				in.Decoded.DropSlots()
			}
			require.NoError(t, Write(&dropped, inputs, c.o))
			assert.Equal(t, []byte(dropped.Bytes()), []byte(kept.Bytes()), "traces differ")
			assert.Contains(t, kept.String(), `"thread_name"`, "no thread names")
			for _, in := range inputs {
				assert.Nilf(t, in.Decoded.Summary.Active, "%s: slots not dropped again after the trace", in.Decoded.Capture.Name)
			}
		})
	}
}

// countingReader counts the reads of a capture.
type countingReader struct {
	r     *bytes.Reader
	reads *atomic.Int64
}

func (c countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.r.ReadAt(p, off)
}

// blockedWriter blocks every write until open is closed.
type blockedWriter struct{ open chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) {
	<-w.open
	return len(p), nil
}

// TestRenderersWaitForWriter: while the writer is stuck, renderers start
// on at most Parallel captures (each rendered capture waits, in memory,
// for the writer): they do not run ahead through the rest.
func TestRenderersWaitForWriter(t *testing.T) {
	const n, par = 20, 2
	mm := abi.TaskTypeBase + uint32(abi.TaskTypeMatMul)
	var inputs []render.Input
	readers := make([]atomic.Int64, n)
	for i := range n {
		b := capturetest.New(24, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, 1000).Span(abi.CoreTypeAIC, 0, 1000, 1200, mm, uint32(i))
		buf := b.Bytes()
		c, err := capture.FromReaderAt(fmt.Sprintf("c%d.bin", i), countingReader{bytes.NewReader(buf), &readers[i]}, int64(len(buf)))
		require.NoError(t, err)
		d, err := decode.Decode(c, capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
		require.NoError(t, err)
		d.DropSlots()
		cfg := decodetest.DefaultConfig()
		cfg.Rank = uint32(i)
		inputs = append(inputs, render.Input{Decoded: d, Config: cfg})
	}
	for i := range readers {
		readers[i].Store(0)
	}
	w := blockedWriter{make(chan struct{})}
	done := make(chan error)
	go func() { done <- Write(w, inputs, render.WriteOptions{Parallel: par}) }()
	time.Sleep(200 * time.Millisecond)
	started := 0
	for i := range readers {
		if readers[i].Load() > 0 {
			started++
		}
	}
	close(w.open)
	require.NoError(t, <-done)
	assert.LessOrEqual(t, started, par)
	for i := range readers {
		assert.NotEqualf(t, int64(0), readers[i].Load(), "capture %d never read", i)
	}
}
