package imports

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/short"
)

// exportSizeLimit is half of cycleabi-export's size when it linked
// parquet-go (24,786,631 bytes, CGO_ENABLED=0 go build with Go 1.26.8;
// docs/performance.md#start-cost): the program that holds only export is
// at most that.
const exportSizeLimit = 24_786_631 / 2

// TestExportProgramSize builds cycleabi-export as make build does and
// holds it under exportSizeLimit: a dependency that brings a codec, HTTP
// or a reflection registry back fails here before it ships.
func TestExportProgramSize(t *testing.T) {
	short.Skip(t, "builds cycleabi-export")
	bin := filepath.Join(t.TempDir(), "cycleabi-export")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cycleabi-export")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > exportSizeLimit {
		t.Errorf("cycleabi-export is %d bytes, over %d (half its size with parquet-go)", st.Size(), exportSizeLimit)
	}
	t.Logf("cycleabi-export: %d bytes (limit %d)", st.Size(), exportSizeLimit)
}
