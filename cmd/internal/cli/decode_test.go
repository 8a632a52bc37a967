package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runMain runs the command line through Run, as main does, in this
// process, and returns what it wrote to stdout and stderr.
func runMain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := &Program{Name: "cycleabi", Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}
	code = p.Run(t.Context())
	return out.String(), errOut.String(), code
}

type cliTrace struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	MegaKernelCycleTrace map[string]any `json:"megaKernelCycleTrace"`
}

func parseCLITrace(t *testing.T, data []byte) *cliTrace {
	t.Helper()
	var tr cliTrace
	require.NoError(t, json.Unmarshal(data, &tr), "trace does not parse")
	return &tr
}

// decodeCapture has AIC/0 (two records, owner 3, task 1) and AIV/0
// (one graph-stage record) entered; capacities read from the headers.
func decodeCapture() *capturetest.Builder {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	b.Enter(abi.CoreTypeAIC, 0, 1000).
		Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 1000, EndCycle: 1100, DescID: abi.RuntimeStageWaitDependency, TaskID: 1, OwnerID: 3}).
		Write(abi.CoreTypeAIC, 0, abi.ProfileRecord{StartCycle: 1100, EndCycle: 1600, DescID: abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), TaskID: 1, StageTaskIndex: 1, OwnerID: 3})
	b.Enter(abi.CoreTypeAIV, 0, 1010).Span(abi.CoreTypeAIV, 0, 1050, 1150, abi.GraphStageBase+2, 2)
	return b
}

func TestDecodeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	names := filepath.Join(dir, "k.names.yaml")
	require.NoError(t, os.WriteFile(names, []byte("graph_stages:\n  2: Down\ntasks:\n  1: Gate\n"), 0o644))

	out := filepath.Join(dir, "trace.json")
	stdout, stderr, code := runMain(t, "decode", capturePath, "-o", out, "--names", names, "--detailed-names",
		"--kernel-name", "MoE", "--owner-label", "Expert", "--soc", "Ascend910B2")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Empty(t, stdout, "stdout")
	assert.Contains(t, stderr, "3 records from 1 capture(s) written to "+out, "stderr")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	tr := parseCLITrace(t, data)
	var got []string
	for _, e := range tr.TraceEvents {
		got = append(got, e.Name)
	}
	assert.Equal(t, []string{"process_name", "thread_name", "thread_sort_index", "thread_name", "thread_sort_index",
		"Expert3_Gate_WaitDependency_task1", "Down_task1", "Expert3_TaskType_MatMul_task2"}, got)
	assert.Equal(t, "MoE rank 0 device 0", tr.TraceEvents[0].Args["name"], "tr.TraceEvents[0].Args[\"name\"]")
	assert.Equal(t, "Ascend910B2", tr.MegaKernelCycleTrace["socName"], "tr.MegaKernelCycleTrace[\"socName\"]")
	assert.Equal(t, 50.0, tr.MegaKernelCycleTrace["cycleFrequencyMHz"], "tr.MegaKernelCycleTrace[\"cycleFrequencyMHz\"]")
	assert.Equal(t, abi.FingerprintHex, tr.MegaKernelCycleTrace["abiFingerprint"], "tr.MegaKernelCycleTrace[\"abiFingerprint\"]")

	// --freq-mhz overrides the SoC; the trace then records an unknown SoC.
	_, stderr, code = runMain(t, "decode", capturePath, "-o", out, "--freq-mhz", "1000", "--rank", "4", "--device-id", "9")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, _ = os.ReadFile(out)
	tr = parseCLITrace(t, data)
	assert.Equal(t, "unknown", tr.MegaKernelCycleTrace["socName"], "tr.MegaKernelCycleTrace[\"socName\"]")
	assert.Equal(t, 1000.0, tr.MegaKernelCycleTrace["cycleFrequencyMHz"], "tr.MegaKernelCycleTrace[\"cycleFrequencyMHz\"]")
	assert.Equal(t, "MegaKernel rank 4 device 9", tr.TraceEvents[0].Args["name"], "tr.TraceEvents[0].Args[\"name\"]")
	assert.Equal(t, 4, tr.TraceEvents[0].Pid, "tr.TraceEvents[0].Pid")
}

func TestDecodeCommandStdoutAndGzip(t *testing.T) {
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	t.Chdir(t.TempDir())

	stdout, stderr, code := runMain(t, "decode", capturePath, "-o", "-")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Equal(t, 8, len(parseCLITrace(t, []byte(stdout)).TraceEvents), "len(parseCLITrace(t, []byte(stdout)).TraceEvents)")
	assert.Contains(t, stderr, "written to stdout", "stderr")
	_, err := os.Stat("trace.json")
	assert.True(t, os.IsNotExist(err), "o - also wrote trace.json: os.IsNotExist(err) = false, want true")

	stdout, stderr, code = runMain(t, "decode", capturePath, "-o", "t.json.gz")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Empty(t, stdout, "stdout")
	f, err := os.Open("t.json.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	data, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, 8, len(parseCLITrace(t, data).TraceEvents), "len(parseCLITrace(t, data).TraceEvents)")

	// The default output is trace.json in the working directory.
	_, stderr, code = runMain(t, "decode", capturePath)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	_, err = os.Stat("trace.json")
	assert.NoError(t, err)
}

// --format perfetto, or an output name ending in .pftrace or
// .perfetto-trace (before a .gz), writes the protobuf trace; --format
// json wins over the name; the default name follows the format.
func TestDecodeCommandPerfetto(t *testing.T) {
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	moeBin, err := filepath.Abs(moeCapture)
	require.NoError(t, err)
	moeYAML, err := filepath.Abs(moePlan)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	isPerfetto := func(data []byte) bool {
		return len(data) > 0 && data[0] == 0x0a && bytes.Contains(data, []byte("megaKernelCycleTrace")) &&
			bytes.Contains(data, []byte("TaskType_MatMul"))
	}

	_, stderr, code := runMain(t, "decode", capturePath, "-o", "t.pftrace")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "written to t.pftrace; layout ", "stderr")
	assert.Contains(t, stderr, "; open it in https://ui.perfetto.dev (Open trace file) or trace_processor\n", "stderr")
	data, err := os.ReadFile("t.pftrace")
	require.NoError(t, err)
	assert.True(t, isPerfetto(data), "t.pftrace is not a Perfetto trace: isPerfetto(data) = false, want true")

	_, stderr, code = runMain(t, "decode", capturePath, "--format", "perfetto")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, err = os.ReadFile("trace.pftrace")
	require.NoError(t, err, "format perfetto without -o writes trace.pftrace")
	assert.True(t, isPerfetto(data), "isPerfetto(data) = false, want true")

	_, stderr, code = runMain(t, "decode", capturePath, "-o", "t.perfetto-trace.gz")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	f, err := os.Open("t.perfetto-trace.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	data, err = io.ReadAll(zr)
	require.NoError(t, err)
	assert.True(t, isPerfetto(data), "isPerfetto(data) = false, want true")

	_, stderr, code = runMain(t, "decode", capturePath, "--format", "json", "-o", "j.pftrace")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, _ = os.ReadFile("j.pftrace")
	assert.Equal(t, 8, len(parseCLITrace(t, data).TraceEvents), "len(parseCLITrace(t, data).TraceEvents)")
	assert.Contains(t, stderr, "cycleabi: warning: j.pftrace: writing JSON (--format json) to a name that says a Perfetto protobuf trace\n", "stderr")

	// The reverse is written as asked, with the same kind of warning; a
	// name that claims neither format draws none.
	_, stderr, code = runMain(t, "decode", capturePath, "--format", "perfetto", "-o", "p.json.gz")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "cycleabi: warning: p.json.gz: writing a Perfetto protobuf trace (--format perfetto) to a name that says JSON\n", "stderr")
	for _, args := range [][]string{{"-o", "n.bin", "--format", "perfetto"}, {"-o", "n.trace", "--format", "json"}, {"-o", "x.pftrace"}, {"-o", "x.json"}} {
		_, stderr, code = runMain(t, append([]string{"decode", capturePath}, args...)...)
		require.Equalf(t, ExitOK, code, "%s: code", stderr)
		assert.NotContainsf(t, stderr, "warning: ", "%v: stderr = %q, want no %q", args, stderr, "warning: ")
	}

	_, stderr, code = runMain(t, "decode", capturePath, "--format", "proto")
	assert.Equal(t, ExitUsage, code, "code")
	assert.Contains(t, stderr, `--format "proto": want json or perfetto`, "stderr")

	// With the schedule it ran, the example's arrows are flows.
	_, stderr, code = runMain(t, "decode", moeBin, "--plan", moeYAML, "-o", "moe.pftrace")
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "952 dependency arrows (releasing), 0 waits without producer written to moe.pftrace", "stderr")
}

// A capture that breaks the ABI: exit 1, the message names the file, the
// byte offset and the slot, and no trace is left behind (an existing one
// is untouched).
func TestDecodeCommandInvalid(t *testing.T) {
	t.Parallel()
	good := writeCapture(t, "rank0.bin", decodeCapture().Bytes())
	b := decodeCapture()
	b.SetHeader32(abi.CoreTypeAIV, 0, abi.CoreHeaderReservedOffset, 7)
	bad := writeCapture(t, "rank1.bin", b.Bytes())
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.json")

	_, stderr, code := runMain(t, "decode", good, bad, "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	off := b.HeaderOffset(abi.CoreTypeAIV, 0, abi.CoreHeaderReservedOffset)
	assert.Contains(t, stderr, fmt.Sprintf("%s: reserved-nonzero AIV/0 @%#x: reserved=0x7, expected 0", bad, off), "stderr")
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "a failed decode left files behind: entries")

	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	_, _, code = runMain(t, "decode", bad, "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	data, _ := os.ReadFile(out)
	assert.Equal(t, "old", string(data), "a failed decode replaced the old trace: string(data)")
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 1, "len(entries)")

	// A negative interval names the record too.
	n := decodeCapture()
	n.Put64(n.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordEndCycleOffset), 5)
	neg := writeCapture(t, "neg.npy", capturetest.NPY(n.Bytes()))
	_, stderr, code = runMain(t, "decode", neg, "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	npyOff := int64(len(capturetest.NPY(nil))) + int64(n.RecordOffset(abi.CoreTypeAIC, 0, 1, abi.ProfileRecordEndCycleOffset))
	assert.Contains(t, stderr, fmt.Sprintf("%s: negative-interval AIC/0 record 1 @%#x", neg, npyOff), "stderr")
}

func TestDecodeCommandUsage(t *testing.T) {
	t.Parallel()
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	other := writeCapture(t, "other.bin", decodeCapture().Bytes())
	badNames := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(badNames, []byte("tasks:\n  x: a\n"), 0o644))
	out := filepath.Join(t.TempDir(), "t.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"decode"}, "decode needs at least one CAPTURE"},
		{[]string{"decode", capturePath, "--freq-mhz", "0"}, "--freq-mhz 0 is not a system-counter frequency (0.001 to 1e+06 MHz)"},
		{[]string{"decode", capturePath, "--freq-mhz", "-5"}, "--freq-mhz -5 is not"},
		{[]string{"decode", capturePath, "--freq-mhz", "NaN"}, "--freq-mhz NaN is not"},
		{[]string{"decode", capturePath, "--freq-mhz", "+Inf"}, "--freq-mhz +Inf is not"},
		{[]string{"decode", capturePath, "--soc", "tpu4"}, "--soc:"},
		{[]string{"decode", capturePath, "--aic-capacity", "16"}, "--aic-capacity given without --aiv-capacity"},
		{[]string{"decode", capturePath, "--cube-slots", "8"}, "below the schema's minimum"},
		{append([]string{"decode", capturePath}, capacityArgs(map[abi.CoreType]uint32{abi.CoreTypeAIC: 17}, 16)...), "--aic-capacity 17"},
		{[]string{"decode", capturePath, other}, "cannot tell the rank of " + capturePath},
		{[]string{"decode", capturePath, other, "--rank", "1"}, "1 --rank values for 2 captures"},
		{[]string{"decode", capturePath, other, "--rank", "1", "--rank", "1"}, "both have rank 1"},
		{[]string{"decode", capturePath, "--rank", "4294967295"}, "exceeds"},
		{[]string{"decode", capturePath, other, "--rank", "1,2", "--device-id", "3"}, "1 --device-id values for 2 captures"},
		{[]string{"decode", capturePath, "--names", badNames}, badNames + ":2:3: tasks.x: key \"x\" is not an id"},
		{[]string{"decode", capturePath, "--names", badNames + ".missing"}, "names file not found"},
		{[]string{"decode", filepath.Join(t.TempDir(), "missing.bin")}, "no such file"},
		{[]string{"decode", capturePath, "-o", filepath.Join(t.TempDir(), "no", "dir", "t.json")}, "no such file"},
		{[]string{"decode", capturePath, "--bogus"}, "unknown flag: --bogus"},
	} {
		args := append(tc.args, "-o", out)
		if strings.Contains(strings.Join(tc.args, " "), " -o ") {
			args = tc.args
		}
		_, stderr, code := runMain(t, args...)
		assert.Equalf(t, ExitUsage, code, "%v: %s: code", tc.args, stderr)
		assert.Containsf(t, stderr, tc.want, "%v: stderr", tc.args)
	}
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a usage error wrote a trace: os.IsNotExist(err) = false, want true")
}

// Several captures: one trace, pid = rank from the file names (or --rank
// in order), each capture's own events.
func TestDecodeCommandRanks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r3 := filepath.Join(dir, "rank3.bin")
	r1 := filepath.Join(dir, "capture_r1.npy")
	require.NoError(t, os.WriteFile(r3, decodeCapture().Bytes(), 0o644))
	one := capturetest.New(abi.MinCubeSlots, 16, 16)
	one.Enter(abi.CoreTypeAIC, 0, 5).Span(abi.CoreTypeAIC, 0, 5, 9, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	one.Enter(abi.CoreTypeAIV, 0, 5)
	require.NoError(t, os.WriteFile(r1, capturetest.NPY(one.Bytes()), 0o644))
	out := filepath.Join(dir, "t.json")

	pidsOf := func(tr *cliTrace) map[int]int {
		x := map[int]int{}
		for _, e := range tr.TraceEvents {
			if e.Ph == "X" {
				x[e.Pid]++
			}
		}
		return x
	}
	_, stderr, code := runMain(t, "decode", r3, r1, "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, _ := os.ReadFile(out)
	tr := parseCLITrace(t, data)
	assert.Equal(t, map[int]int{3: 3, 1: 1}, pidsOf(tr), "pidsOf(tr)")
	ranks := tr.MegaKernelCycleTrace["ranks"].([]any)
	require.Len(t, ranks, 2, "len(ranks)")
	assert.Equal(t, 3.0, ranks[0].(map[string]any)["rank"], "ranks[0].(map[string]any)[\"rank\"]")
	assert.Equal(t, 3.0, ranks[0].(map[string]any)["deviceId"], "device id defaults to the rank: ranks[0].(map[string]any)[\"deviceId\"]")
	assert.Equal(t, 4.0, tr.MegaKernelCycleTrace["recordCount"], "tr.MegaKernelCycleTrace[\"recordCount\"]")

	_, stderr, code = runMain(t, "decode", r3, r1, "--rank", "7", "--rank", "8", "--device-id", "0,1", "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, _ = os.ReadFile(out)
	tr = parseCLITrace(t, data)
	assert.Equal(t, map[int]int{7: 3, 8: 1}, pidsOf(tr), "pidsOf(tr)")
	var processes []any
	for _, e := range tr.TraceEvents {
		if e.Name == "process_name" {
			processes = append(processes, e.Args["name"])
		}
	}
	assert.Equal(t, []any{"MegaKernel rank 7 device 0", "MegaKernel rank 8 device 1"}, processes, "processes")
}

func TestRankFromName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int{
		"rank3.bin": 3, "/data/rank_12/x.bin": -1, "run/rank-5.npy": 5, "capture_r3.npy": 3, "r0.bin": 0,
		"Rank7.bin": 7, "node2_rank5.bin": 5, "moe_layer.bin": -1, "trace_2024.bin": -1, "err3.bin": -1,
		"r3x.bin": -1,
	} {
		r, ok, err := input.RankFromName(name)
		require.NoErrorf(t, err, "%s", name)
		got := int(r)
		if !ok {
			got = -1
		}
		assert.Equalf(t, want, got, "%s", name)
	}
	// A rank that cannot be a pid is an error, never rank 0.
	for _, name := range []string{"rank99999999999.bin", "rank2147483648.bin", "capture_r99999999999999999999999.npy"} {
		_, _, err := input.RankFromName(name)
		assert.ErrorContainsf(t, err, "exceeds 2147483647", "%s: error %v, want one containing %q", name, err, "exceeds 2147483647")
	}
	_, err := input.CaptureRanks([]string{"rank99999999999.bin"}, nil)
	want := "rank99999999999.bin: rank 99999999999 in the file name exceeds"
	assert.ErrorContainsf(t, err, want, "error %v, want one containing %q", err, want)
}

func TestDecodeCommandHelp(t *testing.T) {
	t.Parallel()
	stdout, _, code := runMain(t, "decode", "--help")
	require.Equal(t, ExitOK, code, "code")
	for _, flag := range []string{"--output", "--cube-slots", "--aic-capacity", "--aiv-capacity", "--soc", "--freq-mhz",
		"--detailed-names", "--names", "--kernel-name", "--owner-label", "--rank", "--device-id", "--plan", "--partial", "--negative-ts", "ui.perfetto.dev", "docs/decode.md"} {
		assert.Contains(t, stdout, flag, "stdout")
	}
	assert.Contains(t, string([]byte(stdout)), string([]byte("Exit status")), "bytes.Contains([]byte(stdout), []byte(\"Exit status\")) = false, want true")
	assert.NotContainsf(t, stdout, "(default [])", "an empty list default says nothing: stdout = %q, want no %q", stdout, "(default [])")
	// The rank flags still parse after their DefValue was blanked.
	_, _, code = runMain(t, "decode", "--help", "--rank", "1", "--rank", "2")
	assert.Equal(t, ExitOK, code, "code")
}

// The progress bar is for a person watching a terminal: never on a pipe,
// a file or a buffer, never for short work.
func TestDecodeProgressBarOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, ProgressBar(f, 1<<30), "a file is not a terminal: progressBar(f, 1<<30)")
	assert.Nil(t, ProgressBar(&bytes.Buffer{}, 1<<30), "progressBar(&bytes.Buffer{}, 1<<30)")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.Nil(t, ProgressBar(tty, 10), "short work gets no bar: progressBar(tty, 10)")
	}
}

// idleFirstSlot writes a small schedule and a capture of its plan in which
// AIC/0 never ran (its header is all zero) while AIC/1 and AIV/0 did.
func idleFirstSlot(t *testing.T) (capturePath, schedulePath string) {
	t.Helper()
	schedule := writeSchedule(t, "num_workers: 4\ntasks: [{task_type: MatMul}, {task_type: MatMul}, {task_type: AddCustom}]\n"+
		"cube_task_indices: [0, 1]\nvector_task_indices: [2]\n")
	s, err := plan.ParseFile(schedule)
	require.NoError(t, err)
	r, err := plan.Plan(s)
	require.NoError(t, err)
	b := capturetest.NewWith(r.CubeSlotCount, r.Capacities())
	b.Enter(abi.CoreTypeAIC, 1, 1000).Span(abi.CoreTypeAIC, 1, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	b.Enter(abi.CoreTypeAIV, 0, 1000).Span(abi.CoreTypeAIV, 0, 1100, 1150, abi.TaskTypeBase+uint32(abi.TaskTypeAddCustom), 2)
	return writeCapture(t, "idle.bin", b.Bytes()), schedule
}

// An unused AIC/0 states no capacity: decode reads the layout from it, fails
// and says why; with --plan the plan's capacities stand in, as for validate,
// and the same capture decodes and validates.
func TestDecodeCommandPlan(t *testing.T) {
	t.Parallel()
	idle, schedule := idleFirstSlot(t)
	out := filepath.Join(t.TempDir(), "trace.json")

	// An unused AIC/0 no longer needs the plan: AIC/1 states the capacity.
	_, stderr, code := runMain(t, "decode", idle, "-o", out)
	assert.Equalf(t, ExitOK, code, "%s: code", stderr)
	assert.Contains(t, stderr, "AIC capacity 16 from the AIC/1 header at @0x240 (AIC/0 is unused)", "stderr")
	_, code, _ = runOut(t, "validate", idle)
	assert.Equal(t, ExitOK, code, "validate agrees with decode without the plan: code")

	_, stderr, code = runMain(t, "decode", idle, "--plan", schedule, "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	tr := parseCLITrace(t, data)
	spans := 0
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			spans++
		}
	}
	assert.Equal(t, 2, spans, "spans")
	_, code, errOut := runOut(t, "validate", idle, "--plan", schedule)
	assert.Equalf(t, ExitOK, code, "validate agrees with decode with the plan: %v: code", errOut)

	// --cube-slots overrides the plan's count; the headers contradict it.
	_, stderr, code = runMain(t, "decode", idle, "--plan", schedule, "--cube-slots", "25", "-o", out)
	assert.Equal(t, ExitInvalid, code, "code")
	assert.Contains(t, stderr, "layout-mismatch", "stderr")
	assert.Contains(t, stderr, "says 24 cube slots; the flags say 25", "stderr")
	// A schedule that does not plan is a usage error.
	_, stderr, code = runMain(t, "decode", idle, "--plan", writeSchedule(t, "num_workers: 3\ntasks: []\n"), "-o", out)
	assert.Equal(t, ExitUsage, code, "code")
	assert.Contains(t, stderr, "--plan", "stderr")
}

// decode says, one line per kind with a count, what the viewer will show
// differently from what the device wrote, on stderr and in the trace's
// warnings; never one line per record.
func TestDecodeCommandWarningCounts(t *testing.T) {
	t.Parallel()
	b := decodeCapture()
	// AIV/1: three records out of start order, two of them overlapping
	// an earlier one, and one starting before the core's entry and the
	// anchor (1000).
	b.Enter(abi.CoreTypeAIV, 1, 1020).
		Span(abi.CoreTypeAIV, 1, 1200, 1400, abi.GraphStageBase, 5).
		Span(abi.CoreTypeAIV, 1, 1100, 1300, abi.GraphStageBase, 6).
		Span(abi.CoreTypeAIV, 1, 1250, 1260, abi.GraphStageBase, 7).
		Span(abi.CoreTypeAIV, 1, 900, 950, abi.GraphStageBase, 8)
	b.SetHeader32(abi.CoreTypeAIV, 1, abi.CoreHeaderDroppedCountOffset, 2)
	capturePath := writeCapture(t, "cap.bin", b.Bytes())
	out := filepath.Join(t.TempDir(), "trace.json")
	_, stderr, code := runMain(t, "decode", capturePath, "-o", out)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	want := []string{
		"Device dropped 2 cycle trace records; plan larger capacities; run validate for offsets",
		"2 records overlap an earlier record of their core (viewers move them to another track); run validate for offsets",
		"1 record starts before their core's entry_cycle; run validate for offsets",
		"1 record starts before the trace's anchor cycle; every timestamp is moved later by the same time, so that none is negative; run validate for offsets",
		"1 slot holds records out of start_cycle order (shown sorted); run validate for offsets",
	}
	for _, w := range want {
		assert.Contains(t, stderr, "cycleabi: warning: "+capturePath+" (rank 0): "+w+"\n", "stderr")
	}
	assert.Equalf(t, len(want)+1, strings.Count(stderr, "\n"), "%s: strings.Count(stderr, \"\\n\")", stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	tr := parseCLITrace(t, data)
	var got []string
	for _, w := range tr.MegaKernelCycleTrace["warnings"].([]any) {
		got = append(got, w.(string))
	}
	want[0] = "Device dropped 2 cycle trace records"
	assert.Equal(t, want, got)

	// validate counts the same: the line points at it for the offsets.
	stdout, _, _ := runMain(t, "validate", capturePath)
	for _, c := range []string{"overlap 2", "before-entry 1", "unsorted-slot 1"} {
		assert.Contains(t, stdout, c, "stdout")
	}
}

// TestDecodeNamesTraceRanksOnce: decode's stderr names each capture with
// its rank once: a capture of a JSON trace of several ranks is named by
// the trace with its rank already ("two.json (rank 1)"), which decode's
// warnings and layout lines said again ("two.json (rank 1) (rank 1)").
func TestDecodeNamesTraceRanksOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ex := "../../../examples/moe_layer.bin" // 10 records dropped: a warning per capture
	two := filepath.Join(dir, "two.json")
	_, stderr, code := runMain(t, "decode", ex, ex, "--rank", "0", "--rank", "1", "-o", two)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	_, stderr, code = runMain(t, "decode", two, "-o", filepath.Join(dir, "again.json"))
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	for _, want := range []string{
		"cycleabi: warning: " + two + " (rank 1): Device dropped 10",
		"cycleabi: " + two + " (rank 1): layout 24 cube slots",
	} {
		assert.Contains(t, stderr, want, "stderr lacks")
	}
	require.NotContainsf(t, stderr, "(rank 0) (rank 0)", "a rank said twice:\n%s", stderr)
	assert.NotContainsf(t, stderr, "(rank 1) (rank 1)", "a rank said twice:\n%s", stderr)
	// A capture file is named with its rank, as before.
	_, stderr, _ = runMain(t, "decode", ex, ex, "--rank", "0", "--rank", "1", "-o", filepath.Join(dir, "three.json"))
	assert.Contains(t, stderr, "cycleabi: "+ex+" (rank 1): layout", "a capture file is not named with its rank")
}

// TestSwappedNamesAndPlan: the schedule given as --names, or the names
// file as --plan, is named for what it is, in one line, exit 2; the
// parser's half-dozen "unknown key" lines said nothing of the mix-up.
func TestSwappedNamesAndPlan(t *testing.T) {
	t.Parallel()
	const ex, sched, names = "../../../examples/moe_layer.bin", "../../../examples/moe_layer.yaml", "../../../examples/moe_layer.names.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", ex, "--names", sched}, "cycleabi: --names " + sched + " is not a names file: it is a schedule: give it with --plan\n"},
		{[]string{"decode", ex, "--plan", names, "-o", filepath.Join(t.TempDir(), "t.json")}, "cycleabi: --plan " + names + " is not a schedule: it is a names file: give it with --names\n"},
		{[]string{"analyze", ex, "--names", ex}, "cycleabi: --names " + ex + " is not a names file: it is binary data (a capture?), which commands take as an argument\n"},
	} {
		_, stderr, code := runMain(t, c.args...)
		assert.Equalf(t, ExitUsage, code, "%v: code", c.args)
		assert.Equalf(t, c.want, stderr, "%v: code", c.args)
	}
}
