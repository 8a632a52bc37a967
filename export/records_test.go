package export_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigCapture writes a capture of every slot of 24 cube slots with perSlot
// records each (more than a few row groups), in start order per slot and
// interleaved across slots, with compute, wait and trigger records, many
// tasks and owners. stretch, when not 0, gives the middle record of the
// first slot that many cycles of duration.
func bigCapture(t *testing.T, perSlot uint32, stretch uint64) *decode.Decoded {
	t.Helper()
	b := capturetest.New(abi.MinCubeSlots, perSlot, perSlot)
	descs := []uint32{abi.RuntimeStageWaitDependency, abi.TaskTypeBase + uint32(abi.TaskTypeMatMul),
		abi.TaskTypeBase + uint32(abi.TaskTypeAddCustom), abi.RuntimeStageTriggerEvent, abi.GraphStageBase + 2}
	for i := range b.Layout.NumSlots() {
		s := b.Layout.Slot(i)
		entry := uint64(1000 + 3*i)
		b.Enter(s.CoreType, s.BlockID, entry)
		at := entry
		for k := range perSlot {
			dur := uint64(5 + (k*7+uint32(i))%40)
			if stretch != 0 && i == 0 && k == perSlot/2 {
				dur = stretch
			}
			task := k/3 + uint32(i)*perSlot
			b.Write(s.CoreType, s.BlockID, abi.ProfileRecord{StartCycle: at, EndCycle: at + dur, DescID: descs[(k+uint32(i))%uint32(len(descs))],
				TaskID: task, StageTaskIndex: k % 97, OwnerID: uint32(i) % 5})
			at += 50
		}
	}
	path := filepath.Join(t.TempDir(), "big.bin")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	c, err := capture.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	return d
}

// exportOne exports d as rank 0 into a new folder and returns the records
// file's path.
func exportOne(t *testing.T, d *decode.Decoded, o analyze.Options) (string, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	require.NoError(t, err)
	if _, err := w.Add(d, o); err != nil {
		w.Abort()
		return "", err
	}
	require.NoError(t, w.Commit())
	return filepath.Join(dir, "records/rank=0/part-00000.parquet"), nil
}

// TestRowGroupsInOrder: a capture of several row groups is written whole
// and in trace order, every row group but the last full, and the file is
// the same bytes whatever the number of CPUs encoding it (one: the walk
// encodes alone; two and four: encoders finish out of order).
func TestRowGroupsInOrder(t *testing.T) {
	d := bigCapture(t, 1024, 0)
	var want []decode.Record
	require.NoError(t, d.Records(func(r decode.Record) bool { want = append(want, r); return true }))
	require.GreaterOrEqual(t, len(want), 4*export.RowGroupRows, "the capture")
	o := analyze.Options{FrequencyMHz: 1000}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first []byte
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		path, err := exportOne(t, d, o)
		require.NoError(t, err)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if first != nil {
			assert.Equalf(t, []byte(first), []byte(b), "with %d CPUs the records file differs from the one written on 1", procs)
			continue
		}
		first = b
		rows, pf := readRows[Record](t, path, recordReadOptions(t)...)
		require.Len(t, rows, len(want))
		l := analyze.NewLabeler(nil, nil)
		for i, r := range rows {
			w := want[i]
			require.Equalf(t, w.ProfileRecord, r.ProfileRecord, "row %d is %+v, the record %+v", i, r, w)
			require.Equalf(t, w.CoreType.String(), r.CoreType, "row %d is %+v, the record %+v", i, r, w)
			require.Equalf(t, w.BlockID, r.BlockID, "row %d is %+v, the record %+v", i, r, w)
			require.Equalf(t, int64(w.StartCycle-d.Summary.Anchor), r.StartNs, "row %d is %+v, the record %+v", i, r, w)
			require.Equalf(t, l.Kind(&w.ProfileRecord), r.Kind, "row %d is %+v, the record %+v", i, r, w)
			require.Nilf(t, r.InvocationID, "row %d of a capture outside a window has invocation columns", i)
			require.Nilf(t, r.Step, "row %d of a capture outside a window has invocation columns", i)
			require.Emptyf(t, r.Direction, "row %d of a capture outside a window has invocation columns", i)
		}
		groups := pf.RowGroups()
		for i, g := range groups {
			n := g.NumRows()
			assert.Falsef(t, i < len(groups)-1 && n != export.RowGroupRows, "row group %d of %d", i, len(groups))
			assert.NotEqualf(t, int64(0), n, "row group %d of %d", i, len(groups))
			assert.LessOrEqualf(t, n, int64(export.RowGroupRows), "row group %d of %d", i, len(groups))
		}
		assert.Len(t, groups, (len(want)+export.RowGroupRows-1)/export.RowGroupRows)
	}
}

// TestAnalysisOfTheWalk: the analysis Add returns, made of the records
// its walk hands on (several batches of them), is Analyze's of the capture
// with one exact duration;
// a capture its analysis refuses fails the export, which returns.
func TestAnalysisOfTheWalk(t *testing.T) {
	d := bigCapture(t, 1024, 0)
	o := analyze.Options{FrequencyMHz: 1000}
	w, err := export.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer w.Abort()
	got, err := w.Add(d, o)
	require.NoError(t, err)
	exact := o
	exact.ExactLimit = 1 // as Add's
	want, err := analyze.Analyze(d, exact)
	require.NoError(t, err)
	require.GreaterOrEqual(t, got.Records, uint64(3*4096))
	assert.Equal(t, want, got, "Add's analysis differs from Analyze's")
	o.FrequencyMHz = math.NaN()
	_, err = w.Add(d, o)
	assert.ErrorContains(t, err, "frequency", "with a NaN frequency")
}

// TestRecordErrorStopsTheWriter: a record whose end is past int64 ns from
// the anchor, in the middle of the walk (row groups queued and being
// encoded), fails the export with the record named, leaves no goroutine
// behind and nothing in place.
func TestRecordErrorStopsTheWriter(t *testing.T) {
	d := bigCapture(t, 1024, 1e16) // 1e19 ns at 1 MHz
	before := runtime.NumGoroutine()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		_, err := exportOne(t, d, analyze.Options{FrequencyMHz: 1})
		require.ErrorContainsf(t, err, "AIC/0", "%d CPUs", procs)
		assert.Containsf(t, err.Error(), "2^63 ns from the anchor", "%d CPUs", procs)
	}
	// The encoders have returned once Add has; give the runtime a moment
	// to count them out.
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Fail(t, fmt.Sprintf("%d goroutines before the exports, %d after", before, runtime.NumGoroutine()))
}

// TestRecordColumnsFollowSchema: the records table has a column for every
// field of the schema's record, under its schema name and of its width and
// signedness, and each row holds the record's fields as decoded, whatever
// fields the schema has.
func TestRecordColumnsFollowSchema(t *testing.T) {
	d, o := source(t, 0, nil)
	path, err := exportOne(t, d, o)
	require.NoError(t, err)
	rows, pf := readRows[Record](t, path, recordReadOptions(t)...)
	byName := map[string]parquet.Field{}
	for _, f := range pf.Schema().Fields() {
		byName[f.Name()] = f
	}
	n := 0
	for _, f := range abi.ProfileRecordFields() {
		if f.Type == "pad" {
			continue
		}
		n++
		c, ok := byName[f.Name]
		if !assert.Truef(t, ok, "no column %s for the record field", f.Name) {
			continue
		}
		it, _ := c.Type().LogicalType().Value.(*format.IntType)
		require.NotNilf(t, it, "column %s is %v, the field a %s", f.Name, c, f.Type)
		require.Falsef(t, it.IsSigned, "column %s is %v, the field a %s", f.Name, c, f.Type)
		require.Equalf(t, 8*f.Size, int(it.BitWidth), "column %s is %v, the field a %s", f.Name, c, f.Type)
		assert.Truef(t, c.Required(), "column %s is %v, the field a %s", f.Name, c, f.Type)
	}
	require.NotEqual(t, 0, n, "the schema's record has no fields")
	var want []decode.Record
	require.NoError(t, d.Records(func(r decode.Record) bool { want = append(want, r); return true }))
	for i := range rows {
		require.Equalf(t, want[i].ProfileRecord, rows[i].ProfileRecord, "row %d holds", i)
	}
}
