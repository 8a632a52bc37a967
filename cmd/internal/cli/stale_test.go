package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStaleSlotReachesAnalyze: a capture holding an earlier launch's slot
// (a buffer not zeroed between launches) is not analyzed silently into a
// makespan of the time between the launches: the warning naming the core
// and the likely cause is on stderr and in the analysis itself (text and
// JSON), --strict fails on it, and validate reports it as stale-slot.
func TestStaleSlotReachesAnalyze(t *testing.T) {
	t.Parallel()
	b := capturetest.New(24, 16, 16)
	const at = 2_000_000_000
	for i, block := range []uint32{0, 1, 2} {
		entry := uint64(at + i*5)
		b.Enter(abi.CoreTypeAIC, block, entry).Span(abi.CoreTypeAIC, block, entry+100, entry+125_000, 0x20067, 1)
	}
	old := uint64(at - 1_635_000_000) // 32.7 s at 50 MHz before
	b.Enter(abi.CoreTypeAIV, 1, old).Span(abi.CoreTypeAIV, 1, old+100, old+120_000, 0x20067, 1)
	path := filepath.Join(t.TempDir(), "stale.bin")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	const want = "AIV/1 entered at cycle 365000000, 1634880000 cycles before the span of the other 3 cores"
	for _, format := range []string{"text", "json"} {
		stdout, stderr, code := runMain(t, "analyze", path, "--format", format)
		require.Equalf(t, ExitOK, code, "analyze --format %s: exit\n%s", format, stderr)
		require.Containsf(t, stderr, "warning: "+path+": "+want, "analyze --format %s: stderr lacks the stale slot", format)
		assert.Containsf(t, stderr, "not zeroed between launches", "analyze --format %s: stderr lacks the stale slot", format)
		assert.Containsf(t, stdout, want, "analyze --format %s: the analysis lacks the stale slot", format)
	}
	_, stderr, code := runMain(t, "analyze", path, "--strict")
	assert.Equalf(t, ExitInvalid, code, "analyze --strict: exit\n%s", stderr)
	stdout, _, code := runMain(t, "validate", path)
	require.Equal(t, ExitOK, code, "validate: exit")
	assert.Contains(t, stdout, "stale-slot", "validate: exit")
}

// TestReportStrictAsAnalyze: report's --strict means what analyze's does:
// an input that drew a warning (here a stale slot) exits 1 once the page
// is written (it exited 0: report's --strict only refused a base).
func TestReportStrictAsAnalyze(t *testing.T) {
	t.Parallel()
	b := capturetest.New(24, 16, 16)
	for i, block := range []uint32{0, 1} {
		entry := uint64(1_000_000_000 + i)
		b.Enter(abi.CoreTypeAIC, block, entry).Span(abi.CoreTypeAIC, block, entry+10, entry+1000, 0x20067, 1)
	}
	b.Enter(abi.CoreTypeAIV, 1, 1000).Span(abi.CoreTypeAIV, 1, 1010, 2000, 0x20067, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "stale.bin")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	page := filepath.Join(dir, "r.html")
	_, stderr, code := runMain(t, "report", path, "-o", page, "--strict")
	require.Equal(t, ExitInvalid, code, "report --strict: exit")
	assert.Contains(t, stderr, "--strict: the inputs drew the warnings above", "report --strict: exit")
	_, err := os.Stat(page)
	assert.NoError(t, err, "report --strict wrote no page")
	_, stderr, code = runMain(t, "report", path, "-o", page)
	assert.Equalf(t, ExitOK, code, "report: exit\n%s", stderr)
}
