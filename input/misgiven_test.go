package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMisgiven: a schedule given as --names, a names file as --plan, and
// a JSON trace or a capture as either are named for what they are; a
// file of the right kind, or one that is neither (a broken names file),
// gets "" and the parser's error speaks.
func TestMisgiven(t *testing.T) {
	t.Parallel()
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("stages: [\n"), 0o644))
	for _, c := range []struct{ path, flag, want string }{
		{"../examples/moe_layer.yaml", "--names", "it is a schedule: give it with --plan"},
		{exampleNames, "--plan", "it is a names file: give it with --names"},
		{exampleCapture, "--names", "it is binary data (a capture?), which commands take as an argument"},
		{"../examples/aiv_pipeline.npy", "--plan", "it is binary data (a capture?), which commands take as an argument"},
		{statedTrace, "--plan", "it is a JSON trace, which commands take as an argument"},
		{exampleNames, "--names", ""},
		{"../examples/moe_layer.yaml", "--plan", ""},
		{broken, "--names", ""},
		{broken, "--plan", ""},
		{"no-such-file.yaml", "--names", ""},
	} {
		assert.Equalf(t, c.want, Misgiven(c.path, c.flag), "Misgiven(%s, %s)", c.path, c.flag)
	}
}
