package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
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
		if err := os.WriteFile(namesPath, []byte(c.names), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "t.json")
		if _, errOut, code := runMain(t, "decode", capPath, "--names", namesPath, "--kernel-name", "MegaMoe", "-o", out); code != ExitOK {
			t.Fatalf("decode: %s", errOut)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range parseCLITrace(t, data).TraceEvents {
			if e.Ph == "X" && !slices.Contains(names, e.Name) {
				names = append(names, e.Name)
			}
		}
		for _, w := range c.want {
			if !slices.Contains(names, w) {
				t.Errorf("names file %q: no event %s in %v", c.names, w, names)
			}
		}
		for _, a := range c.avoid {
			if slices.Contains(names, a) {
				t.Errorf("names file %q: an event %s in %v", c.names, a, names)
			}
		}
	}
}
