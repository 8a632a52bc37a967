package chromejson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/benchgen"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A mid-sized capture: many chunks of trace, several slots out of order
// (so the spill file is used).
func mediumCapture(t *testing.T, seed uint64) ([]byte, capture.Request) {
	t.Helper()
	spec := benchgen.Spec{Records: 8_000, Unsorted: 3, Seed: seed}
	buf, err := benchgen.Bytes(spec)
	require.NoError(t, err)
	l, _ := spec.Layout()
	return buf, capture.Request{Capacities: &l.Capacities}
}

func mediumInputs(t *testing.T, n int) []render.Input {
	t.Helper()
	inputs := make([]render.Input, n)
	for i := range inputs {
		buf, o := mediumCapture(t, uint64(i+1))
		d, err := decodetest.Decode("rank.bin", buf, o)
		require.NoError(t, err)
		d.TempDir = t.TempDir()
		cfg := decodetest.DefaultConfig()
		cfg.Rank, cfg.DeviceID = uint32(i), uint32(i)
		inputs[i] = render.Input{Decoded: d, Config: cfg}
	}
	return inputs
}

// Several captures: the same bytes however many are rendered at once, and
// each capture's events are the ones it would have alone.
func TestWriteParallel(t *testing.T) {
	inputs := mediumInputs(t, 3)
	var want []byte
	for _, par := range []int{1, 2, 3, 8} {
		var out bytes.Buffer
		events := 0
		require.NoError(t, Write(&out, inputs, render.WriteOptions{Parallel: par, Progress: func(n int) { events += n }}))
		assert.Equalf(t, 3*8_000, events, "parallel %d: progress counted", par)
		if want == nil {
			want = out.Bytes()
			continue
		}
		require.Truef(t, bytes.Equal(out.Bytes(), want), "parallel %d: trace differs from parallel 1: %s", par, golden.Diff(out.Bytes(), want))
	}
	require.NoError(t, checkPerfetto(want))
	f, err := decodetest.ParseTrace(want)
	require.NoError(t, err)
	ranks := f.MegaKernelCycleTrace["ranks"].([]any)
	require.Len(t, ranks, 3)
	// Rank 1's events, alone, are the same lines.
	alone, err := traceOf(inputs[1])
	require.NoError(t, err)
	lines := strings.Split(string(alone), "\n")
	end := slices.Index(lines, "],")
	require.GreaterOrEqual(t, end, 0, "rank 1's events differ from its trace alone")
	assert.Contains(t, string(want), ",\n"+strings.Join(lines[1:end], "\n")+",\n", "rank 1's events differ from its trace alone")
	// Sorted slots were spilled and the spill files removed.
	for _, in := range inputs {
		entries, _ := os.ReadDir(in.Decoded.TempDir)
		assert.Emptyf(t, entries, "spill files left in %s", in.Decoded.TempDir)
	}
}

func TestWriteRefuses(t *testing.T) {
	inputs := mediumInputs(t, 2)
	assert.Error(t, Write(io.Discard, nil, render.WriteOptions{}), "no inputs: no error")
	dup := []render.Input{inputs[0], inputs[1]}
	dup[1].Config.Rank = dup[0].Config.Rank
	err := Write(io.Discard, dup, render.WriteOptions{})
	assert.ErrorContainsf(t, err, "both have rank 0", "duplicate ranks: %v", err)
	for _, mhz := range []float64{0, -1, inf(), nan()} {
		bad := []render.Input{inputs[0]}
		bad[0].Config.FrequencyMHz = mhz
		assert.Errorf(t, Write(io.Discard, bad, render.WriteOptions{}), "%v MHz: no error", mhz)
	}
}

type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		return 0, errors.New("disk full")
	}
	w.left -= len(p)
	return len(p), nil
}

// A failing writer stops every renderer: no goroutine is left behind.
func TestWriteWriterFails(t *testing.T) {
	inputs := mediumInputs(t, 4)
	before := runtime.NumGoroutine()
	for _, left := range []int{0, 10, 300 << 10, 2 << 20} {
		err := Write(&failingWriter{left: left}, inputs, render.WriteOptions{Parallel: 2})
		assert.ErrorContainsf(t, err, "disk full", "left %d: got %v", left, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := runtime.NumGoroutine()
	assert.LessOrEqualf(t, n, before, "%d goroutines left behind", n-before)
}

// flakyReader fails every read once armed.
type flakyReader struct {
	r     io.ReaderAt
	armed atomic.Bool
}

func (f *flakyReader) ReadAt(p []byte, off int64) (int, error) {
	if f.armed.Load() {
		return 0, errors.New("device unplugged")
	}
	return f.r.ReadAt(p, off)
}

// A capture read through io.ReaderAt (as a file is) decodes to the same
// trace as in memory; a read failing after the first pass is an error.
func TestReaderAtCapture(t *testing.T) {
	buf, o := mediumCapture(t, 7)
	mem, err := decodetest.Decode("x.bin", buf, o)
	require.NoError(t, err)
	fr := &flakyReader{r: bytes.NewReader(buf)}
	c, err := capture.FromReaderAt("x.bin", fr, int64(len(buf)))
	require.NoError(t, err)
	file, err := decode.Decode(c, o)
	require.NoError(t, err)
	cfg := decodetest.DefaultConfig()
	a, err := traceOf(render.Input{Decoded: mem, Config: cfg})
	require.NoError(t, err)
	b, err := traceOf(render.Input{Decoded: file, Config: cfg})
	require.NoError(t, err)
	require.Truef(t, bytes.Equal(a, b), "ReaderAt trace differs: %s", golden.Diff(b, a))
	fr.armed.Store(true)
	_, err = traceOf(render.Input{Decoded: file, Config: cfg})
	assert.ErrorContains(t, err, "device unplugged", "failing reads")
}

// An .npy capture decodes to the trace of its raw payload.
func TestNPYSameTrace(t *testing.T) {
	b, names := namingCapture()
	o := capture.Request{Capacities: &b.Layout.Capacities}
	cfg := decodetest.DefaultConfig()
	cfg.Names = names
	raw, err := decodetest.Decode("c", b.Bytes(), o)
	require.NoError(t, err)
	npy, err := decodetest.Decode("c", capturetest.NPY(b.Bytes()), o)
	require.NoError(t, err)
	x, _ := traceOf(render.Input{Decoded: raw, Config: cfg})
	y, _ := traceOf(render.Input{Decoded: npy, Config: cfg})
	// How the layout was found names file offsets, 128 bytes apart (the
	// .npy header): the cube slot count comes from the second region's
	// first header.
	at := b.HeaderOffset(abi.Regions()[1].CoreType, 0, 0)
	rawAt, npyAt := fmt.Sprintf("header at @%#x", at), fmt.Sprintf("header at @%#x", at+128)
	require.Containsf(t, string(y), string([]byte(npyAt)), ".npy trace does not say the layout was found %s", npyAt)
	y = bytes.ReplaceAll(y, []byte(npyAt), []byte(rawAt))
	require.Truef(t, bytes.Equal(x, y), ".npy trace differs: %s", golden.Diff(y, x))
}

// A task's stage is the names file's, with its JSON escapes, one entry
// per distinct name.
func TestTaskStages(t *testing.T) {
	escaped := map[string]string{"A": "A", "": "", `B"\`: `B\"\\`, "Z\n": `Z\n`}
	for name, m := range map[string]map[uint32]string{
		"dense":  {0: "A", 1: "", 2: "A", 5: `B"\`, 7: "A"},
		"sparse": {0: "A", 1: "", 7: "A", 0xFFFFFFFF: "Z\n"},
		"none":   nil,
	} {
		tn := kernelnames.TaskNamesOf(m)
		ts := newTaskStages(&tn)
		distinct := map[string]bool{}
		for _, stage := range m {
			distinct[stage] = true
		}
		assert.Lenf(t, ts.stages, len(distinct), "%s", name)
		for _, id := range []uint32{0, 1, 2, 5, 6, 7, 64, 0xFFFFFFFE, 0xFFFFFFFF} {
			wantName, wantOK := m[id]
			st := ts.stage(id)
			require.Equalf(t, wantOK, (st != nil), "%s: stage(%d) = %+v; want %q", name, id, st, wantName)
			assert.Falsef(t, st != nil && (st.name != wantName || st.body != escaped[wantName]), "%s: stage(%d) = %+v; want %q", name, id, st, wantName)
		}
	}
}
