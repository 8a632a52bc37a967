package main

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
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1).Span(abi.CoreTypeAIC, 0, 1, math.MaxUint64, abi.RuntimeStageWaitDependency, 1)
	dir := t.TempDir()
	capPath, out := filepath.Join(dir, "far.bin"), filepath.Join(dir, "far.pftrace")
	require.NoError(t, os.WriteFile(capPath, b.Bytes(), 0o644))

	_, errOut, code := runMain(t, "decode", capPath, "--format", "perfetto", "-o", out)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, capPath+": AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than 2^63-1 ns")
	assert.NoFileExists(t, out)

	_, errOut, code = runMain(t, "decode", capPath, "-o", filepath.Join(dir, "far.json"))
	assert.Equal(t, 0, code, errOut)
}
