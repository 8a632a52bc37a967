package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command tells its inputs apart with the one sniffer: a trace
// after 600 spaces is a trace (it had been "blank text": 512 bytes were
// read), a trace after a byte-order mark is not read as a capture (it had
// been, "bad-capacity AIC/0"), and UTF-16 text is named for what it is.
func TestInputsSniffed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "-o", trace)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	want, _, code := runMain(t, "analyze", trace)
	require.Equal(t, ExitOK, code, "analyze mk.json: code")
	spaced := write("spaced.json", append([]byte(strings.Repeat(" ", 600)), data...))
	got, stderr, code := runMain(t, "analyze", spaced)
	got = strings.ReplaceAll(got, spaced, trace)
	assert.Equalf(t, ExitOK, code, "analyze of the trace after 600 spaces: code, %s", stderr)
	assert.Equalf(t, want, got, "analyze of the trace after 600 spaces: code, %s", stderr)

	bom := write("bom.json", append([]byte("\xef\xbb\xbf"), data...))
	all, _, _ := runOut(t, "validate", bom)
	require.NotContainsf(t, all, "bad-capacity", "validate of the trace after a byte-order mark read it as a capture: %s", all)
	assert.NotContainsf(t, all, "not-a-capture", "validate of the trace after a byte-order mark read it as a capture: %s", all)

	utf16 := []byte("\xff\xfe")
	for _, c := range []byte(`{"traceEvents": []}`) {
		utf16 = append(utf16, c, 0)
	}
	u := write("utf16.json", utf16)
	out, _, code := runMain(t, "validate", u)
	assert.Equalf(t, ExitInvalid, code, "validate of UTF-16 text: code\n%s", out)
	assert.Contains(t, out, "not a capture: the file is UTF-16 text (save it as UTF-8)", "validate of UTF-16 text")
}

// A --kernel-name that differs from the trace's kernelName is applied,
// with a note naming both, by every command that reads traces; it had
// been dropped without a word (the trace's name won). The same name says
// nothing.
func TestKernelNameAgainstTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "mk.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--kernel-name", "HyperMegaMoe", "-o", trace)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	again := filepath.Join(dir, "again.json")
	want := "cycleabi: note: " + trace + `: --kernel-name "MegaMoe" applied over the data's kernel name "HyperMegaMoe"` + "\n"
	for _, args := range [][]string{
		{"analyze", trace, "--kernel-name", "MegaMoe"},
		{"decode", trace, "--kernel-name", "MegaMoe", "-o", again},
		{"report", trace, "--kernel-name", "MegaMoe", "-o", filepath.Join(dir, "r.html")},
	} {
		_, stderr, code := runMain(t, args...)
		require.Equalf(t, ExitOK, code, "%v: code, stderr = %q, starting %q", args, stderr, want)
		assert.Truef(t, strings.HasPrefix(stderr, want), "%v: code, stderr = %q, starting %q", args, stderr, want)
	}
	// Applied: the trace decode writes again is named by the flag.
	b, err := os.ReadFile(again)
	require.NoError(t, err, "decode --kernel-name MegaMoe of a HyperMegaMoe trace: kernelName not MegaMoe")
	require.Contains(t, string(b), `"kernelName":"MegaMoe"`, "decode --kernel-name MegaMoe of a HyperMegaMoe trace: kernelName not MegaMoe")
	assert.NotContains(t, string(b), `"kernelName":"HyperMegaMoe"`, "decode --kernel-name MegaMoe of a HyperMegaMoe trace: kernelName not MegaMoe")
	_, stderr, code = runMain(t, "analyze", trace, "--kernel-name", "HyperMegaMoe")
	assert.Equalf(t, ExitOK, code, "analyze with the trace's own kernel name: code\n%s", stderr)
	assert.NotContains(t, stderr, "applied over", "analyze with the trace's own kernel name")
	// Said once per run, as the family's other notes: a trace of three
	// ranks, all HyperMegaMoe, gets one note (it got one per rank: 1,024
	// lines for 1,024 ranks).
	three := filepath.Join(dir, "three.json")
	ex := "../../../examples/moe_layer.bin"
	_, stderr, code = runMain(t, "decode", ex, ex, ex, "--rank", "0", "--rank", "1", "--rank", "2", "--kernel-name", "HyperMegaMoe", "-o", three)
	require.Equalf(t, ExitOK, code, "%s: code", stderr)
	_, stderr, code = runMain(t, "analyze", three, "--kernel-name", "MegaMoe")
	n := strings.Count(stderr, "applied over")
	require.Equalf(t, ExitOK, code, "analyze of three ranks: code notes %q, want one, naming rank 0", "applied over")
	require.Equalf(t, 1, n, "analyze of three ranks: code notes %q, want one, naming rank 0", "applied over")
	assert.Containsf(t, stderr, three+" (rank 0): --kernel-name", "analyze of three ranks: code notes %q, want one, naming rank 0", "applied over")
}

// A merged trace is an input wherever a trace is: analyze of what merge
// wrote reports what analyze of the MegaKernel trace that was merged
// reports, but for the file's name and a note of where merge placed it
// (it had been refused: "no megaKernelCycleTrace object").
func TestAnalyzeMergedTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk, merged := filepath.Join(dir, "mk.json"), filepath.Join(dir, "merged.json")
	_, stderr, code := runMain(t, "decode", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "--kernel-name", "MegaMoe", "-o", mk)
	require.Equalf(t, ExitOK, code, "decode: %s: code", stderr)
	_, stderr, code = runMain(t, "merge", "../../../examples/moe_layer.kineto.json", mk, "-o", merged)
	require.Equalf(t, ExitOK, code, "merge: %s: code", stderr)
	for _, format := range []string{"text", "json"} {
		want, stderr, code := runMain(t, "analyze", mk, "--format", format)
		require.Equalf(t, ExitOK, code, "analyze mk.json: %s: code", stderr)
		got, stderr, code := runMain(t, "analyze", merged, "--format", format)
		require.Equalf(t, ExitOK, code, "analyze merged.json: %s: code", stderr)
		const note = `a merged trace: its MegaKernel part is read, which merge placed under the framework's "MegaKernel_moe_layer_7f3a9c" at 1733800000240.375 µs; its records come from their cycles, which merge keeps (it moves only the events' timestamps)`
		assert.Falsef(t, !strings.Contains(got, note) && !strings.Contains(got, strings.ReplaceAll(note, `"`, `\"`)), "format %s: the merged trace's analysis does not note the alignment %q", format, note)
		got = strings.ReplaceAll(got, merged, mk)
		var kept []string
		for line := range strings.Lines(got) {
			if !strings.Contains(line, "a merged trace: its MegaKernel part") {
				kept = append(kept, line)
			} else if format == "json" {
				// A note in a JSON list: the one before it loses its comma.
				if n := len(kept); n > 0 {
					kept[n-1] = strings.Replace(kept[n-1], "\",\n", "\"\n", 1)
				}
			}
		}
		got = strings.Join(kept, "")
		assert.Equalf(t, want, got, "format %s: analyze merged.json differs from analyze mk.json", format)
	}
}
