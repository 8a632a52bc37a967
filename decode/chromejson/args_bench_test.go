package chromejson

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
)

// BenchmarkAppendEvent renders the events of the naming capture over and
// over: the per-record cost of the trace writer without merging or I/O
// (run it under valgrind --tool=cachegrind to count instructions).
func BenchmarkAppendEvent(b *testing.B) {
	c, names := namingCapture()
	d, err := decodetest.Decode("naming.bin", c.Bytes(), capture.Request{Capacities: &abi.Capacities{AIC: 16, AIV: 16}})
	require.NoError(b, err)
	cfg := decodetest.DefaultConfig()
	cfg.Names = names
	in := &render.Input{Decoded: d, Config: cfg}
	var recs []decode.Record
	require.NoError(b, d.Records(func(r decode.Record) bool { recs = append(recs, r); return true }))
	r := newRenderer(0, in, placementOf(b, in))
	buf := make([]byte, 0, 1<<16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for j := range recs {
			buf = r.appendEvent(buf, &recs[j])
		}
	}
}
