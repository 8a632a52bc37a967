package export_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// source decodes the shipped example, to be analyzed as rank r.
func source(t *testing.T, r uint32, inv *analyze.Invocation) (*decode.Decoded, analyze.Options) {
	t.Helper()
	c, err := capture.Open("../examples/moe_layer.bin")
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	names, err := kernelnames.Load("../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	return d, analyze.Options{Rank: r, FrequencyMHz: 50, Names: names, Invocation: inv}
}

func readRows[T any](t *testing.T, path string, opts ...parquet.ReaderOption) ([]T, *parquet.File) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	require.NoError(t, err)
	rows, err := parquet.Read[T](f, st.Size(), opts...)
	require.NoError(t, err)
	return rows, pf
}

// TestRecordsAreTheCapture: the records table holds every record of the
// capture in trace order, each field as decoded, its time in ns from the
// anchor (20 ns a cycle at 50 MHz), its name as decode names it; every file
// says where it came from in its metadata.
func TestRecordsAreTheCapture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	require.NoError(t, err)
	step := int64(7)
	d, o := source(t, 3, &analyze.Invocation{ID: 2, Step: &step})
	a, err := w.Add(d, o)
	require.NoError(t, err)
	// Add's analysis keeps one exact duration (the tables hold no
	// percentiles).
	exact := o
	exact.ExactLimit = 1
	analyzed, err := analyze.Analyze(d, exact)
	require.NoError(t, err, "Analyze")
	require.Equal(t, analyzed, a, "Add's analysis differs from Analyze's")
	require.NoError(t, w.Commit())
	rows, pf := readRows[Record](t, filepath.Join(dir, "records/rank=3/part-00000.parquet"), recordReadOptions(t)...)
	var want []decode.Record
	require.NoError(t, d.Records(func(r decode.Record) bool { want = append(want, r); return true }))
	require.Len(t, rows, len(want))
	require.Len(t, rows, 2974)
	anchor := int64(d.Summary.Anchor)
	for i, r := range rows {
		d := want[i]
		require.Equalf(t, d.CoreType.String(), r.CoreType, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.BlockID, r.BlockID, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.StartCycle, r.StartCycle, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.EndCycle, r.EndCycle, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.DescID, r.DescID, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.TaskID, r.TaskID, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.StageTaskIndex, r.StageTaskIndex, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, d.OwnerID, r.OwnerID, "row %d is %+v, the record %+v", i, r, d)
		require.Equalf(t, (int64(d.StartCycle)-anchor)*20, r.StartNs, "row %d: ns.., cycles %d..%d from anchor %d", i, d.StartCycle, d.EndCycle, anchor)
		require.Equalf(t, (int64(d.EndCycle)-anchor)*20, r.EndNs, "row %d: ns.., cycles %d..%d from anchor %d", i, d.StartCycle, d.EndCycle, anchor)
		require.Equalf(t, o.Names.EventName(&d.ProfileRecord, false, ""), r.Name, "row %d named", i)
		require.NotNilf(t, r.InvocationID, "row %d: invocation columns %v %v", i, r.InvocationID, r.Step)
		require.Equalf(t, int64(2), *r.InvocationID, "row %d: invocation columns %v %v", i, r.InvocationID, r.Step)
		require.NotNilf(t, r.Step, "row %d: invocation columns %v %v", i, r.InvocationID, r.Step)
		require.Equalf(t, int64(7), *r.Step, "row %d: invocation columns %v %v", i, r.InvocationID, r.Step)
		require.Emptyf(t, r.Direction, "row %d: invocation columns %v %v", i, r.InvocationID, r.Step)
		require.Equalf(t, (r.Kind == analyze.KindCompute), (r.TaskType != ""), "row %d (%s) has task type %v", i, r.Kind, r.TaskType)
	}
	for key, want := range map[string]string{"cycleabi.rank": "3", "cycleabi.abi_fingerprint": abi.FingerprintHex,
		"cycleabi.frequency_mhz": "50", "cycleabi.layout": d.Layout.Layout.String()} {
		got, _ := pf.Lookup(key)
		assert.Equalf(t, want, got, "metadata %s", key)
	}
	ranks, _ := readRows[Rank](t, filepath.Join(dir, "ranks/rank=3/part-00000.parquet"))
	require.Len(t, ranks, 1, "ranks row")
	require.Equal(t, a.Records, ranks[0].Records, "ranks row")
	require.Equal(t, uint64(10), ranks[0].Dropped, "ranks row")
	require.Equal(t, a.Totals.WaitCycles, ranks[0].WaitCycles, "ranks row")
	require.Equal(t, uint32(64), ranks[0].Capacities["AIC"], "ranks row")
	assert.Equal(t, a.Stages[0].Name, ranks[0].BusiestStage, "ranks row")
	cores, _ := readRows[Core](t, filepath.Join(dir, "cores/rank=3/part-00000.parquet"))
	require.Len(t, cores, len(a.Cores))
	for i, c := range cores {
		ac := a.Cores[i]
		assert.Equalf(t, ac.CoreType, c.CoreType, "core row %d is %+v, analyze %+v", i, c, ac)
		assert.Equalf(t, ac.BlockID, c.BlockID, "core row %d is %+v, analyze %+v", i, c, ac)
		assert.Equalf(t, ac.IdleCycles, c.IdleCycles, "core row %d is %+v, analyze %+v", i, c, ac)
		assert.Equalf(t, ac.ComputeCycles, c.ComputeCycles, "core row %d is %+v, analyze %+v", i, c, ac)
	}
}

// TestFolderWholeOrNothing: an existing folder with files is refused and
// left alone; an aborted export leaves nothing; an empty folder is
// replaced.
func TestFolderWholeOrNothing(t *testing.T) {
	parent := t.TempDir()
	full := filepath.Join(parent, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "mine.txt"), []byte("keep"), 0o644)
	_, err := export.Create(full)
	assert.ErrorContains(t, err, "not empty", "a folder with a file in it")
	b, _ := os.ReadFile(filepath.Join(full, "mine.txt"))
	assert.Equal(t, "keep", string(b), "the user's file was touched")
	aborted := filepath.Join(parent, "aborted")
	w, err := export.Create(aborted)
	require.NoError(t, err)
	_, err = w.Add(source(t, 0, nil))
	require.NoError(t, err)
	w.Abort()
	entries, _ := os.ReadDir(parent)
	assert.Len(t, entries, 1, "after an abort the folder holds")
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	w, err = export.Create(empty)
	require.NoError(t, err)
	_, err = w.Add(source(t, 1, nil))
	require.NoError(t, err)
	require.NoError(t, w.Commit())
	_, err = os.Stat(filepath.Join(empty, "records/rank=1/part-00000.parquet"))
	assert.NoError(t, err)
}

// A rank's files are named by its own captures only: ranks 5, 3 and 5
// again (an invocation) given in that order are rank=3/part-00000,
// rank=5/part-00000 and rank=5/part-00001, as one export per rank would
// name them (the place among all the inputs leaked their order).
func TestPartsNumberedByRank(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	require.NoError(t, err)
	for _, c := range []struct {
		rank uint32
		inv  *analyze.Invocation
	}{{5, &analyze.Invocation{ID: 0}}, {3, nil}, {5, &analyze.Invocation{ID: 1}}} {
		d, o := source(t, c.rank, c.inv)
		_, err := w.Add(d, o)
		require.NoErrorf(t, err, "rank %d", c.rank)
	}
	require.NoError(t, w.Commit())
	var got []string
	err = filepath.WalkDir(filepath.Join(dir, "ranks"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	require.NoError(t, err)
	want := []string{"ranks/rank=3/part-00000.parquet", "ranks/rank=5/part-00000.parquet", "ranks/rank=5/part-00001.parquet"}
	assert.Equalf(t, strings.Join(want, " "), strings.Join(got, " "), "files %v, want %v", got, want)
}
