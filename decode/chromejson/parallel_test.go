package chromejson

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
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
		if err != nil {
			t.Fatalf("valid capture refused: %v", err)
		}
		var want []byte
		var wantWarn decode.Warnings
		for _, n := range []int{1, 2, 3} {
			var out bytes.Buffer
			events := 0
			o := render.WriteOptions{Formatters: n, Progress: func(k int) { events += k }}
			if err := Write(&out, []render.Input{{Decoded: d, Config: cfg}}, o); err != nil {
				t.Fatal(err)
			}
			if events != g.Records {
				t.Fatalf("%d formatters: progress counted %d events of %d", n, events, g.Records)
			}
			if n == 1 {
				want, wantWarn = out.Bytes(), d.Warnings
				continue
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("%d formatters: trace differs from the serial one: %s", n, golden.FirstDiff(out.Bytes(), want))
			}
			if d.Warnings != wantWarn {
				t.Fatalf("%d formatters: warnings %+v, serial %+v", n, d.Warnings, wantWarn)
			}
		}
	})
	// Several captures, one at a time or rendered at once, each with its
	// formatters.
	inputs := mediumInputs(t, 2)
	var want []byte
	for _, o := range []render.WriteOptions{{Parallel: 1, Formatters: 1}, {Parallel: 1, Formatters: 2}, {Parallel: 1, Formatters: 4},
		{Parallel: 2, Formatters: 2}, {Parallel: 2, Formatters: 3}, {}} {
		var out bytes.Buffer
		if err := Write(&out, inputs, o); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = out.Bytes()
		} else if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%+v: medium trace differs from the serial one: %s", o, golden.FirstDiff(out.Bytes(), want))
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
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("left %d: got %v", left, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind", n-before)
	}
}
