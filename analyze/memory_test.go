package analyze_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainSchedule is a dependency chain of n tasks over 48 workers: task k
// waits on task k-1's event, cube and vector tasks in turn (the schedule
// of scripts/rss-scale.sh's plan row).
// chainCapture simulates chainSchedule(n) and decodes it, with its
// dependencies, as analyze --plan does.
func chainCapture(t *testing.T, n int) (*decode.Decoded, *flows.Dependencies) {
	t.Helper()
	s := chainSchedule(t, n)
	c, err := synth.Run(s, synth.Options{})
	require.NoError(t, err)
	cp, err := capture.FromBytes("chain.bin", c.Buffer)
	require.NoError(t, err)
	d, err := decode.Decode(cp, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	require.NoError(t, err)
	deps, err := flows.NewDependencies(d, s)
	require.NoError(t, err)
	return d, deps
}

func chainSchedule(t *testing.T, n int) *plan.Schedule {
	var b bytes.Buffer
	b.WriteString(`{"num_workers": 48, "tasks": [`)
	for k := range n {
		if k > 0 {
			b.WriteString(", ")
		}
		typ := "MatMul"
		if k%2 == 1 {
			typ = "AddCustom"
		}
		fmt.Fprintf(&b, `{"task_type": %q, "trigger_event": %d`, typ, k)
		if k > 0 {
			fmt.Fprintf(&b, `, "dependent_event": %d`, k-1)
		}
		b.WriteString("}")
	}
	for i, list := range []string{"cube", "vector"} {
		fmt.Fprintf(&b, `], "%s_task_indices": [`, list)
		for k := i; k < n; k += 2 {
			if k > 1 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, k)
		}
	}
	b.WriteString("]}\n")
	s, err := plan.Parse("chain.json", b.Bytes())
	require.NoError(t, err)
	return s
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapWatch is an io.Writer that discards what it is given and, every
// MiB and at the first write, fails when the live heap is over limit.
type heapWatch struct {
	n, next int
	peak    uint64
	limit   uint64
}

var errHeap = errors.New("live heap over the limit")

func (w *heapWatch) Write(p []byte) (int, error) {
	if w.n >= w.next {
		w.next = w.n + 1<<20
		h := liveHeap()
		w.peak = max(w.peak, h)
		if h > w.limit {
			return 0, errHeap
		}
	}
	w.n += len(p)
	return len(p), nil
}

// TestPathMemory: the critical path of a 60k-task chain (180k records,
// 300k segments: 25 times the largest path the other tests walk, report's
// 12k) holds at most 24 bytes a segment once analyzed (a []Segment took
// 106),
// and writing it as JSON or text (ten rows a table) adds at most a few MiB to the live heap:
// segments are built one at a time.
func TestPathMemory(t *testing.T) {
	short.Skip(t, "simulates a 60k-task chain")
	const tasks = 60_000
	d, deps := chainCapture(t, tasks)
	before := liveHeap()
	res, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps})
	require.NoError(t, err)
	after := liveHeap()
	runtime.KeepAlive(d)
	runtime.KeepAlive(deps)
	held := after - min(before, after)
	n := res.CriticalPath.Segments.Len()
	require.GreaterOrEqual(t, n, 2*tasks)
	assert.LessOrEqualf(t, held, uint64(24*n+1<<20), "the analysis holds bytes (%.1f a segment), want at most", float64(held)/float64(n))
	t.Logf("%d segments: the analysis holds %.1f MiB, %.1f bytes a segment", n, float64(held)/(1<<20), float64(held)/float64(n))
	rep := analyze.NewReport([]*analyze.Rank{res})
	start := liveHeap()
	for i, write := range []func(io.Writer) error{rep.WriteJSON, func(w io.Writer) error { return rep.WriteText(w, 10) }} {
		w := &heapWatch{limit: start + 8<<20}
		require.NoErrorf(t, write(w), "peak live heap %.1f MiB, %.1f at the start", float64(w.peak)/(1<<20), float64(start)/(1<<20))
		runtime.KeepAlive(rep)
		if i == 0 {
			assert.GreaterOrEqual(t, w.n, n*200, "bytes of JSON for %d segments", n)
		}
	}
}
