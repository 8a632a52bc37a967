package render_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineFormat is a format of the pipeline's own, no writer's: a line per
// record, "rank task start end", between a head and a tail that counts
// the inputs.
type lineFormat struct{ parallel bool }

func (lineFormat) Head([]render.Input) []byte { return []byte("head\n") }

func (lineFormat) Tail(inputs []render.Input, _ []flows.Stats) []byte {
	return fmt.Appendf(nil, "tail %d\n", len(inputs))
}

func (f lineFormat) Renderer(_ int, in *render.Input) render.EventRenderer {
	r := &lineRenderer{in: in}
	if f.parallel {
		return parallelLines{r}
	}
	return r
}

type lineRenderer struct{ in *render.Input }

func (r *lineRenderer) Begin(b []byte) []byte { return fmt.Appendf(b, "rank %d\n", r.in.Config.Rank) }

func (r *lineRenderer) Record(b []byte, rec *decode.Record) ([]byte, error) {
	return r.line(b, rec), nil
}

func (r *lineRenderer) line(b []byte, rec *decode.Record) []byte {
	return fmt.Appendf(b, "%d %d %d %d\n", r.in.Config.Rank, rec.TaskID, rec.StartCycle, rec.EndCycle)
}

func (r *lineRenderer) End(b []byte) ([]byte, error) { return append(b, "end\n"...), nil }
func (r *lineRenderer) TimeAnchor() uint64           { return r.in.Decoded.Summary.Anchor }
func (r *lineRenderer) FlowStats() flows.Stats       { return flows.Stats{} }

// parallelLines lets the pipeline format the lines on several goroutines.
type parallelLines struct{ *lineRenderer }

func (p parallelLines) Formatter() func([]byte, *decode.Record) []byte { return p.line }

// TestWriteKeepsInputOrder: whatever the number of captures rendered at
// once and of formatters, the pipeline writes the head, each input's
// records in trace order (as decode.Decoded.Records yields them, read
// here on their own) in input order, and the tail, and reports every
// record to Progress.
func TestWriteKeepsInputOrder(t *testing.T) {
	var inputs []render.Input
	var want bytes.Buffer
	want.WriteString("head\n")
	for i := range 3 {
		spec := benchgen.Spec{Records: 5_000, Unsorted: 2, Seed: uint64(i + 1)}
		buf, err := benchgen.Bytes(spec)
		require.NoError(t, err)
		l, _ := spec.Layout()
		c, err := capture.FromBytes("rank.bin", buf)
		require.NoError(t, err)
		d, err := decode.Decode(c, capture.Request{Capacities: &l.Capacities})
		require.NoError(t, err)
		d.TempDir = t.TempDir()
		rank := uint32(2 - i) // input order, not rank order
		fmt.Fprintf(&want, "rank %d\n", rank)
		require.NoError(t, d.Records(func(r decode.Record) bool {
			fmt.Fprintf(&want, "%d %d %d %d\n", rank, r.TaskID, r.StartCycle, r.EndCycle)
			return true
		}))
		want.WriteString("end\n")
		inputs = append(inputs, render.Input{Decoded: d, Config: render.Config{Rank: rank, FrequencyMHz: 50}})
	}
	want.WriteString("tail 3\n")
	for _, parallel := range []bool{false, true} {
		for _, o := range []render.WriteOptions{{Parallel: 1, Formatters: 1}, {Parallel: 3, Formatters: 1}, {Parallel: 1, Formatters: 3}, {Parallel: 2, Formatters: 2}} {
			var out bytes.Buffer
			events := 0
			o.Progress = func(n int) { events += n }
			_, err := render.Prepare(inputs, &o)
			require.NoError(t, err)
			require.NoError(t, render.Write(&out, inputs, o, lineFormat{parallel}))
			require.Truef(t, bytes.Equal(out.Bytes(), want.Bytes()), "parallel formatter %v, %+v: %s", parallel, o, golden.Diff(out.Bytes(), want.Bytes()))
			assert.Equalf(t, 15_000, events, "parallel formatter %v, %+v: progress counted", parallel, o)
		}
	}
}
