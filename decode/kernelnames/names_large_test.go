package kernelnames

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeNames writes a names file of head, then filler lines up to at
// least size bytes, then tail.
func writeNames(t *testing.T, name, head string, size int, tail string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  %d: Stage_%d\n", 1000+i, i%40)
	}
	b.WriteString(tail)
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A file larger than the YAML cap that the fast path cannot read is
// refused having read only as far as the fast path went, not read whole
// first (a 652 MB file took 1.53 GB to be refused).
func TestLoadNamesRefusedFromSize(t *testing.T) {
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "1000000")
	path := writeNames(t, "n.yaml", "stages: {1: a}\ntasks:\n", 16<<20, "")
	var err error
	got := allocated(func() { _, err = Load(path) })
	var le *yamlpos.LimitError
	require.ErrorAsf(t, err, &le, "got %v, want the YAML cap, stopped at line 1", err)
	require.Equalf(t, int64(1000000), le.Limit, "got %v, want the YAML cap, stopped at line 1", err)
	require.Containsf(t, err.Error(), "stopped at line 1, column 1", "got %v, want the YAML cap, stopped at line 1", err)
	assert.LessOrEqual(t, got, uint64(4<<20), "refusing a 16 MiB file allocated")
}

// A file the fast path reads is read as a stream: memory grows with the
// tasks (a few bytes each), not with the file.
func TestLoadNamesStreams(t *testing.T) {
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "1000000")
	path := writeNames(t, "n.yaml", "tasks:\n", 16<<20, "")
	var n *Names
	var err error
	got := allocated(func() { n, err = Load(path) })
	require.NoError(t, err)
	tasks := n.Tasks.Len()
	require.GreaterOrEqual(t, tasks, 800_000)
	name, ok := n.TaskStage(1000 + 17)
	assert.Truef(t, ok, "task 1017, %v", ok)
	assert.Equalf(t, "Stage_17", name, "task 1017, %v", ok)
	assert.LessOrEqual(t, float64(got)/float64(tasks), float64(6))
}

// A name over MaxNameBytes is an error at its place, from the YAML path
// (a small file) and from the fast paths (a file too large for it).
func TestLoadNamesLongName(t *testing.T) {
	long := strings.Repeat("x", MaxNameBytes+1)
	small := filepath.Join(t.TempDir(), "small.yaml")
	require.NoError(t, os.WriteFile(small, []byte("tasks:\n  0: a\n  1: '"+long+"'\n"), 0o644))
	_, err := Load(small)
	want := small + ":3:6: tasks.1: a name is longer than the cap of 4096 bytes"
	assert.EqualErrorf(t, err, want, "small file: %v\nwant %s", err, want)
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "100000")
	big := writeNames(t, "big.yaml", "tasks:\n  0: a\n  1: "+long+"\n", 200000, "")
	_, err = Load(big)
	assert.EqualErrorf(t, err, big+":3:6: tasks.1: a name is longer than the cap of 4096 bytes", "large YAML file: %v", err)
	json := filepath.Join(t.TempDir(), "big.json")
	text := `{"tasks": {"0": "a",` + "\n" + `  "1": "` + long + `"` + strings.Repeat(" ", 200000) + "}}"
	require.NoError(t, os.WriteFile(json, []byte(text), 0o644))
	_, err = Load(json)
	assert.EqualErrorf(t, err, json+":2:8: tasks.1: a name is longer than the cap of 4096 bytes", "large JSON file: %v", err)
	// A line the block YAML fast path cannot hold: reported as such.
	huge := writeNames(t, "huge.yaml", "tasks:\n  0: a\n  1: "+strings.Repeat("y", 100<<10)+"\n", 200000, "")
	_, err = Load(huge)
	assert.EqualErrorf(t, err, huge+":3:1: a line of more than 65536 bytes: a name is longer than the cap of 4096 bytes", "a 100 KiB line: %v", err)
}

// A task named twice in a file too large for the YAML path is placed:
// at once in the dense table, by a second reading in the sparse one.
func TestLoadNamesDuplicateLarge(t *testing.T) {
	t.Setenv(yamlpos.MaxYAMLBytesEnv, "100000")
	dense := writeNames(t, "dense.yaml", "tasks:\n  0: a\n", 200000, "  1005: c\n")
	_, err := Load(dense)
	lines := strings.Count(mustRead(t, dense), "\n")
	assert.EqualErrorf(t, err, fmt.Sprintf("%s:%d:3: tasks.1005: id 1005 is already named", dense, lines), "dense: %v", err)
	sparse := writeNames(t, "sparse.yaml", "tasks:\n  4000000000: a\n", 200000, "  4000000000: b\n")
	_, err = Load(sparse)
	lines = strings.Count(mustRead(t, sparse), "\n")
	assert.EqualErrorf(t, err, fmt.Sprintf("%s:%d:3: tasks.4000000000: id 4000000000 is already named", sparse, lines), "sparse: %v", err)
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
