// Package scripts holds the shell scripts of the build; this test drives
// fuzz.sh with a stub go command to check how it treats each outcome.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubGo stands in for the go command: it lists one package with one fuzz
// target, and each fuzz run behaves as $MODE says, counting runs in
// $STUB_RUNS.
const stubGo = `#!/usr/bin/env bash
case "$1 $2" in
"list ./...") echo example.com/p ;;
"test -list") echo FuzzX ;;
"list -f") echo "$STUB_PKG" ;;
"test -run")
	n=$(cat "$STUB_RUNS" 2>/dev/null || echo 0); echo $((n+1)) > "$STUB_RUNS"
	race() { printf -- '--- FAIL: FuzzX (10.2s)\n    context deadline exceeded\nFAIL\n'; exit 1; }
	case "$MODE" in
	pass) echo PASS ;;
	race-twice) [ "$n" -lt 2 ] && race; echo PASS ;;
	race-always) race ;;
	crasher) mkdir -p "$STUB_PKG/testdata/fuzz/FuzzX"; touch "$STUB_PKG/testdata/fuzz/FuzzX/0123"; race ;;
	seed) printf -- '--- FAIL: FuzzX/seed-1\n    boom\n'; exit 1 ;;
	esac ;;
esac
`

func TestFuzzScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := os.ReadFile("fuzz.sh")
	require.NoError(t, err)
	for _, tc := range []struct {
		mode string
		ok   bool
		runs string
	}{
		{"pass", true, "1"},
		{"race-twice", true, "3"},   // the Go deadline race: run again, and it passes
		{"race-always", false, "3"}, // at most two retries
		{"crasher", false, "1"},     // a new failing input is a failure, whatever the message
		{"seed", false, "1"},        // any other failure is a failure
	} {
		t.Run(tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"bin", "repo/scripts", "repo/p"} {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
			}
			write := func(path, text string, mode os.FileMode) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(text), mode))
			}
			write("bin/go", stubGo, 0o755)
			write("repo/scripts/fuzz.sh", string(script), 0o755)
			runs := filepath.Join(dir, "runs")
			cmd := exec.Command("bash", filepath.Join(dir, "repo/scripts/fuzz.sh"), "10s")
			cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"),
				"MODE="+tc.mode, "STUB_RUNS="+runs, "STUB_PKG="+filepath.Join(dir, "repo/p"))
			out, err := cmd.CombinedOutput()
			require.Equalf(t, tc.ok, (err == nil), "exit error %v, want ok:\n%s", err, out)
			got, _ := os.ReadFile(runs)
			assert.Equalf(t, tc.runs, strings.TrimSpace(string(got)), "fuzz runs:\n%s", out)
		})
	}
}
