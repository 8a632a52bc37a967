package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubNvcc stands in for nvcc: each program it "builds" is a script that
// answers toy_moe's subcommands without a GPU: capture writes what
// cycleabi synth makes of the schedule (the plan-sized buffer the kernel
// would write), the others print figures, the live reader's incomplete
// count taken from $STUB_INCOMPLETE.
const stubNvcc = `#!/usr/bin/env bash
if [ "$1" = --version ]; then echo "Cuda compilation tools, release 13.0, stub"; exit 0; fi
out=""; prev=""
for a in "$@"; do [ "$prev" = -o ] && out="$a"; prev="$a"; done
case "$out" in
*.so) : >"$out" ;;
*) cat >"$out" <<'TOY'
#!/usr/bin/env bash
echo "result mode stub"
case "$1" in
capture) cycleabi synth examples/moe_layer.yaml -o "$3" >/dev/null || exit 1
	echo "result capture_bytes 188928"; echo "result capture_kernel_us 750.0" ;;
bench) echo "result bare_loop_ns 35.0"; echo "result record_loop_ns 50.0"; echo "result record_ns 15.0" ;;
time) echo "result off_us 747.0"; echo "result on_us 752.0"; echo "result slowdown_pct 0.67" ;;
live) echo "result live_records_checked 119360"; echo "result live_records_seen_running 90000"
	echo "result live_incomplete $STUB_INCOMPLETE" ;;
hang) cycleabi synth examples/moe_layer.yaml --skip-trigger "${STUB_HANG_ROOT:-0}" -o "$3" >/dev/null || exit 1
	echo "result hang_task 0"; echo "result hang_read_while_stuck 1"; echo "result hang_cores_stopped 48" ;;
esac
TOY
	chmod +x "$out" ;;
esac
`

const stubNvidiaSMI = `#!/usr/bin/env bash
case "$*" in
-L) echo "GPU 0: Stub H200" ;;
*compute_cap*) echo "9.0" ;;
*) echo "Stub H200, 000.00" ;;
esac
`

// TestGPUCheckScript runs scripts/gpu-check.sh on this checkout with a
// stub nvcc and nvidia-smi (no GPU here): every host step of the chain
// (build of the commands, task table, validate, decode, analyze, report,
// export, the summary) runs for real on a capture of the planned size; a
// live reader that saw incomplete records fails the run; and without nvcc
// the script checks nothing and exits 0, or 1 under GPU_CHECK_REQUIRE=1.
func TestGPUCheckScript(t *testing.T) {
	short.Skip(t, "builds the commands")
	for _, tool := range []string{"bash", "go", "python3", "timeout", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	stubs := t.TempDir()
	for name, text := range map[string]string{"nvcc": stubNvcc, "nvidia-smi": stubNvidiaSMI} {
		require.NoError(t, os.WriteFile(filepath.Join(stubs, name), []byte(text), 0o755))
	}
	run := func(env ...string) (string, error) {
		cmd := exec.Command("bash", "gpu-check.sh", t.TempDir())
		cmd.Env = append(append(os.Environ(), "PATH="+stubs+":"+os.Getenv("PATH"), "PYTHON=python3"), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("STUB_INCOMPLETE=0")
	require.NoErrorf(t, err, "gpu-check with a clean live reader\n%s", out)
	for _, want := range []string{
		"| validate | ok | 2984 records, 0 errors, 0 warnings, plan matched, 188928 bytes = plan |",
		"| arrows | ok | 952 arrows |",
		"| export | ok |",
		"| cost every | ok | 50.0 ns/Record (bare loop 35.0 ns); schedule +0.67 % (747.0 → 752.0 µs); goal met (≤ 300 ns) |",
		"| cost exit | ok | 50.0 ns/Record",
		"| live | ok | 119360 records checked (90000 while the kernel ran), 0 incomplete",
		"| hang | ok | task 0's trigger withheld, buffer read while stuck: 1; analyze's root: trigger-not-sent:0 |",
	} {
		assert.Contains(t, out, want, "the summary lacks")
	}

	// A capture whose hang analyze puts elsewhere (another task's trigger
	// withheld than the kernel says) fails the hang check.
	out, err = run("STUB_INCOMPLETE=0", "STUB_HANG_ROOT=1")
	require.Errorf(t, err, "gpu-check with a hang analyze roots elsewhere: %v", err)
	assert.Containsf(t, out, "| hang | FAIL | task 0's trigger withheld, buffer read while stuck: 1; analyze's root: trigger-not-sent:1 |", "gpu-check with a hang analyze roots elsewhere: %v", err)

	out, err = run("STUB_INCOMPLETE=3")
	require.Errorf(t, err, "gpu-check with 3 incomplete live records: %v", err)
	assert.Containsf(t, out, "| live | FAIL | 119360 records checked (90000 while the kernel ran), 3 incomplete", "gpu-check with 3 incomplete live records: %v", err)

	out, err = run("NVCC=" + filepath.Join(stubs, "no-such-nvcc"))
	require.NoError(t, err, "gpu-check without nvcc")
	assert.Contains(t, out, "nothing was checked", "gpu-check without nvcc")
	out, err = run("NVCC="+filepath.Join(stubs, "no-such-nvcc"), "GPU_CHECK_REQUIRE=1")
	assert.Errorf(t, err, "gpu-check without nvcc under GPU_CHECK_REQUIRE=1 exited 0:\n%s", out)

	// A GPU machine without Go: the programs built here (make
	// gpu-check-bin), carried as GPU_CHECK_BIN, and no go on PATH.
	prebuilt := t.TempDir()
	build := exec.Command("go", "build", "-o", prebuilt+string(filepath.Separator), "../cmd/cycleabi", "../examples/cuda/tasktable")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := build.CombinedOutput()
	require.NoErrorf(t, err, "go build\n%s", b)
	var noGo []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
			noGo = append(noGo, dir)
		}
	}
	withoutGo := func(env ...string) (string, error) {
		cmd := exec.Command("bash", "gpu-check.sh", t.TempDir())
		cmd.Env = append(append(os.Environ(), "PATH="+stubs+":"+strings.Join(noGo, ":"), "PYTHON=python3", "STUB_INCOMPLETE=0"), env...)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out, err = withoutGo("GPU_CHECK_BIN=" + prebuilt)
	require.NoError(t, err, "gpu-check with GPU_CHECK_BIN and no go")
	assert.Contains(t, out, "| arrows | ok | 952 arrows |", "gpu-check with GPU_CHECK_BIN and no go")
	out, err = withoutGo()
	require.NoError(t, err, "gpu-check with neither go nor GPU_CHECK_BIN")
	require.Contains(t, out, "nothing was checked", "gpu-check with neither go nor GPU_CHECK_BIN")
	assert.Contains(t, out, "GPU_CHECK_BIN", "gpu-check with neither go nor GPU_CHECK_BIN")
}
