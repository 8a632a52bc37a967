package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenInput: the one opener of an input path yields, by content, a
// capture file as one source (the file itself, nil), a JSON trace (plain
// or gzip) as one source per rank, and refuses with the exit code of what
// went wrong: a trace that cannot be read back is invalid input (1), a
// file that cannot be read a usage or I/O error (2).
func TestOpenInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r0, r1 := filepath.Join(dir, "rank0.bin"), filepath.Join(dir, "rank1.bin")
	capData, err := os.ReadFile(moeCapture)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(r0, capData, 0o644))
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	require.Equalf(t, 0, code, "%s: code", errOut)
	two := filepath.Join(dir, "two.json")
	_, errOut, code = runMain(t, "decode", r0, r1, "-o", two)
	require.Equalf(t, 0, code, "%s: code", errOut)
	gz := filepath.Join(dir, "one.json.gz")
	_, errOut, code = runMain(t, "decode", moeCapture, "-o", gz)
	require.Equalf(t, 0, code, "%s: code", errOut)
	gzData, err := os.ReadFile(gz)
	require.NoError(t, err)
	require.Truef(t, bytes.HasPrefix(gzData, []byte{0x1f, 0x8b}), "%s is not gzip", gz)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	notTrace := write("other.json", `{"ranks": [1, 2]}`)
	noMeta := write("nometa.json", `{"traceEvents": []}`)
	cut := write("cut.json", `{"traceEvents": [{"ph": "X", `)

	for _, c := range []struct {
		name    string
		path    string
		isTrace bool
		ranks   []uint32 // of the trace's sources; nil: one nil source
	}{
		{"capture", moeCapture, false, nil},
		// Not a trace by content: a capture file to the opener, which the
		// capture reader then refuses as what it is.
		{"json that is no trace", notTrace, false, nil},
		{"trace of two ranks", two, true, []uint32{0, 1}},
		{"gzip trace", gz, true, []uint32{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := input.OpenInput(c.path)
			require.NoErrorf(t, err, "OpenInput(%s)", c.path)
			defer in.Close()
			assert.Equal(t, c.isTrace, in.IsTrace, "isTrace")
			srcs := in.Sources()
			if c.ranks == nil {
				require.Len(t, srcs, 1, "sources()")
				require.Nil(t, srcs[0], "sources()")
				return
			}
			var ranks []uint32
			for _, s := range srcs {
				ranks = append(ranks, s.Rank)
				// Each source decodes: the rebuilt capture is there to read.
				d, err := s.Decode()
				if !assert.NoErrorf(t, err, "%s: Decode", s.Name) {
					continue
				}
				assert.NotEqualf(t, uint64(0), d.Summary.Records, "%s: no records decoded", s.Name)
				d.Capture.Close()
			}
			assert.Truef(t, slices.Equal(ranks, c.ranks), "ranks = %v, want %v", ranks, c.ranks)
		})
	}

	// What the opener yields as a capture file, validate then refuses as
	// what it is: invalid input.
	out, _, code := runMain(t, "validate", notTrace)
	require.Equalf(t, ExitInvalid, code, "validate %s: code, output %q; want 1 and not-a-capture", notTrace, out)
	assert.Containsf(t, string([]byte(out)), string([]byte("not-a-capture")), "validate %s: code, output %q; want 1 and not-a-capture", notTrace, out)

	for _, c := range []struct {
		name, path string
		code       int
		trace      bool // the error is a trace's, placed in it
	}{
		{"missing file", filepath.Join(dir, "missing.bin"), ExitUsage, false},
		{"directory", dir, ExitUsage, false},
		{"trace without megaKernelCycleTrace", noMeta, ExitInvalid, true},
		{"truncated trace", cut, ExitInvalid, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := input.OpenInput(c.path)
			if err == nil {
				in.Close()
				require.FailNow(t, fmt.Sprintf("OpenInput(%s) succeeded, want an error", c.path))
			}
			assert.Equalf(t, c.code, ExitCode(err), "exitCode(%v)", err)
			var te *jsontrace.Error
			assert.Equalf(t, c.trace, errors.As(err, &te), "%v: a trace's error = %v", err, !c.trace)
			assert.Containsf(t, string([]byte(err.Error())), string([]byte(c.path)), "%v does not name %s", err, c.path)
		})
	}
}

// TestFindingsSaidOnLoadError: what loading drew before it failed (a
// --kernel-name that chooses no family) is still said, before the error,
// each line after the program's name: the findings are data PrintInputs
// writes whatever Load returned.
func TestFindingsSaidOnLoadError(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "t.json")
	_, stderr, code := runMain(t, "decode", moeCapture, "-o", out, "--kernel-name", "HyperMegaMoe", "--device-id", "1", "--device-id", "2")
	note := `cycleabi: note: --kernel-name "HyperMegaMoe" chooses no kernel family`
	fail := "2 --device-id values for 1 captures: give one per capture, in order"
	assert.Equal(t, ExitUsage, code, "code")
	n, e := strings.Index(stderr, note), strings.Index(stderr, fail)
	assert.GreaterOrEqualf(t, n, 0, "stderr = %q, want %q and then %q", stderr, note, fail)
	assert.GreaterOrEqualf(t, e, 0, "stderr = %q, want %q and then %q", stderr, note, fail)
	assert.LessOrEqualf(t, n, e, "stderr = %q, want %q and then %q", stderr, note, fail)
}
