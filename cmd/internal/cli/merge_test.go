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
	"reflect"
	"strings"
	"testing"
)

// TestMergeExample decodes the shipped capture and merges it into the
// shipped Kineto trace, as make demo does.
func TestMergeExample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json.gz") // read through gzip
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "-o", mk)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	fwBefore, err := os.ReadFile("../../../examples/moe_layer.kineto.json")
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "merged.json.gz")
	_, stderr, code = runMain(t, "merge", "../../../examples/moe_layer.kineto.json", mk, "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	if stderr != "cycleabi: 2974 events of 1 invocation(s) merged into "+out+"\n" {
		t.Fatalf("stderr = %q, want %q", stderr, "cycleabi: 2974 events of 1 invocation(s) merged into "+out+"\n")
	}
	fwAfter, _ := os.ReadFile("../../../examples/moe_layer.kineto.json")
	if !bytes.Equal(fwAfter, fwBefore) {
		t.Fatalf("the input is never modified: fwAfter = %q, want %q", fwAfter, fwBefore)
	}

	data := readTrace(t, out)
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Merge       map[string]any   `json:"megaKernelTraceMerge"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	al := tr.Merge["alignments"].([]any)[0].(map[string]any)
	if !reflect.DeepEqual(al["outerKernelName"], "MegaKernel_moe_layer_7f3a9c") {
		t.Fatalf("al[\"outerKernelName\"] = %v, want %v", al["outerKernelName"], "MegaKernel_moe_layer_7f3a9c")
	}
	if !reflect.DeepEqual(al["outerKernelTs"], 1733800000240.375) {
		t.Fatalf("al[\"outerKernelTs\"] = %v, want 1733800000240.375", al["outerKernelTs"])
	}
	if !reflect.DeepEqual(tr.Merge["usedFallbackKernelSelection"], false) {
		t.Fatalf("tr.Merge[\"usedFallbackKernelSelection\"] = %v, want %v", tr.Merge["usedFallbackKernelSelection"], false)
	}
	if want := []any{}; !reflect.DeepEqual(tr.Merge["warnings"], want) {
		t.Fatalf("tr.Merge[\"warnings\"] = %v, want %v", tr.Merge["warnings"], want)
	}
}

func TestMergeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", mk)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
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
		if code != c.code {
			t.Fatalf("%v: %s: code = %v, want %v", c.args, stderr, code, c.code)
		}
		if !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: stderr = %q, want it to contain %q", c.args, stderr, c.want)
		}
		_, err := os.Stat(out)
		if !os.IsNotExist(err) {
			t.Fatalf("%v left %s behind: os.IsNotExist(err) = false, want true", c.args, out)
		}
	}

	// Fallback: warnings on stderr, one per line.
	fb := filepath.Join(dir, "fb.json")
	if err := os.WriteFile(fb, []byte(`[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":5,"dur":2000}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runMain(t, "merge", fb, mk, "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 {
		t.Fatalf("len(lines) = %d, want 3: %v", len(lines), lines)
	}
	if want := "cycleabi: warning: no outer kernel name matches (?i)(?:Mega[_]?Kernel); chose a contiguous run"; !strings.Contains(lines[0], want) {
		t.Fatalf("lines[0] = %q, want it to contain %q", lines[0], want)
	}
	if want := "cycleabi: warning: invocation 0 runs 458.26 us past its outer kernel \"k\""; !strings.Contains(lines[1], want) {
		t.Fatalf("lines[1] = %q, want it to contain %q", lines[1], want)
	}
}

// readTrace reads a trace file, gunzipping a .gz one.
func readTrace(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		data, err = io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
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
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	out := filepath.Join(dir, "merged.json")
	_, stderr, code = runMain(t, "merge", "../../../examples/moe_layer.kineto.json", mk, "-o", out)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}

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
	if err := json.Unmarshal(readTrace(t, mk), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readTrace(t, out), &merged); err != nil {
		t.Fatal(err)
	}
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
	if len(src) == 0 {
		t.Fatalf("src is empty, want something")
	}
	if g, want := len(got), len(src); g != want {
		t.Fatalf("every arrow end merged: len(got) = %d, want %d: %v", g, want, got)
	}
	if want := float64(len(src)); !reflect.DeepEqual(merged.Merge["mergedFlowEventCount"], want) {
		t.Fatalf("merged.Merge[\"mergedFlowEventCount\"] = %v, want %v", merged.Merge["mergedFlowEventCount"], want)
	}

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
		if *e.ID != *src[i].ID {
			t.Fatalf("*e.ID = %v, want %v", *e.ID, *src[i].ID)
		}
		if got := new(big.Rat).Add(rat(t, src[i].Ts), shift).Cmp(rat(t, e.Ts)); got != 0 {
			t.Fatalf("arrow end %d moved with its invocation: new(big.Rat).Add(rat(t, src[i].Ts), shift).Cmp(rat(t, e.Ts)) = %v, want 0", i, got)
		}
		inside := false
		for _, s := range slices[[2]int64{e.Pid, e.Tid}] {
			if s[0].Cmp(rat(t, e.Ts)) <= 0 && rat(t, e.Ts).Cmp(s[1]) <= 0 {
				inside = true
				break
			}
		}
		if !inside {
			t.Fatalf("arrow end %d (pid %d tid %d ts %s) lies in a merged slice of its thread: inside = false, want true", i, e.Pid, e.Tid, e.Ts)
		}
	}
}

func rat(t *testing.T, n json.Number) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		t.Fatalf("%s: ok = false, want true", n)
	}
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
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	pf := filepath.Join(dir, "trace.pftrace")
	_, stderr, code = runMain(t, "decode", "../../../examples/moe_layer.bin", "--format", "perfetto", "-o", pf)
	if code != 0 {
		t.Fatalf("%s: code = %v, want 0", stderr, code)
	}
	gz := filepath.Join(dir, "trace.pftrace.gz")
	data, err := os.ReadFile(pf)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(gz, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
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
		if code != 1 {
			t.Fatalf("%s: code = %v, want 1", stderr, code)
		}
		if !strings.Contains(stderr, c.want) {
			t.Fatalf("stderr = %q, want it to contain %q", stderr, c.want)
		}
		if strings.Contains(stderr, "found") {
			t.Fatalf("stderr = %q, want no %q", stderr, "found")
		}
	}
}
