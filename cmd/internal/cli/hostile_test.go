package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceBOMAndLeadingWhitespace: a trace that starts with a UTF-8 byte
// order mark, or with 600 spaces (more than the 512 bytes the sniffer
// read), or both, is read as the trace it is by every command, end to
// end. The mark made it "bad-capacity AIC/0", the spaces "blank text".
func TestTraceBOMAndLeadingWhitespace(t *testing.T) {
	plain := exampleTrace(t, "moe.json")
	text, err := os.ReadFile(plain)
	require.NoError(t, err)
	records := func(path string) int {
		t.Helper()
		stdout, stderr, code := runMain(t, "analyze", path, "--format", "json")
		require.Equalf(t, 0, code, "analyze %s: code, want 0: %s", filepath.Base(path), stderr)
		var r analyze.Report
		require.NoError(t, json.Unmarshal([]byte(stdout), &r))
		return int(r.Ranks[0].Records)
	}
	want := records(plain)
	dir := t.TempDir()
	for name, prefix := range map[string]string{
		"bom.json":       "\xef\xbb\xbf",
		"spaces.json":    strings.Repeat(" ", 600),
		"bomspaces.json": "\xef\xbb\xbf" + strings.Repeat(" ", 600) + "\n\t\r\n",
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, append([]byte(prefix), text...), 0o644))
		assert.Equalf(t, want, records(p), "%s", name)
		_, stderr, code := runMain(t, "validate", p)
		assert.Equalf(t, 0, code, "validate %s: code, want 0: %s", name, stderr)
		_, stderr, code = runMain(t, "decode", p, "-o", filepath.Join(dir, "out.json"))
		assert.Equalf(t, 0, code, "decode %s: code, want 0: %s", name, stderr)
	}
}

// TestTraceMissingRankCLI: a rank the trace's metadata lists with no
// event is a missing-capture warning in validate (exit 1 with --strict)
// and a warning in analyze; it vanished with exit 0.
func TestTraceMissingRankCLI(t *testing.T) {
	text, err := os.ReadFile(exampleTrace(t, "moe.json"))
	require.NoError(t, err)
	edited := strings.Replace(string(text), `"megaKernelCycleTrace":{`, `"megaKernelCycleTrace":{"ranks":[{"rank":0,"recordCount":2974,"droppedRecordCount":10},{"rank":2,"recordCount":2974}],`, 1)
	p := filepath.Join(t.TempDir(), "two.json")
	require.NoError(t, os.WriteFile(p, []byte(edited), 0o644))
	want := "megaKernelCycleTrace.ranks[1] (rank 2) has no events in the trace, where its recordCount says 2,974 records"
	stdout, stderr, code := runMain(t, "validate", p)
	require.Equalf(t, 0, code, "validate: code, want 0 and a missing-capture warning:\n%s%s", stdout, stderr)
	require.Containsf(t, stdout+stderr, want, "validate: code, want 0 and a missing-capture warning:\n%s%s", stdout, stderr)
	assert.Containsf(t, stdout+stderr, "missing-capture", "validate: code, want 0 and a missing-capture warning:\n%s%s", stdout, stderr)
	_, _, code = runMain(t, "validate", "--strict", p)
	assert.Equal(t, 1, code, "validate --strict: code")
	stdout, stderr, code = runMain(t, "analyze", p)
	assert.Equalf(t, 0, code, "analyze: code\n%s%s", stdout, stderr)
	assert.Contains(t, stdout, "warning: "+want, "analyze: stdout")
	assert.Contains(t, stderr, "cycleabi: warning: "+p+": "+want, "analyze: stderr")
}

// TestValidateManifestRefusesTrace: validate refuses a JSON trace a
// window's manifest lists (or given --step or --direction), naming the
// manifest's line, as analyze, decode and report do (in the same words:
// they named neither the line nor the trace): it validated the trace and
// ignored the manifest's labels.
func TestValidateManifestRefusesTrace(t *testing.T) {
	dir := window(t)
	trace := exampleTrace(t, "moe.json")
	man := filepath.Join(dir, "traces.yaml")
	require.NoError(t, os.WriteFile(man, []byte("- {capture: fwd.bin, rank: 2, step: 7, direction: forward}\n- {capture: "+trace+", rank: 2, step: 7, direction: backward}\n"), 0o644))
	want := man + ":2: " + trace + ": a JSON trace states its own ranks and invocations"
	for _, cmd := range []string{"validate", "analyze", "decode", "report"} {
		args := []string{cmd, "--invocation-manifest", man}
		if cmd != "validate" {
			args = append(args, "-o", filepath.Join(t.TempDir(), "out"))
		}
		_, stderr, code := runMain(t, args...)
		require.Equalf(t, 2, code, "%s: code", cmd)
		assert.Containsf(t, stderr, want, "%s: code", cmd)
		_, stderr, code = runMain(t, cmd, "--step", "3", trace)
		assert.Equalf(t, 2, code, "%s --step: code\n%s", cmd, stderr)
		assert.Containsf(t, stderr, "cycleabi: "+trace+": a JSON trace states its own ranks", "%s --step: stderr naming the trace", cmd)
	}
}
