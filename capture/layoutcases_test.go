package capture_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLayoutCases runs the layout search's table, testdata/layout/*.txtar
// (the format is capturetest.LayoutCase's): each case's capture is
// resolved under its request, and the answer must be its want section.
// gen/py's find_layout runs the same table (tests/agreement's
// TestPythonLayoutCases). Every rejection the search can give shows in a
// case.
func TestLayoutCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "layout", "*.txtar"))
	require.NoError(t, err, "no cases in testdata/layout")
	require.NotEmpty(t, files, "no cases in testdata/layout")
	var all strings.Builder
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			lc, err := capturetest.ParseLayoutCase(data)
			require.NoErrorf(t, err, "%s", file)
			c, err := capture.FromBytes("capture.bin", lc.Bytes)
			require.NoError(t, err)
			got := capturetest.RenderResolution(c.Resolve(lc.Request))
			all.WriteString(got)
			golden.CheckSection(t, file, lc.Archive, "want", []byte(got))
		})
	}
	for _, why := range capture.RejectionPatterns() {
		assert.Regexp(t, why, all.String(), "no case in testdata/layout shows the rejection")
	}
}
