package chromejson

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// For any valid capture, formatting its events on several goroutines
// gives the bytes of the serial path (one formatter), with the same
// warnings and progress counts; batches of formatBatch records split the
// medium captures many times.
func TestFormattersMatchSerial(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := capturedraw.Draw(t)
		cfg := decodetest.DefaultConfig()
		cfg.Names = g.Names
		cfg.DetailedNames = rapid.Bool().Draw(t, "detailed")
		d, err := decodetest.Decode("gen.bin", g.B.Bytes(), g.Opts)
		require.NoError(t, err, "valid capture refused")
		var want []byte
		var wantWarn decode.Warnings
		for _, n := range []int{1, 2, 3} {
			var out bytes.Buffer
			events := 0
			o := render.WriteOptions{Formatters: n, Progress: func(k int) { events += k }}
			require.NoError(t, Write(&out, []render.Input{{Decoded: d, Config: cfg}}, o))
			require.Equalf(t, g.Records, events, "%d formatters: progress counted", n)
			if n == 1 {
				want, wantWarn = out.Bytes(), d.Warnings
				continue
			}
			require.Truef(t, bytes.Equal(out.Bytes(), want), "%d formatters: trace differs from the serial one: %s", n, golden.Diff(out.Bytes(), want))
			require.Equalf(t, wantWarn, d.Warnings, "%d formatters: warnings", n)
		}
	})
	// Several captures, one at a time or rendered at once, each with its
	// formatters.
	inputs := mediumInputs(t, 2)
	var want []byte
	for _, o := range []render.WriteOptions{{Parallel: 1, Formatters: 1}, {Parallel: 1, Formatters: 2}, {Parallel: 1, Formatters: 4},
		{Parallel: 2, Formatters: 2}, {Parallel: 2, Formatters: 3}, {}} {
		var out bytes.Buffer
		require.NoError(t, Write(&out, inputs, o))
		if want == nil {
			want = out.Bytes()
		} else {
			require.Truef(t, bytes.Equal(out.Bytes(), want), "%+v: medium trace differs from the serial one: %s", o, golden.Diff(out.Bytes(), want))
		}
	}
}

// A failing writer stops the walk and every formatter: the error is the
// writer's, and no goroutine is left behind.
func TestFormattersWriterFails(t *testing.T) {
	inputs := mediumInputs(t, 2)
	before := runtime.NumGoroutine()
	for _, left := range []int{0, 10, 300 << 10, 1 << 20} {
		err := Write(&failingWriter{left: left}, inputs, render.WriteOptions{Parallel: 1, Formatters: 3})
		assert.ErrorContainsf(t, err, "disk full", "left %d: got %v", left, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := runtime.NumGoroutine()
	assert.LessOrEqualf(t, n, before, "%d goroutines left behind", n-before)
}
