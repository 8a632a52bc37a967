package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --freq-mhz is held to the range a trace's cycleFrequencyMHz is (0.001
// to 1e6 MHz), with one message in every command that takes it: before,
// 1e-300 gave a 300-digit µs figure in analyze and report (exit 0), an
// overflow in decode and a failure half-way through export, and 1e300
// passed everywhere. A flag is a usage error (exit 2); nothing is
// written. Not in parallel: export sets the process's memory limit.
func TestFreqMHzRange(t *testing.T) {
	const capture = "../../../examples/moe_layer.bin"
	for _, cmd := range []string{"decode", "analyze", "report", "export"} {
		// Each value as given, and as the message shows it.
		for _, v := range [][2]string{{"1e-300", "1e-300"}, {"0", "0"}, {"-1", "-1"}, {"NaN", "NaN"}, {"+Inf", "+Inf"},
			{"1e300", "1e+300"}, {"0.0009", "0.0009"}, {"1000001", "1.000001e+06"}} {
			out := filepath.Join(t.TempDir(), "out")
			_, stderr, code := runMain(t, cmd, capture, "--freq-mhz", v[0], "-o", out)
			assert.Equalf(t, ExitUsage, code, "%s --freq-mhz %s: code; stderr: %s", cmd, v[0], stderr)
			assert.Equalf(t, "cycleabi: --freq-mhz "+v[1]+" is not a system-counter frequency (0.001 to 1e+06 MHz)\n", stderr, "%s --freq-mhz %s: stderr", cmd, v[0])
			_, err := os.Stat(out)
			assert.Truef(t, os.IsNotExist(err), "%s --freq-mhz %s: %s written (err %v)", cmd, v[0], out, err)
		}
	}
	// The ends of the range are frequencies.
	for _, v := range []string{"0.001", "1e6"} {
		_, stderr, code := runMain(t, "analyze", capture, "--freq-mhz", v)
		require.Equalf(t, ExitOK, code, "analyze --freq-mhz %s: code; stderr: %s", v, stderr)
		assert.NotContainsf(t, stderr, "frequency", "analyze --freq-mhz %s: code; stderr: %s", v, stderr)
	}
}
