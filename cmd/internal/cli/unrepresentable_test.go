package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
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
	if err := os.WriteFile(capPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	_, errOut, code := runMain(t, "decode", capPath, "--format", "perfetto", "-o", out)
	if code != 1 {
		t.Errorf("%s: code = %v, want 1", errOut, code)
	}
	if want := capPath + ": AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than 2^63-1 ns"; !strings.Contains(errOut, want) {
		t.Errorf("errOut = %q, want it to contain %q", errOut, want)
	}
	if info, err := os.Lstat(out); err == nil && !info.IsDir() {
		t.Errorf("%s exists, want no such file", out)
	}

	_, errOut, code = runMain(t, "decode", capPath, "-o", filepath.Join(dir, "far.json"))
	if code != 0 {
		t.Errorf("%s: code = %v, want 0", errOut, code)
	}
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
	if err := os.WriteFile(capPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runMain(t, "export", capPath, "-o", out)
	if code != 1 {
		t.Errorf("%s: code = %v, want 1", errOut, code)
	}
	if want := "(AIC/0): cycle 4611686018427387904 is more than 2^63 ns from the anchor 1"; !strings.Contains(errOut, want) {
		t.Errorf("errOut = %q, want it to contain %q", errOut, want)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("%s exists, want no such file", out)
	}
	if _, errOut, code := runMain(t, "analyze", capPath); code != 0 {
		t.Errorf("analyze: %s: code = %v, want 0", errOut, code)
	}
}
