package export_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/export"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/parquet-go/parquet-go"
)

// source decodes the shipped example, to be analyzed as rank r.
func source(t *testing.T, r uint32, inv *analyze.Invocation) (*decode.Decoded, analyze.Options) {
	t.Helper()
	c, err := capture.Open("../examples/moe_layer.bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	d, err := decode.Decode(c, capture.Request{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := kernelnames.Load("../examples/moe_layer.names.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d, analyze.Options{Rank: r, FrequencyMHz: 50, Names: names, Invocation: inv}
}

func readRows[T any](t *testing.T, path string, opts ...parquet.ReaderOption) ([]T, *parquet.File) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[T](f, st.Size(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rows, pf
}

// TestRecordsAreTheCapture: the records table holds every record of the
// capture in trace order, each field as decoded, its time in ns from the
// anchor (20 ns a cycle at 50 MHz), its name as decode names it; every file
// says where it came from in its metadata.
func TestRecordsAreTheCapture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	step := int64(7)
	d, o := source(t, 3, &analyze.Invocation{ID: 2, Step: &step})
	a, err := w.Add(d, o)
	if err != nil {
		t.Fatal(err)
	}
	// Add's analysis keeps one exact duration (the tables hold no
	// percentiles).
	exact := o
	exact.ExactLimit = 1
	if want, err := analyze.Analyze(d, exact); err != nil || !reflect.DeepEqual(a, want) {
		t.Fatalf("Add's analysis differs from Analyze's (%v)", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, pf := readRows[Record](t, filepath.Join(dir, "records/rank=3/part-00000.parquet"), recordReadOptions(t)...)
	var want []decode.Record
	if err := d.Records(func(r decode.Record) bool { want = append(want, r); return true }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) || len(rows) != 2974 {
		t.Fatalf("%d rows, %d records decoded (the example has 2974)", len(rows), len(want))
	}
	anchor := int64(d.Summary.Anchor)
	for i, r := range rows {
		d := want[i]
		if r.CoreType != d.CoreType.String() || r.BlockID != d.BlockID || r.StartCycle != d.StartCycle || r.EndCycle != d.EndCycle ||
			r.DescID != d.DescID || r.TaskID != d.TaskID || r.StageTaskIndex != d.StageTaskIndex || r.OwnerID != d.OwnerID {
			t.Fatalf("row %d is %+v, the record %+v", i, r, d)
		}
		if r.StartNs != (int64(d.StartCycle)-anchor)*20 || r.EndNs != (int64(d.EndCycle)-anchor)*20 {
			t.Fatalf("row %d: ns %d..%d, cycles %d..%d from anchor %d", i, r.StartNs, r.EndNs, d.StartCycle, d.EndCycle, anchor)
		}
		if name := o.Names.EventName(&d.ProfileRecord, false, ""); r.Name != name {
			t.Fatalf("row %d named %q, decode names it %q", i, r.Name, name)
		}
		if r.InvocationID == nil || *r.InvocationID != 2 || r.Step == nil || *r.Step != 7 || r.Direction != "" {
			t.Fatalf("row %d: invocation columns %v %v %v", i, r.InvocationID, r.Step, r.Direction)
		}
		if (r.TaskType != "") != (r.Kind == analyze.KindCompute) {
			t.Fatalf("row %d (%s) has task type %v", i, r.Kind, r.TaskType)
		}
	}
	for key, want := range map[string]string{"cycleabi.rank": "3", "cycleabi.abi_fingerprint": abi.FingerprintHex,
		"cycleabi.frequency_mhz": "50", "cycleabi.layout": d.Layout.Layout.String()} {
		if got, _ := pf.Lookup(key); got != want {
			t.Errorf("metadata %s = %q, want %q", key, got, want)
		}
	}
	ranks, _ := readRows[Rank](t, filepath.Join(dir, "ranks/rank=3/part-00000.parquet"))
	if len(ranks) != 1 || ranks[0].Records != a.Records || ranks[0].Dropped != 10 || ranks[0].WaitCycles != a.Totals.WaitCycles ||
		ranks[0].Capacities["AIC"] != 64 || ranks[0].BusiestStage != a.Stages[0].Name {
		t.Errorf("ranks row %+v", ranks)
	}
	cores, _ := readRows[Core](t, filepath.Join(dir, "cores/rank=3/part-00000.parquet"))
	if len(cores) != len(a.Cores) {
		t.Fatalf("%d core rows, analyze has %d cores", len(cores), len(a.Cores))
	}
	for i, c := range cores {
		if ac := a.Cores[i]; c.CoreType != ac.CoreType || c.BlockID != ac.BlockID || c.IdleCycles != ac.IdleCycles || c.ComputeCycles != ac.ComputeCycles {
			t.Errorf("core row %d is %+v, analyze %+v", i, c, ac)
		}
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
	if _, err := export.Create(full); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a folder with a file in it: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(full, "mine.txt")); string(b) != "keep" {
		t.Error("the user's file was touched")
	}
	aborted := filepath.Join(parent, "aborted")
	w, err := export.Create(aborted)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add(source(t, 0, nil)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("after an abort the folder holds %v", entries)
	}
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	w, err = export.Create(empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add(source(t, 1, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(empty, "records/rank=1/part-00000.parquet")); err != nil {
		t.Error(err)
	}
}

// A rank's files are named by its own captures only: ranks 5, 3 and 5
// again (an invocation) given in that order are rank=3/part-00000,
// rank=5/part-00000 and rank=5/part-00001, as one export per rank would
// name them (the place among all the inputs leaked their order).
func TestPartsNumberedByRank(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w, err := export.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rank uint32
		inv  *analyze.Invocation
	}{{5, &analyze.Invocation{ID: 0}}, {3, nil}, {5, &analyze.Invocation{ID: 1}}} {
		d, o := source(t, c.rank, c.inv)
		if _, err := w.Add(d, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = filepath.WalkDir(filepath.Join(dir, "ranks"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ranks/rank=3/part-00000.parquet", "ranks/rank=5/part-00000.parquet", "ranks/rank=5/part-00001.parquet"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
}
