package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/require"
)

// TestOutputsDigest runs a fixed set of commands on the shipped examples
// and checks the sha256 of each one's output file and stderr against
// testdata/outputs.sha256: a move of code between packages must leave
// every byte the commands write as it was. A change of output that is
// meant is reviewed as a change of that file (go test -update).
func TestOutputsDigest(t *testing.T) {
	const (
		capture = "../../examples/moe_layer.bin"
		names   = "../../examples/moe_layer.names.yaml"
		sched   = "../../examples/moe_layer.yaml"
		kineto  = "../../examples/moe_layer.kineto.json"
		aiv     = "../../examples/aiv_pipeline.npy"
	)
	// From cmd/internal, two folders down as internal/cli was where the
	// digests were taken: the commands name their inputs as given, and a
	// Perfetto trace's strings carry their length, so the inputs' paths
	// must be spelled as they were.
	t.Chdir("..")
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	runs := []struct {
		name string
		args []string
	}{
		{"decode.json", []string{"decode", capture, "-o", out("decode.json")}},
		{"decode-names.json", []string{"decode", capture, "--names", names, "--detailed-names", "--kernel-name", "MegaMoe", "-o", out("decode-names.json")}},
		{"decode-flows.json", []string{"decode", capture, "--names", names, "--plan", sched, "-o", out("decode-flows.json")}},
		{"decode-flows-all.json", []string{"decode", capture, "--plan", sched, "--flows", "all", "--max-flows", "500", "--negative-ts", "keep", "-o", out("decode-flows-all.json")}},
		{"decode.json.gz", []string{"decode", capture, "--names", names, "-o", out("decode.json.gz")}},
		{"decode-aiv.json", []string{"decode", aiv, "--soc", "Ascend950", "-o", out("decode-aiv.json")}},
		{"decode-ranks.json", []string{"decode", capture, aiv, "--rank", "0", "--rank", "1", "-o", out("decode-ranks.json")}},
		{"decode.pftrace", []string{"decode", capture, "--names", names, "--plan", sched, "-o", out("decode.pftrace")}},
		{"decode-detailed.pftrace", []string{"decode", capture, "--names", names, "--detailed-names", "--flows", "all", "--plan", sched, "-o", out("decode-detailed.pftrace")}},
		{"decode.pftrace.gz", []string{"decode", capture, "-o", out("decode.pftrace.gz")}},
		{"window.json", []string{"decode", capture, capture, "--step", "3", "--step", "3", "--direction", "forward", "--direction", "backward", "--names", names, "--plan", sched, "-o", out("window.json")}},
		{"window-gap.json", []string{"decode", capture, capture, "--step", "3", "--step", "4", "--direction", "forward", "--direction", "forward", "--invocation-gap-us", "5", "-o", out("window-gap.json")}},
		{"window.pftrace", []string{"decode", capture, capture, "--step", "3", "--step", "3", "--direction", "forward", "--direction", "backward", "--absolute-time", "-o", out("window.pftrace")}},
		{"analyze.txt", []string{"analyze", capture, "--plan", sched, "--names", names, "-o", out("analyze.txt")}},
		{"analyze.json", []string{"analyze", capture, "--plan", sched, "--names", names, "--format", "json", "-o", out("analyze.json")}},
		{"mk.json", []string{"decode", capture, "--kernel-name", "HyperMegaMoe", "-o", out("mk.json")}},
		{"merged.json", []string{"merge", kineto, out("mk.json"), "-o", out("merged.json")}},
	}
	var digests strings.Builder
	for _, r := range runs {
		stdout, stderr, code := runMain(t, r.args...)
		require.Equalf(t, ExitOK, code, "cycleabi %s: exit\n%s", strings.Join(r.args, " "), stderr)
		data, err := os.ReadFile(out(r.name))
		require.NoError(t, err)
		// merge names its inputs in its output: the temporary folder is
		// not the output's.
		data = bytes.ReplaceAll(data, []byte(dir), []byte("$DIR"))
		stderr = strings.ReplaceAll(stderr, dir, "$DIR")
		fmt.Fprintf(&digests, "%x  %s\n", sha256.Sum256(data), r.name)
		fmt.Fprintf(&digests, "%x  %s (stdout)\n", sha256.Sum256([]byte(stdout)), r.name)
		fmt.Fprintf(&digests, "%x  %s (stderr)\n", sha256.Sum256([]byte(stderr)), r.name)
	}
	golden.Check(t, "cli/testdata/outputs.sha256", []byte(digests.String()))
}
