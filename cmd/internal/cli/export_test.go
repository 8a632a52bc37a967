package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportFiles lists the files of an export folder, relative to it.
func exportFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	require.NoError(t, err)
	return files
}

// wantExport checks that dir holds the three tables of one capture of
// rank 0, each a Parquet file (it starts and ends with PAR1).
func wantExport(t *testing.T, dir string) {
	t.Helper()
	want := []string{"cores/rank=0/part-00000.parquet", "ranks/rank=0/part-00000.parquet", "records/rank=0/part-00000.parquet"}
	require.Equal(t, exportFiles(t, dir), want, "exportFiles(t, dir)")
	for _, f := range want {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		if assert.GreaterOrEqualf(t, len(b), 8, "%s is not a Parquet file: its size", f) {
			assert.Equalf(t, "PAR1", string(b[:4]), "%s is not a Parquet file: its first bytes", f)
			assert.Equalf(t, "PAR1", string(b[len(b)-4:]), "%s is not a Parquet file: its last bytes", f)
		}
	}
}

// export writes the folder in this process: it appears whole and stderr
// counts the records.
// Not in parallel: export sets the process's soft memory limit for its
// run (debug.SetMemoryLimit), and two runs at once could leave it set.
func TestExportCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "moe.parquet")
	stdout, stderr, code := runMain(t, "export", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "-o", out)
	require.Equalf(t, ExitOK, code, "code; stderr: %s", stderr)
	assert.Empty(t, stdout, "stdout")
	assert.Equal(t, out+": 2974 records of 1 capture(s) as Parquet (records/, cores/, ranks/)\n", stderr, "stderr")
	wantExport(t, out)
}

// Every note, warning and --strict line export writes begins with the
// program's name: the kernel family's (package input's findings) and the
// trace's, both through PrintInputs, and --strict's
// (StrictWarned).
func TestExportNamesItself(t *testing.T) {
	dir := t.TempDir()
	// A trace of MegaMoe read under --kernel-name MegaMoeGrad (a note, and
	// a warning: its desc id is not that family's), whose metadata lists
	// a rank with no events (a trace warning).
	ev := `{"name":"Dispatch","cat":"MegaKernelInternal","ph":"X","pid":0,"tid":2000,"ts":0.0,"dur":10.0,"args":{"rank":0,"device_id":0,"core_type":"AIV","block_id":0,"task_id":0,"desc_id":65537,"stage_task_index":0,"task_number":1,"start_cycle":1000,"end_cycle":1500,"core_entry_cycle":1000}}`
	meta := `"megaKernelCycleTrace":{"ranks":[{"rank":0,"recordCount":1},{"rank":2,"recordCount":3}],"schemaVersion":1,"rank":0,"deviceId":0,"socName":"ascend910b","cycleFrequencyMHz":50.0,"anchorCycle":1000,"recordCapacityPerCore":{"AIC":16,"AIV":16},"recordCount":1,"droppedRecordCount":0,"detailedTaskNames":false,"kernelName":"MegaMoe","ownerLabel":"Expert"}`
	trace := filepath.Join(dir, "moe.json")
	require.NoError(t, os.WriteFile(trace, []byte(`{"traceEvents":[`+ev+`],`+meta+`}`), 0o644))
	_, stderr, code := runMain(t, "export", "--strict", trace, "--kernel-name", "MegaMoeGrad", "-o", filepath.Join(dir, "out"))
	require.Equalf(t, ExitInvalid, code, "code (--strict):\n%s", stderr)
	for _, want := range []string{
		"cycleabi: note: " + trace + `: --kernel-name "MegaMoeGrad" applied over the data's kernel name "MegaMoe"`,
		"cycleabi: warning: " + trace + ": kernel family MegaMoeGrad",
		"cycleabi: warning: " + trace + ": megaKernelCycleTrace.ranks[1] (rank 2) has no events",
		"cycleabi: --strict: the inputs drew the warnings above",
	} {
		assert.Falsef(t, !strings.Contains(stderr, "\n"+want) && !strings.HasPrefix(stderr, want), "stderr lacks a line beginning %q:\n%s", want, stderr)
	}
}
