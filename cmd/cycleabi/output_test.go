package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An output that is one of the command's inputs (by name, through a
// symbolic link, or a hard link) is refused with exit 2, naming both
// paths, and the input is left byte for byte as it was.
func TestOutputIsNeverAnInput(t *testing.T) {
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
	} {
		_, stderr, code := runMain(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		out := tc.args[len(tc.args)-1]
		assert.Contains(t, stderr, "refusing to write "+out, tc.args)
		if out != tc.input {
			assert.Contains(t, stderr, "same file as the input "+tc.input, tc.args)
		}
		for _, p := range inputs {
			got, _ := os.ReadFile(p)
			assert.True(t, bytes.Equal(got, before[p]), "%v changed %s", tc.args, p)
		}
		entries, _ := os.ReadDir(dir)
		assert.Len(t, entries, 3, "%v left files behind", tc.args) // names, link, hard
	}
}

// synth -o - writes the capture to stdout and its summary to stderr.
func TestSynthStdout(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	stdout, stderr, code := runMain(t, "synth", filepath.Join(examples, "moe_layer.yaml"), "--capacity-scale", "0.8", "--seed", "1", "-o", "-")
	require.Equal(t, exitOK, code, stderr)
	want, err := os.ReadFile(filepath.Join(examples, "moe_layer.bin"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal([]byte(stdout), want), "stdout is not the capture (%d bytes, want %d)", len(stdout), len(want))
	assert.Contains(t, stderr, "2974 records written")
	_, err = os.Stat("-")
	assert.True(t, os.IsNotExist(err), "synth wrote a file named -")
}

// A device given as the output is written in place, never replaced.
func TestDevNullStaysADevice(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skipf("no device at %s", os.DevNull)
	}
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	for _, args := range [][]string{
		{"synth", "../../examples/moe_layer.yaml", "-o", os.DevNull},
		{"decode", capturePath, "-o", os.DevNull},
	} {
		_, stderr, code := runMain(t, args...)
		require.Equal(t, exitOK, code, "%v: %s", args, stderr)
		st, err := os.Stat(os.DevNull)
		require.NoError(t, err)
		assert.False(t, st.Mode().IsRegular(), "%v replaced %s with a regular file", args, os.DevNull)
	}
}

func TestVersion(t *testing.T) {
	stdout, stderr, code := runMain(t, "--version")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2, stdout)
	assert.Regexp(t, `^cycleabi version (devel|v\S+)`, lines[0])
	assert.Equal(t, "ABI version 1, fingerprint "+abi.FingerprintHex, lines[1])
	assert.Len(t, abi.FingerprintHex, 16)
}
