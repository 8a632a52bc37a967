package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnalyzeArgsAreSafe: cycleabi.analyze (python/cycleabi) passes its
// paths after "--", so a path starting with "-" is a path, not a flag,
// and puts --format json and -o - after the flags its keyword arguments
// give, so none overrides them. The program is a stand-in that prints
// the arguments it was given as JSON (no wheel needed).
func TestAnalyzeArgsAreSafe(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "cycleabi")
	require.NoError(t, os.WriteFile(fake, []byte("#!/usr/bin/env python3\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n"), 0o755))
	script := `import sys
sys.path[:0] = [sys.argv[1] + "/python", sys.argv[1] + "/gen/py"]
import cycleabi
cycleabi.program = lambda name="cycleabi": sys.argv[2]
print(" ".join(cycleabi.analyze("-rank0.bin", "--format=csv", plan="-moe.yaml", rank=[0, 1])))
`
	repo, err := filepath.Abs(root)
	require.NoError(t, err)
	got := strings.TrimSpace(string(pytest.RunEnv(t, dir, nil, script, repo, fake)))
	want := "analyze --plan -moe.yaml --rank 0 --rank 1 --format json -o - -- -rank0.bin --format=csv"
	assert.Equal(t, want, got, "cycleabi.analyze ran")
}
