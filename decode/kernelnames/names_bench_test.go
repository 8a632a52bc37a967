package kernelnames

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/require"
)

// namesFile is a names file shaped like examples/moe_layer.names.yaml (a
// few graph stages, every task of the graph named by its stage, chunks
// of tasks per stage), with tasks tasks: block YAML, the shape decode
// --names reads from a kernel's build.
func namesFile(tasks int) []byte {
	stages := []string{"InputNorm", "Router", "Dispatch", "GateUp", "SwiGLU", "Down", "Combine", "Residual"}
	var b bytes.Buffer
	b.WriteString("# Display names (decode --names).\ngraph_stages:\n  0: MoeRouter\n  1: MoeGateUp\n  2: MoeDown\ntasks:\n")
	for id := range tasks {
		fmt.Fprintf(&b, "  %d: %s\n", id, stages[id/6%len(stages)])
	}
	return b.Bytes()
}

// BenchmarkNamesParse reads a names file of 10k and of 1M tasks through
// the fast path (parseNamesFast, a stream of "id: name" lines) and through
// the YAML parser every other file takes (parseNamesYAML, go-yaml's node
// tree), which gives the same Names (TestNamesFastAgrees): the fast path
// stays only while it pays (docs/performance.md has the figures;
// scripts/bench-names.sh runs this).
func BenchmarkNamesParse(b *testing.B) {
	lim := yamlpos.Limits{Input: 1 << 40, YAML: 1 << 40}
	for _, tasks := range []int{10_000, 1_000_000} {
		data := namesFile(tasks)
		size := fmt.Sprintf("%dk", tasks/1000)
		b.Run("fast/"+size, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				n, _, ok := parseNamesFast("bench.yaml", bytes.NewReader(data), nil)
				require.True(b, ok, "fast path")
				require.Equal(b, tasks, n.Tasks.Len(), "fast path: tasks")
			}
		})
		b.Run("yaml/"+size, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				n, err := parseNamesYAML("bench.yaml", data, lim, "")
				require.NoError(b, err, "YAML")
				require.Equal(b, tasks, n.Tasks.Len(), "YAML")
			}
		})
	}
}
