package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An output that is one of the command's inputs (by name, through a
// symbolic link, or a hard link) is refused with exit 2, naming both
// paths, and the input is left byte for byte as it was.
func TestOutputIsNeverAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	names := filepath.Join(dir, "k.names.yaml")
	require.NoError(t, os.WriteFile(names, []byte("graph_stages:\n  2: Down\n"), 0o644))
	schedule := writeSchedule(t, "num_workers: 2\ntasks: [{task_type: MatMul}]\ncube_task_indices: [0]\n")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(capturePath, link))
	hard := filepath.Join(dir, "hard.json")
	require.NoError(t, os.Link(names, hard))

	manifest := filepath.Join(filepath.Dir(capturePath), "window.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("- {capture: cap.bin}\n"), 0o644))
	inputs := []string{capturePath, names, schedule, manifest}
	before := map[string][]byte{}
	for _, p := range inputs {
		before[p], _ = os.ReadFile(p)
	}
	for _, tc := range []struct {
		args  []string
		input string
	}{
		{[]string{"decode", capturePath, "-o", capturePath}, capturePath},
		{[]string{"decode", capturePath, "-o", link}, capturePath},
		{[]string{"decode", capturePath, "--names", names, "-o", hard}, names},
		{[]string{"decode", capturePath, "--plan", schedule, "-o", schedule}, schedule},
		{[]string{"decode", "--invocation-manifest", manifest, "-o", manifest}, manifest},
		{[]string{"synth", schedule, "-o", schedule}, schedule},
		{[]string{"report", capturePath, "-o", link}, capturePath},
		{[]string{"report", capturePath, "--names", names, "-o", hard}, names},
		{[]string{"report", capturePath, "--plan", schedule, "-o", schedule}, schedule},
		{[]string{"report", schedule, "--base", capturePath, "-o", link}, capturePath},
		{[]string{"report", "--invocation-manifest", manifest, "-o", manifest}, manifest},
	} {
		_, stderr, code := runMain(t, tc.args...)
		assert.Equalf(t, ExitUsage, code, "%v: %s: code", tc.args, stderr)
		out := tc.args[len(tc.args)-1]
		assert.Containsf(t, stderr, "refusing to write "+out, "%v: stderr", tc.args)
		if out != tc.input {
			assert.Containsf(t, stderr, "same file as the input "+tc.input, "%v: stderr", tc.args)
		}
		for _, p := range inputs {
			got, _ := os.ReadFile(p)
			assert.Equalf(t, []byte(before[p]), []byte(got), "%v changed %s: bytes.Equal(got, before[p]) = false, want true", tc.args, p)
		}
		entries, _ := os.ReadDir(dir)
		// names, link, hard
		assert.Lenf(t, entries, 3, "%v left files behind: len(entries)", tc.args)
	}
}

// synth -o - writes the capture to stdout and its summary to stderr.
func TestSynthStdout(t *testing.T) {
	examples, err := filepath.Abs("../../../examples")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	stdout, stderr, code := runMain(t, "synth", filepath.Join(examples, "moe_layer.yaml"), "--capacity-scale", "0.8", "--seed", "1", "-o", "-")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	want, err := os.ReadFile(filepath.Join(examples, "moe_layer.bin"))
	require.NoError(t, err)
	assert.Equalf(t, []byte(want), []byte(stdout), "stdout is not the capture (%d bytes, want %d): bytes.Equal([]byte(stdout), want) = false, want true", len(stdout), len(want))
	assert.Contains(t, stderr, "2974 records written", "stderr")
	_, err = os.Stat("-")
	assert.True(t, os.IsNotExist(err), "synth wrote a file named -: os.IsNotExist(err) = false, want true")
}

// A device given as the output is written in place, never replaced.
func TestDevNullStaysADevice(t *testing.T) {
	t.Parallel()
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skipf("no device at %s", os.DevNull)
	}
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	for _, args := range [][]string{
		{"synth", "../../../examples/moe_layer.yaml", "-o", os.DevNull},
		{"decode", capturePath, "-o", os.DevNull},
	} {
		_, stderr, code := runMain(t, args...)
		require.Equalf(t, ExitOK, code, "%v: %s: code", args, stderr)
		st, err := os.Stat(os.DevNull)
		require.NoError(t, err)
		assert.Falsef(t, st.Mode().IsRegular(), "%v replaced %s with a regular file: st.Mode().IsRegular() = true, want false", args, os.DevNull)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, "--version")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Lenf(t, lines, 2, "%s: len(lines)", stdout)
	// The version is VERSION's, however the test binary was built.
	assert.Equal(t, "cycleabi version "+buildinfo.Version(), lines[0], "lines[0]")
	assert.Equal(t, "ABI version 2, fingerprint "+abi.FingerprintHex, lines[1], "lines[1]")
	assert.Len(t, abi.FingerprintHex, 16, "len(abi.FingerprintHex)")
}

// The Perfetto format's output names are checked too: the default
// trace.pftrace of --format perfetto, and a -o name that picks the
// format, are refused when they are an input, which is left as it was.
func TestPerfettoOutputIsNeverAnInput(t *testing.T) {
	capturePath := writeCapture(t, "trace.pftrace", decodeCapture().Bytes())
	dir := filepath.Dir(capturePath)
	t.Chdir(dir)
	before, err := os.ReadFile(capturePath)
	require.NoError(t, err)
	for _, args := range [][]string{
		{"decode", "trace.pftrace", "--format", "perfetto"},
		{"decode", capturePath, "-o", capturePath},
		{"decode", capturePath, "-o", "./trace.pftrace", "--format", "json"},
	} {
		_, stderr, code := runMain(t, args...)
		assert.Equalf(t, ExitUsage, code, "%v: %s: code", args, stderr)
		assert.Containsf(t, stderr, "refusing to write", "%v: stderr", args)
		got, _ := os.ReadFile(capturePath)
		assert.Equalf(t, []byte(before), []byte(got), "%v changed the capture: bytes.Equal(got, before) = false, want true", args)
		entries, _ := os.ReadDir(dir)
		assert.Lenf(t, entries, 1, "%v left files behind: len(entries)", args)
	}
}
