package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeExample decodes the shipped capture and merges it into the
// shipped Kineto trace, as make demo does.
func TestMergeExample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json.gz") // read through gzip
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "-o", mk)
	require.Equalf(t, 0, code, "%s: code", stderr)
	fwBefore, err := os.ReadFile("../../../examples/moe_layer.kineto.json")
	require.NoError(t, err)

	out := filepath.Join(dir, "merged.json.gz")
	_, stderr, code = runMain(t, "merge", "../../../examples/moe_layer.kineto.json", mk, "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)
	require.Equal(t, "cycleabi: 2974 events of 1 invocation(s) merged into "+out+"\n", stderr, "stderr")
	fwAfter, _ := os.ReadFile("../../../examples/moe_layer.kineto.json")
	require.Equal(t, []byte(fwBefore), []byte(fwAfter), "the input is never modified: fwAfter")

	data := readTrace(t, out)
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Merge       map[string]any   `json:"megaKernelTraceMerge"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	al := tr.Merge["alignments"].([]any)[0].(map[string]any)
	require.Equal(t, "MegaKernel_moe_layer_7f3a9c", al["outerKernelName"], "al[\"outerKernelName\"]")
	require.Equal(t, 1733800000240.375, al["outerKernelTs"], "al[\"outerKernelTs\"]")
	require.Equal(t, false, tr.Merge["usedFallbackKernelSelection"], "tr.Merge[\"usedFallbackKernelSelection\"]")
	require.Equal(t, []any{}, tr.Merge["warnings"], "tr.Merge[\"warnings\"]")
}

func TestMergeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", mk)
	require.Equalf(t, 0, code, "%s: code", stderr)
	fw := "../../../examples/moe_layer.kineto.json"
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
		require.Equalf(t, c.code, code, "%v: %s: code", c.args, stderr)
		require.Containsf(t, stderr, c.want, "%v: stderr", c.args)
		_, err := os.Stat(out)
		require.Truef(t, os.IsNotExist(err), "%v left %s behind: os.IsNotExist(err) = false, want true", c.args, out)
	}

	// Fallback: warnings on stderr, one per line.
	fb := filepath.Join(dir, "fb.json")
	require.NoError(t, os.WriteFile(fb, []byte(`[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":5,"dur":2000}]`), 0o644))
	_, stderr, code = runMain(t, "merge", fb, mk, "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 3, "len(lines)")
	require.Contains(t, lines[0], "cycleabi: warning: no outer kernel name matches (?i)(?:Mega[_]?Kernel); chose a contiguous run", "lines[0]")
	require.Contains(t, lines[1], "cycleabi: warning: invocation 0 runs 458.26 us past its outer kernel \"k\"", "lines[1]")
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

// TestMergeKeepsArrows: decode --plan's dependency arrows come along into
// the merged trace, every end moved with its invocation onto the merged
// threads and still inside one of the merged slices of its thread (where
// Perfetto binds it).
func TestMergeKeepsArrows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--plan", "../../../examples/moe_layer.yaml", "--names", "../../../examples/moe_layer.names.yaml", "-o", mk)
	require.Equalf(t, 0, code, "%s: code", stderr)
	out := filepath.Join(dir, "merged.json")
	_, stderr, code = runMain(t, "merge", "../../../examples/moe_layer.kineto.json", mk, "-o", out)
	require.Equalf(t, 0, code, "%s: code", stderr)

	type event struct {
		Ph, Cat  string
		Pid, Tid int64
		Ts, Dur  json.Number
		ID       *uint64 `json:"id"`
	}
	var in, merged struct {
		TraceEvents []event        `json:"traceEvents"`
		Merge       map[string]any `json:"megaKernelTraceMerge"`
	}
	require.NoError(t, json.Unmarshal(readTrace(t, mk), &in))
	require.NoError(t, json.Unmarshal(readTrace(t, out), &merged))
	flows := func(evs []event) []event {
		var f []event
		for _, e := range evs {
			if (e.Ph == "s" || e.Ph == "f") && e.Cat == "dependency" {
				f = append(f, e)
			}
		}
		return f
	}
	src, got := flows(in.TraceEvents), flows(merged.TraceEvents)
	require.NotEmpty(t, src, "src is empty, want something")
	require.Equalf(t, len(src), len(got), "every arrow end merged: len(got): %v", got)
	require.Equal(t, float64(len(src)), merged.Merge["mergedFlowEventCount"], "merged.Merge[\"mergedFlowEventCount\"]")

	// The shift: the outer kernel's ts minus the invocation's first ts.
	first := ""
	for _, e := range in.TraceEvents {
		if e.Ph == "X" && (first == "" || rat(t, e.Ts).Cmp(rat(t, json.Number(first))) < 0) {
			first = string(e.Ts)
		}
	}
	outerTs := json.Number(fmt.Sprint(merged.Merge["alignments"].([]any)[0].(map[string]any)["outerKernelTs"]))
	shift := new(big.Rat).Sub(rat(t, outerTs), rat(t, json.Number(first)))
	slices := map[[2]int64][][2]*big.Rat{}
	for _, e := range merged.TraceEvents {
		if e.Ph == "X" && e.Cat == "MegaKernelInternal" {
			lo := rat(t, e.Ts)
			slices[[2]int64{e.Pid, e.Tid}] = append(slices[[2]int64{e.Pid, e.Tid}], [2]*big.Rat{lo, new(big.Rat).Add(lo, rat(t, e.Dur))})
		}
	}
	for i, e := range got {
		require.Equalf(t, *src[i].ID, *e.ID, "*e.ID = %v, want %v", *e.ID, *src[i].ID)
		require.Equalf(t, 0, new(big.Rat).Add(rat(t, src[i].Ts), shift).Cmp(rat(t, e.Ts)), "arrow end %d moved with its invocation: new(big.Rat).Add(rat(t, src[i].Ts), shift).Cmp(rat(t, e.Ts))", i)
		inside := false
		for _, s := range slices[[2]int64{e.Pid, e.Tid}] {
			if s[0].Cmp(rat(t, e.Ts)) <= 0 && rat(t, e.Ts).Cmp(s[1]) <= 0 {
				inside = true
				break
			}
		}
		require.Truef(t, inside, "arrow end %d (pid %d tid %d ts %s) lies in a merged slice of its thread: inside = false, want true", i, e.Pid, e.Tid, e.Ts)
	}
}

func rat(t *testing.T, n json.Number) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(string(n))
	require.Truef(t, ok, "%s: ok = false, want true", n)
	return r
}

// TestMergeNamesWrongFiles: a capture, a .pftrace or a gzip of either
// where a JSON trace belongs is named for what it is (exit 1), not a JSON
// syntax error at its first byte.
func TestMergeNamesWrongFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", mk)
	require.Equalf(t, 0, code, "%s: code", stderr)
	pf := filepath.Join(dir, "trace.pftrace")
	_, stderr, code = runMain(t, "decode", "../../../examples/moe_layer.bin", "--format", "perfetto", "-o", pf)
	require.Equalf(t, 0, code, "%s: code", stderr)
	gz := filepath.Join(dir, "trace.pftrace.gz")
	data, err := os.ReadFile(pf)
	require.NoError(t, err)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	require.NoError(t, os.WriteFile(gz, b.Bytes(), 0o644))
	fw := "../../../examples/moe_layer.kineto.json"
	out := filepath.Join(dir, "out.json")
	for _, c := range []struct {
		fw, mk, want string
	}{
		{fw, "../../../examples/moe_layer.bin", "../../../examples/moe_layer.bin: this is binary data (a raw capture? cycleabi decode turns it into a trace), not a MegaKernel trace"},
		{fw, pf, pf + ": this is a Perfetto protobuf trace (.pftrace; merge reads JSON traces: decode with --format json), not a MegaKernel trace"},
		{gz, mk, gz + ": this is gzip holding a Perfetto protobuf trace"},
		{"../../../examples/moe_layer.bin", mk, "this is binary data (a raw capture? cycleabi decode turns it into a trace), not a framework trace"},
	} {
		_, stderr, code := runMain(t, "merge", c.fw, c.mk, "-o", out)
		require.Equalf(t, 1, code, "%s: code", stderr)
		require.Contains(t, stderr, c.want, "stderr")
		require.NotContainsf(t, stderr, "found", "stderr = %q, want no %q", stderr, "found")
	}
}
