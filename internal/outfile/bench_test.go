package outfile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkCommit writes a 64 MiB output and commits it, through a
// nameless temporary file (Linux) and through a named one: what giving
// the file a name at the end (linkat) costs against creating it named.
func BenchmarkCommit(b *testing.B) {
	chunk := make([]byte, 1<<20)
	for _, named := range []bool{false, true} {
		b.Run(map[bool]string{false: "nameless", true: "named"}[named], func(b *testing.B) {
			dir := b.TempDir()
			if !named && openAnonymous(dir) == nil {
				b.Skip("no O_TMPFILE here")
			}
			saved := noAnonymous
			noAnonymous = named
			defer func() { noAnonymous = saved }()
			b.SetBytes(64 << 20)
			for b.Loop() {
				f, err := Create(filepath.Join(dir, "trace.json"))
				require.NoError(b, err)
				for range 64 {
					f.Write(chunk)
				}
				require.NoError(b, f.Commit())
			}
		})
	}
}
