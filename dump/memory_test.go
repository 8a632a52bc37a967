package dump_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/dump"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingsRecord is record i of findingsCapture's AIV/0: in start
// order, every 7th overlapping the next and every 11th with an unknown
// desc_id.
func findingsRecord(i int) abi.ProfileRecord {
	start := 1000 + uint64(i)*12
	r := abi.ProfileRecord{StartCycle: start, EndCycle: start + 10, DescID: abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), TaskID: uint32(i)}
	if i%7 == 0 {
		r.EndCycle = start + 15
	}
	if i%11 == 0 {
		r.DescID = 0x99
	}
	return r
}

// findingsEntry is AIV/0's entry_cycle: after every record.
const findingsEntry = 1 << 40

// findingsCapture has n records in AIV/0 (findingsRecord), all before the
// core's entry: about 1.2 findings a record, in record order. AIC/2 has
// a few records and a nonzero padding byte; AIV/3 dropped records.
func findingsCapture(n int) []byte {
	c, _ := abi.RoundUpCapacity(uint64(n))
	b := capturetest.New(abi.MinCubeSlots, 16, c)
	b.Enter(abi.CoreTypeAIV, 0, findingsEntry)
	for i := range n {
		b.Write(abi.CoreTypeAIV, 0, findingsRecord(i))
	}
	b.Enter(abi.CoreTypeAIC, 2, 500).Span(abi.CoreTypeAIC, 2, 400, 600, 0x98, 1).Span(abi.CoreTypeAIC, 2, 550, 700, 0x98, 2)
	b.Buf[b.HeaderOffset(abi.CoreTypeAIC, 2, abi.CoreHeaderPaddingOffset+3)] = 0x5a
	b.Enter(abi.CoreTypeAIV, 3, 100).Span(abi.CoreTypeAIV, 3, 100, 200, 0x97, 1)
	b.SetHeader32(abi.CoreTypeAIV, 3, abi.CoreHeaderDroppedCountOffset, 9)
	return b.Bytes()
}

// sparseFindingsFile writes findingsCapture's AIV/0 alone, n records, to a
// sparse file (the other slots are holes: all zero, unused).
func sparseFindingsFile(t *testing.T, n int) string {
	c, err := abi.RoundUpCapacity(uint64(n))
	require.NoError(t, err)
	l, err := abi.NewLayout(abi.MinCubeSlots, abi.Capacities{AIC: 16, AIV: c})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "findings.bin")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	h := abi.CoreHeader{EntryCycle: findingsEntry, RecordCount: uint32(n), CoreType: abi.CoreTypeAIV, RecordCapacity: c}
	b := h.Append(nil)
	for i := range n {
		r := findingsRecord(i)
		b = r.Append(b)
	}
	_, err = f.WriteAt(b, int64(l.SlotOffset(abi.CoreTypeAIV, 0)))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(int64(l.Size())))
	require.NoError(t, f.Close())
	return path
}

// TestDumpStreamsLargeSlots: a slot whose findings are shown as validate
// finds them (larger than bufferedRecords) is shown exactly as when they
// are gathered and sorted first.
func TestDumpStreamsLargeSlots(t *testing.T) {
	buf := findingsCapture(3000)
	for _, o := range []dump.Options{{Records: -1}, {Records: 100}, {Records: 0}, {Slot: "AIV/0", Records: 2999}} {
		t.Run(fmt.Sprint(o.Slot, o.Records), func(t *testing.T) {
			gathered, err := run(t, "capture.bin", buf, o)
			require.NoError(t, err)
			old := dump.SetBufferedRecords(0)
			defer dump.SetBufferedRecords(old)
			streamed, err := run(t, "capture.bin", buf, o)
			require.NoError(t, err)
			assert.Equal(t, gathered, streamed, "streamed")
			if o.Records == -1 {
				// Every record's findings are under its fields.
				// AIV/0's, and one of AIC/2's.
				assert.Equal(t, 3000/7+1+1, strings.Count(gathered, "^ warning overlap:"), "strings.Count(gathered, \"^ warning overlap:\")")
				assert.Equal(t, 3000+1, strings.Count(gathered, "^ warning before-entry:"), "strings.Count(gathered, \"^ warning before-entry:\")")
				assert.Contains(t, gathered, "^ warning nonzero-padding:", "gathered")
				assert.Contains(t, gathered, "^ warning dropped-records:", "gathered")
				assert.Contains(t, gathered, "  record 2999 @", "gathered")
			}
		})
	}
}

// heapWatch is an io.Writer that discards what it is given and, every
// few MiB and at the first write, notes the live heap after a collection.
type heapWatch struct {
	n, next int
	peak    uint64
	limit   uint64
}

var errHeap = errors.New("live heap over the limit")

func (w *heapWatch) Write(p []byte) (int, error) {
	if w.n >= w.next {
		w.next = w.n + 16<<20
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.peak = max(w.peak, m.HeapAlloc)
		if m.HeapAlloc > w.limit {
			return 0, errHeap
		}
	}
	w.n += len(p)
	return len(p), nil
}

// TestDumpMemoryDoesNotGrowWithFindings: dumping every record of a slot
// of 400k records and 480k findings (read from a file) keeps the live heap within the
// capture's bytes and a few MiB (keeping every finding took over 100 MiB,
// and showing them took time quadratic in the slot's findings).
func TestDumpMemoryDoesNotGrowWithFindings(t *testing.T) {
	short.Skip(t, "writes ~300 MB of dump")
	const n = 400_000
	c, err := capture.Open(sparseFindingsFile(t, n))
	require.NoError(t, err)
	defer c.Close()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w := &heapWatch{limit: m.HeapAlloc + 8<<20}
	start := m.HeapAlloc
	require.NoErrorf(t, dump.Write(w, c, dump.Options{Records: -1}), "peak live heap %d MiB over %d MiB", w.peak>>20, m.HeapAlloc>>20)
	assert.Greater(t, w.n, n*400, "every record is shown: w.n")
	t.Logf("live heap %.1f MiB at the start, at most %.1f MiB while %d MiB were written",
		float64(start)/(1<<20), float64(w.peak)/(1<<20), w.n>>20)
}
