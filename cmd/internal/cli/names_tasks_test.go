package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamesFileKeepsStageInference: a names file that names some tasks
// (or only a task the capture does not hold) names those, and leaves the
// other tasks' stages to the records: their waits and triggers are still
// named by their stage (GMM1_WaitDependency), not plain WaitDependency.
func TestNamesFileKeepsStageInference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := megaMoeCapture(t, dir)
	for _, c := range []struct {
		names       string
		want, avoid []string
	}{
		{"tasks:\n  999: NotInTheCapture\n", []string{"GMM1_WaitDependency", "GMM2_TriggerEvent", "SwiGLU_WaitDependency"}, []string{"WaitDependency"}},
		{"tasks:\n  2: Activation\n", []string{"GMM1_WaitDependency", "Activation_WaitDependency", "Activation_TriggerEvent"}, []string{"SwiGLU_WaitDependency", "WaitDependency"}},
	} {
		namesPath := filepath.Join(dir, "n.yaml")
		require.NoError(t, os.WriteFile(namesPath, []byte(c.names), 0o644))
		out := filepath.Join(dir, "t.json")
		_, errOut, code := runMain(t, "decode", capPath, "--names", namesPath, "--kernel-name", "MegaMoe", "-o", out)
		require.Equalf(t, ExitOK, code, "decode: %s", errOut)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var names []string
		for _, e := range parseCLITrace(t, data).TraceEvents {
			if e.Ph == "X" && !slices.Contains(names, e.Name) {
				names = append(names, e.Name)
			}
		}
		for _, w := range c.want {
			assert.Truef(t, slices.Contains(names, w), "names file %q: no event %s in %v", c.names, w, names)
		}
		for _, a := range c.avoid {
			assert.Falsef(t, slices.Contains(names, a), "names file %q: an event %s in %v", c.names, a, names)
		}
	}
}
