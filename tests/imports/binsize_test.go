package imports

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// programSizeLimit bounds cycleabi's size: 12,488,663 bytes when export
// was folded into it (CGO_ENABLED=0 go build with Go 1.26.8;
// docs/performance.md#start-cost), with 4% of room. parquet-go's writer
// alone built to 15.4 MB: a dependency that brings a codec, HTTP or a
// reflection registry back fails here before it ships.
const programSizeLimit = 13_000_000

// TestProgramSize builds cycleabi as make build does and holds it under
// programSizeLimit.
func TestProgramSize(t *testing.T) {
	short.Skip(t, "builds cycleabi")
	bin := filepath.Join(t.TempDir(), "cycleabi")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cycleabi")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "go build:\n%s", out)

	st, err := os.Stat(bin)
	require.NoError(t, err)
	assert.LessOrEqual(t, st.Size(), int64(programSizeLimit), "cycleabi")
	t.Logf("cycleabi: %d bytes (limit %d)", st.Size(), programSizeLimit)
}
