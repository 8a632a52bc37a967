package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeExample decodes the shipped capture and merges it into the
// shipped Kineto trace, as make demo does.
func TestMergeExample(t *testing.T) {
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json.gz") // read through gzip
	_, stderr, code := runMain(t, "decode", "../../examples/moe_layer.bin", "--names", "../../examples/moe_layer.names.yaml", "-o", mk)
	require.Equal(t, 0, code, stderr)
	fwBefore, err := os.ReadFile("../../examples/moe_layer.kineto.json")
	require.NoError(t, err)

	out := filepath.Join(dir, "merged.json.gz")
	_, stderr, code = runMain(t, "merge", "../../examples/moe_layer.kineto.json", mk, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "cycleabi: 2974 events of 1 invocation(s) merged into "+out+"\n", stderr)
	fwAfter, _ := os.ReadFile("../../examples/moe_layer.kineto.json")
	require.Equal(t, fwBefore, fwAfter, "the input is never modified")

	data := readTrace(t, out)
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Merge       map[string]any   `json:"megaKernelTraceMerge"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	al := tr.Merge["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, "MegaKernel_moe_layer_7f3a9c", al["outerKernelName"])
	require.Equal(t, 1733800000240.375, al["outerKernelTs"])
	require.Equal(t, false, tr.Merge["usedFallbackKernelSelection"])
	require.Equal(t, []any{}, tr.Merge["warnings"])
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../examples/moe_layer.bin", "-o", mk)
	require.Equal(t, 0, code, stderr)
	fw := "../../examples/moe_layer.kineto.json"
	out := filepath.Join(dir, "out.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{fw, mk}, 2, "merge needs -o MERGED"},
		{[]string{fw}, 2, "merge needs FRAMEWORK_TRACE and MEGAKERNEL_TRACE"},
		{[]string{fw, mk, "-o", mk}, 2, "it is an input of this command"},
		{[]string{fw, mk, "-o", out, "--kernel-index", "-1"}, 2, "--kernel-index must be >= 0, got -1"},
		{[]string{fw, mk, "-o", out, "--kernel-pattern", ""}, 2, "--kernel-pattern is empty"},
		{[]string{fw, mk, "-o", out, "--kernel-pattern", "(x"}, 2, "--kernel-pattern: error parsing regexp: missing closing )"},
		{[]string{fw, mk, "-o", out, "--kernel-pattern", "NoSuchKernel"}, 1, "--kernel-pattern NoSuchKernel matches no outer-kernel candidate"},
		{[]string{fw, mk, "-o", out, "--kernel-index", "1"}, 1, "too few outer kernels: 1 invocation(s) from --kernel-index 1 need 2 of the events matching (?i)(?:Mega[_]?Kernel) with the best score (14), but " + fw + " has 1"},
		{[]string{fw, filepath.Join(dir, "missing.json"), "-o", out}, 2, "no such file"},
	} {
		_, stderr, code := runMain(t, append([]string{"merge"}, c.args...)...)
		require.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want, c.args)
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "%v left %s behind", c.args, out)
	}

	// Fallback: warnings on stderr, one per line.
	fb := filepath.Join(dir, "fb.json")
	require.NoError(t, os.WriteFile(fb, []byte(`[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":5,"dur":2000}]`), 0o644))
	_, stderr, code = runMain(t, "merge", fb, mk, "-o", out)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], "cycleabi: warning: no outer kernel name matches (?i)(?:Mega[_]?Kernel); chose a contiguous run")
	require.Contains(t, lines[1], "cycleabi: warning: invocation 0 runs 458.26 us past its outer kernel \"k\"")
}

// readTrace reads a trace file, gunzipping a .gz one.
func readTrace(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		data, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	return data
}
