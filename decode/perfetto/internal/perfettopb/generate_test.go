package perfettopb

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/stretchr/testify/require"
)

// requireProtoc turns "protoc is not on PATH" from a skip into a failure
// (make ci sets it).
const requireProtoc = "CYCLEABI_REQUIRE_PROTOC"

// protocLine is the header line naming the protoc that generated the
// file: the only part of the output that depends on protoc's version.
var protocLine = regexp.MustCompile(`(?m)^// \tprotoc +v.*$`)

// TestGenerated regenerates perfetto_subset.pb.go from
// perfetto_subset.proto with protoc and protoc-gen-go at the protobuf
// module version of go.mod (built from the module cache) and compares it
// with the committed file, byte for byte but for the protoc version in
// its header. `go test ./decode/perfetto/internal/perfettopb -update` rewrites
// the file (review the diff). Skipped without protoc on PATH unless
// CYCLEABI_REQUIRE_PROTOC is set.
func TestGenerated(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		require.Emptyf(t, os.Getenv(requireProtoc), "protoc is not on PATH and %s is set (apt-get install protobuf-compiler)", requireProtoc)
		t.Skipf("protoc is not on PATH (apt-get install protobuf-compiler); set %s to fail instead", requireProtoc)
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "protoc-gen-go")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(gobin, "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go")
	build.Env = hostEnv(t, gobin)
	out, err := build.CombinedOutput()
	require.NoErrorf(t, err, "building protoc-gen-go\n%s", out)
	cmd := exec.Command(protoc, "--plugin=protoc-gen-go="+plugin, "--go_out="+dir, "--go_opt=paths=source_relative", "perfetto_subset.proto")
	out, err = cmd.CombinedOutput()
	require.NoErrorf(t, err, "protoc\n%s", out)
	got, err := os.ReadFile(filepath.Join(dir, "perfetto_subset.pb.go"))
	require.NoError(t, err)
	if !golden.Update() {
		if want, err := os.ReadFile("perfetto_subset.pb.go"); err == nil {
			if line := protocLine.Find(want); line != nil {
				got = protocLine.ReplaceAllLiteral(got, line)
			}
		}
	}
	golden.Check(t, "perfetto_subset.pb.go", got)
}

// hostEnv is the environment for building a program protoc runs: this
// process's, with the target set to the host. A test built for another
// architecture (make test-arm64: GOARCH=arm64 go test -exec qemu-aarch64)
// inherits GOOS and GOARCH from its go test, but the plugin it builds runs
// on the host, where protoc runs it.
func hostEnv(t *testing.T, gobin string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GOOS" || k == "GOARCH" || strings.HasPrefix(k, "GOARM") || k == "GO386" || k == "GOAMD64" {
			continue
		}
		env = append(env, kv)
	}
	out, err := exec.Command(gobin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	require.NoError(t, err, "go env GOHOSTOS GOHOSTARCH")
	host := strings.Fields(string(out))
	require.Lenf(t, host, 2, "go env GOHOSTOS GOHOSTARCH printed %q", out)
	return append(env, "GOOS="+host[0], "GOARCH="+host[1], "CGO_ENABLED=0")
}
