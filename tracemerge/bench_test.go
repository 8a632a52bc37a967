package tracemerge

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkMerge merges three events into a 20 MB Kineto-style trace
// (about 120k events); bytes/s is of the framework trace.
func BenchmarkMerge(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString(`{"traceEvents":[` + "\n")
	sb.WriteString(`{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}}`)
	for i := 0; sb.Len() < 20<<20; i++ {
		kernel := fmt.Sprintf("Kernel_%d", i%50)
		if i == 5000 {
			kernel = "HyperMegaMoe_1"
		}
		fmt.Fprintf(&sb, ",\n"+`{"ph":"X","cat":"cpu_op","name":"aten::op_%d","pid":41235,"tid":41235,"ts":%d.125,"dur":12.5,"args":{"External id":%d,"Sequence number":%d}}`, i%50, 1733800000000+i*3, i, i)
		fmt.Fprintf(&sb, ",\n"+`{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d.5,"dur":2500.25,"args":{"External id":%d,"device":0,"stream":7}}`, kernel, 1733800000040+i*3, i)
	}
	sb.WriteString("\n]}\n")
	fw := filepath.Join(dir, "fw.json")
	require.NoError(b, os.WriteFile(fw, []byte(sb.String()), 0o644))
	mk := filepath.Join(dir, "mk.json")
	require.NoError(b, os.WriteFile(mk, []byte(`{"traceEvents":[{"name":"A","ph":"X","pid":0,"tid":1000,"ts":1,"dur":2}],"megaKernelCycleTrace":{"schemaVersion":1,"rank":0,"kernelName":"HyperMegaMoe"}}`), 0o644))
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		_, err := Merge(io.Discard, Options{Framework: fw, MegaKernel: mk, Rank: -1})
		require.NoError(b, err)
	}
}
