package render

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/golden"
)

// A mid-sized capture: many chunks of trace, several slots out of order
// (so the spill file is used).
func mediumCapture(t *testing.T, seed uint64) ([]byte, capture.Request) {
	t.Helper()
	spec := benchgen.Spec{Records: 8_000, Unsorted: 3, Seed: seed}
	buf, err := benchgen.Bytes(spec)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := spec.Layout()
	return buf, capture.Request{Capacities: &l.Capacities}
}

func mediumInputs(t *testing.T, n int) []Input {
	t.Helper()
	inputs := make([]Input, n)
	for i := range inputs {
		buf, o := mediumCapture(t, uint64(i+1))
		d, err := mustDecode("rank.bin", buf, o)
		if err != nil {
			t.Fatal(err)
		}
		d.TempDir = t.TempDir()
		cfg := defaultConfig()
		cfg.Rank, cfg.DeviceID = uint32(i), uint32(i)
		inputs[i] = Input{d, cfg}
	}
	return inputs
}

// Several captures: the same bytes however many are rendered at once, and
// each capture's events are the ones it would have alone.
func TestWriteTraceParallel(t *testing.T) {
	inputs := mediumInputs(t, 3)
	var want []byte
	for _, par := range []int{1, 2, 3, 8} {
		var out bytes.Buffer
		events := 0
		if err := WriteTrace(&out, inputs, WriteOptions{Parallel: par, Progress: func(n int) { events += n }}); err != nil {
			t.Fatal(err)
		}
		if events != 3*8_000 { // X events; the bar counts records
			t.Errorf("parallel %d: progress counted %d events", par, events)
		}
		if want == nil {
			want = out.Bytes()
			continue
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("parallel %d: trace differs from parallel 1: %s", par, golden.FirstDiff(out.Bytes(), want))
		}
	}
	if err := checkPerfetto(want); err != nil {
		t.Fatal(err)
	}
	f, err := parseTrace(want)
	if err != nil {
		t.Fatal(err)
	}
	if ranks := f.MegaKernelCycleTrace["ranks"].([]any); len(ranks) != 3 {
		t.Fatalf("%d ranks in megaKernelCycleTrace", len(ranks))
	}
	// Rank 1's events, alone, are the same lines.
	alone, err := traceOf(inputs[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(alone), "\n")
	end := slices.Index(lines, "],")
	if end < 0 || !strings.Contains(string(want), ",\n"+strings.Join(lines[1:end], "\n")+",\n") {
		t.Errorf("rank 1's events differ from its trace alone")
	}
	// Sorted slots were spilled and the spill files removed.
	for _, in := range inputs {
		if entries, _ := os.ReadDir(in.Decoded.TempDir); len(entries) != 0 {
			t.Errorf("spill files left in %s: %v", in.Decoded.TempDir, entries)
		}
	}
}

func TestWriteTraceRefuses(t *testing.T) {
	inputs := mediumInputs(t, 2)
	if err := WriteTrace(io.Discard, nil, WriteOptions{}); err == nil {
		t.Error("no inputs: no error")
	}
	dup := []Input{inputs[0], inputs[1]}
	dup[1].Config.Rank = dup[0].Config.Rank
	if err := WriteTrace(io.Discard, dup, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "both have rank 0") {
		t.Errorf("duplicate ranks: %v", err)
	}
	for _, mhz := range []float64{0, -1, inf(), nan()} {
		bad := []Input{inputs[0]}
		bad[0].Config.FrequencyMHz = mhz
		if err := WriteTrace(io.Discard, bad, WriteOptions{}); err == nil {
			t.Errorf("%v MHz: no error", mhz)
		}
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
func TestWriteTraceWriterFails(t *testing.T) {
	inputs := mediumInputs(t, 4)
	before := runtime.NumGoroutine()
	for _, left := range []int{0, 10, 300 << 10, 2 << 20} {
		err := WriteTrace(&failingWriter{left: left}, inputs, WriteOptions{Parallel: 2})
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
	mem, err := mustDecode("x.bin", buf, o)
	if err != nil {
		t.Fatal(err)
	}
	fr := &flakyReader{r: bytes.NewReader(buf)}
	c, err := capture.FromReaderAt("x.bin", fr, int64(len(buf)))
	if err != nil {
		t.Fatal(err)
	}
	file, err := decode.Decode(c, o)
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultConfig()
	a, err := traceOf(Input{mem, cfg})
	if err != nil {
		t.Fatal(err)
	}
	b, err := traceOf(Input{file, cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("ReaderAt trace differs: %s", golden.FirstDiff(b, a))
	}
	fr.armed.Store(true)
	if _, err := traceOf(Input{file, cfg}); err == nil || !strings.Contains(err.Error(), "device unplugged") {
		t.Errorf("failing reads: got %v", err)
	}
}

// An .npy capture decodes to the trace of its raw payload.
func TestNPYSameTrace(t *testing.T) {
	b, names := namingCapture()
	o := capture.Request{Capacities: &b.Layout.Capacities}
	cfg := defaultConfig()
	cfg.Names = names
	raw, err := mustDecode("c", b.Bytes(), o)
	if err != nil {
		t.Fatal(err)
	}
	npy, err := mustDecode("c", capturetest.NPY(b.Bytes()), o)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := traceOf(Input{raw, cfg})
	y, _ := traceOf(Input{npy, cfg})
	// How the layout was found names file offsets, 128 bytes apart (the
	// .npy header): the cube slot count comes from the second region's
	// first header.
	at := b.HeaderOffset(abi.Regions()[1].CoreType, 0, 0)
	rawAt, npyAt := fmt.Sprintf("header at @%#x", at), fmt.Sprintf("header at @%#x", at+128)
	if !bytes.Contains(y, []byte(npyAt)) {
		t.Fatalf(".npy trace does not say the layout was found %s", npyAt)
	}
	y = bytes.ReplaceAll(y, []byte(npyAt), []byte(rawAt))
	if !bytes.Equal(x, y) {
		t.Fatalf(".npy trace differs: %s", golden.FirstDiff(y, x))
	}
}

func TestOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(path string, data string, commit bool) error {
		o, err := CreateOutput(path, nil)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(o, data); err != nil {
			return err
		}
		if !commit {
			o.Abort()
			return nil
		}
		return o.Commit()
	}
	plain := filepath.Join(dir, "t.json")
	if err := write(plain, "{}", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		t.Errorf("t.json holds %q", got)
	}
	// The permissions os.Create gives a new file (0666 less the umask).
	ref := filepath.Join(t.TempDir(), "ref")
	if f, err := os.Create(ref); err == nil {
		f.Close()
	}
	got, err1 := os.Stat(plain)
	want, err2 := os.Stat(ref)
	if err1 != nil || err2 != nil || got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("t.json mode: %v, %v; want that of os.Create: %v, %v", got, err1, want, err2)
	}
	// An aborted write leaves the old trace and no temporary file.
	if err := write(plain, "partial", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(plain); string(got) != "{}" {
		t.Errorf("aborted write changed t.json to %q", got)
	}
	aborted := filepath.Join(dir, "new.json")
	if err := write(aborted, "partial", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(aborted); !os.IsNotExist(err) {
		t.Errorf("aborted new.json exists: %v", err)
	}
	gz := filepath.Join(dir, "t.json.gz")
	if err := write(gz, `{"traceEvents":[]}`, true); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(gz)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); string(got) != `{"traceEvents":[]}` {
		t.Errorf("gunzipped %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left in the output directory: %v", entries)
	}
	// Not a regular file: written in place, never replaced.
	if err := write(os.DevNull, "{}", true); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v %v", os.DevNull, st.Mode(), err)
	}
	var stdout bytes.Buffer
	o, err := CreateOutput("-", &stdout)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "{}")
	if err := o.Commit(); err != nil || stdout.String() != "{}" {
		t.Errorf("stdout: %q, %v", stdout.String(), err)
	}
	if _, err := CreateOutput(filepath.Join(dir, "missing", "t.json"), nil); err == nil {
		t.Error("output in a missing directory: no error")
	}
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
		if len(ts.stages) != len(distinct) {
			t.Errorf("%s: %d stages for %d distinct names", name, len(ts.stages), len(distinct))
		}
		for _, id := range []uint32{0, 1, 2, 5, 6, 7, 64, 0xFFFFFFFE, 0xFFFFFFFF} {
			wantName, wantOK := m[id]
			st := ts.stage(id)
			if (st != nil) != wantOK || st != nil && (st.name != wantName || st.body != escaped[wantName]) {
				t.Errorf("%s: stage(%d) = %+v; want %q, %v", name, id, st, wantName, wantOK)
			}
		}
	}
}
