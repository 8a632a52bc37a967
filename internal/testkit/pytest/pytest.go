// Package pytest finds a Python interpreter that imports NumPy, for the
// tests that run the generated Python module (gen/py).
//
// The interpreter is CYCLEABI_PYTHON when set, else the first of `python3`
// on PATH and /usr/bin/python3 that imports NumPy >= 1.21 (on some
// machines the python3 first on PATH is a separate install without NumPy
// while the distribution's own has it). Without one a test is skipped with
// a message saying so, unless CYCLEABI_REQUIRE_PY is set (as `make ci`
// sets it), which turns the skip into a failure.
package pytest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// MinNumPy is the oldest NumPy the generated module supports.
const MinNumPy = "1.21"

var (
	once   sync.Once
	found  string
	report string // what was tried, for the skip or failure message
	numpy  string
)

// probe returns the NumPy version py imports, or an error saying why not.
func probe(py string) (string, error) {
	cmd := exec.Command(py, "-c", "import numpy, sys; print(numpy.__version__); print(sys.version.split()[0])")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return "", fmt.Errorf("%s", strings.TrimSpace(err.Error()+" "+msg))
	}
	lines := strings.Fields(string(out))
	if len(lines) < 2 {
		return "", fmt.Errorf("unexpected output %q", out)
	}
	if !atLeast(lines[0], MinNumPy) {
		return "", fmt.Errorf("NumPy %s is older than %s", lines[0], MinNumPy)
	}
	return "NumPy " + lines[0] + ", Python " + lines[1], nil
}

// atLeast compares dotted version prefixes numerically ("1.24.2" >= "1.21").
func atLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := range w {
		if i >= len(h) {
			return false
		}
		digits := h[i]
		if end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
			digits = digits[:end] // "21rc1" is 21
		}
		hn, _ := strconv.Atoi(digits)
		wn, _ := strconv.Atoi(w[i])
		if hn != wn {
			return hn > wn
		}
	}
	return true
}

func find() {
	var tried []string
	candidates := []string{}
	if env := os.Getenv("CYCLEABI_PYTHON"); env != "" {
		candidates = append(candidates, env)
	} else {
		if p, err := exec.LookPath("python3"); err == nil {
			candidates = append(candidates, p)
		} else {
			tried = append(tried, "python3: not on PATH")
		}
		candidates = append(candidates, "/usr/bin/python3")
	}
	for _, c := range candidates {
		v, err := probe(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		found, numpy = c, v
		return
	}
	report = strings.Join(tried, "; ")
}

// Required reports whether CYCLEABI_REQUIRE_PY asks for Python to be there.
func Required() bool {
	v := os.Getenv("CYCLEABI_REQUIRE_PY")
	return v != "" && v != "0"
}

// Interpreter returns the path of a Python interpreter that imports NumPy,
// logging which one it is. Without one it skips t, or fails it when
// CYCLEABI_REQUIRE_PY is set.
func Interpreter(t testing.TB) string {
	t.Helper()
	once.Do(find)
	if found == "" {
		msg := "no Python with NumPy >= " + MinNumPy + " (" + report + "); set CYCLEABI_PYTHON, or install python3-numpy"
		require.False(t, Required(), msg+" (CYCLEABI_REQUIRE_PY is set)")
		t.Skip(msg)
	}
	t.Logf("Python: %s (%s)", found, numpy)
	return found
}

// Run runs the Python program script with args in dir and returns its
// standard output; a failure fails t with the program's standard error.
func Run(t testing.TB, dir, script string, args ...string) []byte {
	t.Helper()
	return RunEnv(t, dir, nil, script, args...)
}

// RunEnv is Run with env ("KEY=value") added to the environment.
func RunEnv(t testing.TB, dir string, env []string, script string, args ...string) []byte {
	t.Helper()
	py := Interpreter(t)
	cmd := exec.Command(py, append([]string{"-c", script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s\n%s", py, stderr.String())
	return out
}
