package cli

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record at cycle 2^64−1 is valid (JSON holds it) but past what a
// Perfetto timestamp holds: invalid input for --format perfetto (exit 1),
// placed at its byte as capture problems are, and no trace is left.
func TestDecodePerfettoUnrepresentable(t *testing.T) {
	t.Parallel()
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 1, math.MaxUint64, abi.RuntimeStageWaitDependency, 1)
	dir := t.TempDir()
	capPath, out := filepath.Join(dir, "far.bin"), filepath.Join(dir, "far.pftrace")
	require.NoError(t, os.WriteFile(capPath, b.Bytes(), 0o644))

	_, errOut, code := runMain(t, "decode", capPath, "--format", "perfetto", "-o", out)
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, capPath+": AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than 2^63-1 ns", "errOut")
	info, err := os.Lstat(out)
	assert.Falsef(t, err == nil && !info.IsDir(), "%s exists, want no such file", out)

	_, errOut, code = runMain(t, "decode", capPath, "-o", filepath.Join(dir, "far.json"))
	assert.Equalf(t, 0, code, "%s: code", errOut)
}

// TestExportFarRecordIsInvalidInput: a record more than 2^63 ns from the
// anchor, which decode and analyze read, is invalid input to export (exit
// 1, the record named), not a usage error (it exited 2), and no output
// is left.
func TestExportFarRecordIsInvalidInput(t *testing.T) {
	t.Parallel()
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 1, 1<<62, abi.RuntimeStageWaitDependency, 1)
	dir := t.TempDir()
	capPath, out := filepath.Join(dir, "far.bin"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(capPath, b.Bytes(), 0o644))
	_, errOut, code := runMain(t, "export", capPath, "-o", out)
	assert.Equalf(t, 1, code, "%s: code", errOut)
	assert.Contains(t, errOut, "(AIC/0): cycle 4611686018427387904 is more than 2^63 ns from the anchor 1", "errOut")
	_, err := os.Lstat(out)
	assert.Errorf(t, err, "%s exists, want no such file", out)
	_, errOut, code = runMain(t, "analyze", capPath)
	assert.Equalf(t, 0, code, "analyze: %s: code", errOut)
}
