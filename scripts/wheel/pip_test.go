package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/megakernel/cycleabi/internal/testkit/pytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireVenv turns "python3 -m venv does not work here" from a skip into
// a failure (make ci sets it; Debian's python3-venv provides it).
const requireVenv = "CYCLEABI_REQUIRE_VENV"

// venvPython makes a fresh virtual environment in dir and returns its
// interpreter. The environment sees the system's site-packages, where
// NumPy is (the wheel requires it and pip install --no-index cannot
// fetch it); pip installs into the environment itself.
func venvPython(t *testing.T, dir string) string {
	t.Helper()
	py := pytest.Interpreter(t)
	if out, err := exec.Command(py, "-c", "import venv, ensurepip").CombinedOutput(); err != nil {
		msg := py + " has no venv with pip (apt-get install python3-venv): " + strings.TrimSpace(string(out))
		require.Empty(t, os.Getenv(requireVenv), msg+" ("+requireVenv+" is set)")
		t.Skip(msg + "; set " + requireVenv + " to fail instead")
	}
	env := filepath.Join(dir, "venv")
	out, err := exec.Command(py, "-m", "venv", "--system-site-packages", env).CombinedOutput()
	require.NoErrorf(t, err, "%s -m venv\n%s", py, out)
	return filepath.Join(env, "bin", "python")
}

// TestPipInstall installs the host's wheel into a fresh venv with pip,
// offline (--no-index), and uses it as a user would: the programs from the
// venv's bin, not from PATH; import cycleabi reads the example capture;
// cycleabi.analyze gives what `cycleabi analyze --format json` prints,
// for a capture and for the JSON trace decode writes of it.
func TestPipInstall(t *testing.T) {
	w := built(t)
	wheel := w[runtime.GOARCH]
	if wheel == "" {
		t.Skipf("no wheel for GOARCH %s", runtime.GOARCH)
	}
	dir := t.TempDir()
	python := venvPython(t, dir)
	bin := filepath.Dir(python)
	// PATH without the venv: the package must find its programs by itself.
	env := append(os.Environ(), "PIP_NO_INPUT=1", "PYTHONDONTWRITEBYTECODE=1")
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = root, env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoErrorf(t, err, "%s %s\n%s%s", name, strings.Join(args, " "), out, stderr.String())
		return out
	}
	run(python, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--disable-pip-version-check", "--quiet", wheel)

	cycleabi := filepath.Join(bin, "cycleabi")
	version := string(run(cycleabi, "--version"))
	// The version make build and go install print: VERSION's.
	assert.Truef(t, strings.HasPrefix(version, "cycleabi version "+buildinfo.Version()+"\n"), "cycleabi --version: %q, want version %s", version, buildinfo.Version())
	// The line of docs/python.md and the issue, as written.
	assert.Equal(t, "2974", strings.TrimSpace(string(run(python, "-c", "import cycleabi; print(len(cycleabi.read_capture('examples/moe_layer.bin').records()))"))), "records of examples/moe_layer.bin")
	script := `import cycleabi, sys
print(cycleabi.program())
print(cycleabi.desc_name(0x20000 + int(cycleabi.TaskType.SwiGLU)), cycleabi.family("MegaMoe").name, cycleabi.ABI_VERSION)
try:
    cycleabi.analyze("examples/moe_layer.yaml")
except cycleabi.CommandError as e:
    print(e.returncode, "examples/moe_layer.yaml" in str(e))
`
	lines := strings.Split(strings.TrimSpace(string(run(python, "-c", script))), "\n")
	names := fmt.Sprintf("TaskType_SwiGLU MegaMoe %d", abi.Version) // the ABI version the generated module states
	if assert.Lenf(t, lines, 3, "program, names, analyze of a schedule:\n%s", strings.Join(lines, "\n")) {
		assert.Equal(t, cycleabi, lines[0], "program")
		assert.Equal(t, names, lines[1], "names")
		assert.Equal(t, "1 True", lines[2], "analyze of a schedule")
	}

	trace := filepath.Join(dir, "moe.trace.json")
	run(cycleabi, "decode", "examples/moe_layer.bin", "--names", "examples/moe_layer.names.yaml", "-o", trace)
	for _, c := range []struct {
		name string
		args []string // analyze's arguments
		py   string   // the same as cycleabi.analyze's
	}{
		{"capture", []string{"examples/moe_layer.bin", "--plan", "examples/moe_layer.yaml", "--names", "examples/moe_layer.names.yaml"},
			`cycleabi.analyze("examples/moe_layer.bin", plan="examples/moe_layer.yaml", names="examples/moe_layer.names.yaml")`},
		{"JSON trace", []string{trace, "--plan", "examples/moe_layer.yaml", "--top", "3"},
			`cycleabi.analyze(sys.argv[1], plan="examples/moe_layer.yaml", top=3)`},
	} {
		cli := run(cycleabi, append([]string{"analyze", "--format", "json"}, c.args...)...)
		py := run(python, "-c", "import cycleabi, json, sys; print(json.dumps("+c.py+"))", trace)
		var a, b any
		require.NoErrorf(t, json.Unmarshal(cli, &a), "%s: the CLI's JSON", c.name)
		require.NoErrorf(t, json.Unmarshal(py, &b), "%s: cycleabi.analyze's dict as JSON", c.name)
		assert.Equalf(t, b, a, "%s: cycleabi.analyze differs from cycleabi analyze --format json:\n%.400s\nwant\n%.400s", c.name, py, cli)
		// The CLI counts the records Python read.
		var counts struct{ Ranks []struct{ Records int } }
		require.NoErrorf(t, json.Unmarshal(cli, &counts), "%s: analyze's ranks", c.name)
		require.Lenf(t, counts.Ranks, 1, "%s: analyze's ranks", c.name)
		assert.Equalf(t, 2974, counts.Ranks[0].Records, "%s: analyze's ranks", c.name)
	}
}
