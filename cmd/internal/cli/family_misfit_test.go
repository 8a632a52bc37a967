package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrongFamilyIsSaid: a kernel family that does not fit the data is
// said however it was chosen (--kernel-family, a kernel name, a trace's),
// naming the ids it leaves unnamed and the family they are of, and
// --strict fails on it, for a capture and for its trace alike; validate
// --strict of a MegaMoe trace read under no family fails as the capture
// does.
func TestWrongFamilyIsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := megaMoeCapture(t, dir)
	moeTrace := filepath.Join(dir, "moe.json")  // kernelName MegaMoe
	plainTrace := filepath.Join(dir, "mk.json") // kernelName MegaKernel, events named by MegaMoe's ids
	for _, d := range [][]string{{"-o", moeTrace, "--kernel-name", "MegaMoe"}, {"-o", plainTrace}} {
		_, errOut, code := runMain(t, append([]string{"decode", capPath}, d...)...)
		require.Equalf(t, ExitOK, code, "decode %v: %s", d, errOut)
	}
	for _, in := range []string{capPath, moeTrace, plainTrace} {
		for _, choose := range [][]string{
			{"--kernel-family", "MegaMhc"}, {"--kernel-family", "MegaGateRoute"}, {"--kernel-family", "none"},
			{"--kernel-name", "HyperMegaMhc"},
		} {
			name := filepath.Base(in) + " " + strings.Join(choose, " ")
			args := append([]string{"analyze", in, "--strict"}, choose...)
			_, errOut, code := runMain(t, args...)
			assert.Equalf(t, ExitInvalid, code, "%s: exit (--strict)\n%s", name, errOut)
			for _, want := range []string{"name desc ids 0x10001, 0x10002", "they are kernel family MegaMoe's: give --kernel-family MegaMoe"} {
				assert.Containsf(t, errOut, want, "%s: stderr lacks", name)
			}
		}
		// The right family is silent.
		_, errOut, code := runMain(t, "analyze", in, "--strict", "--kernel-family", "MegaMoe")
		assert.Equalf(t, ExitOK, code, "%s --kernel-family MegaMoe: exit\n%s", in, errOut)
	}
	// validate --strict: read under no family, the capture and its plain
	// trace fail alike; the trace named MegaMoe is read under MegaMoe.
	for in, want := range map[string]int{capPath: ExitInvalid, plainTrace: ExitInvalid, moeTrace: ExitOK} {
		_, errOut, code := runMain(t, "validate", "--strict", in)
		assert.Equalf(t, want, code, "validate --strict %s: exit\n%s", filepath.Base(in), errOut)
		if want != ExitOK {
			assert.Containsf(t, errOut, "its ids are kernel family MegaMoe's", "validate --strict %s: stderr lacks the family", filepath.Base(in))
		}
	}
}
