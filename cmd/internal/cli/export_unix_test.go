//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `cycleabi export` writes Parquet in cycleabi's own process: built
// alone and run with an empty PATH, it writes the files an in-process
// run writes (flags before the command word too); interrupted (SIGINT,
// as Ctrl-C sends it), it leaves no folder, whole or temporary, and the
// shell reports 130.
func TestExportAlone(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build cycleabi")
	}
	bin := t.TempDir()
	cycleabi := filepath.Join(bin, "cycleabi")
	out, err := exec.Command(goTool, "build", "-o", cycleabi, "../../../cmd/cycleabi").CombinedOutput()
	require.NoErrorf(t, err, "go build: %s", out)
	require.Equal(t, []string{"cycleabi"}, dirNames(t, bin), "dirNames(t, bin)")
	noPath := t.TempDir() // PATH: an empty folder
	capture, names := "../../../examples/moe_layer.bin", "../../../examples/moe_layer.names.yaml"
	inProcess := filepath.Join(t.TempDir(), "in-process")
	_, stderr, code := runMain(t, "export", capture, "--names", names, "-o", inProcess)
	require.Equalf(t, ExitOK, code, "in process: code; stderr: %s", stderr)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"alone", []string{"export", capture, "--names", names, "-o"}},
		// Flags before the command word: cobra's own rule takes the word out.
		{"flags first", []string{"--names", names, "export", capture, "-o"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "moe.parquet")
			stdout, stderr, code := runBin(t, noPath, cycleabi, append(c.args, out)...)
			require.Equalf(t, ExitOK, code, "code; stderr: %s", stderr)
			want := out + ": 2974 records of 1 capture(s) as Parquet (records/, cores/, ranks/)\n"
			assert.Emptyf(t, stdout, "stdout, stderr, want %q", "")
			assert.Equalf(t, want, stderr, "stdout, stderr, want %q", "")
			sameFiles(t, inProcess, out)
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		dir := t.TempDir()
		capturePath := filepath.Join(dir, "big.bin")
		flags, err := exec.Command(goTool, "run", "../../../decode/internal/benchgen/benchcapture", "-records", strconv.Itoa(1<<20), "-o", capturePath).Output()
		require.NoError(t, err, "benchcapture")
		outDir := t.TempDir()
		cmd := exec.Command(cycleabi, append([]string{"export", capturePath, "-o", filepath.Join(outDir, "big.parquet")}, strings.Fields(string(flags))...)...)
		cmd.Env = append(os.Environ(), "PATH="+noPath)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		// Signal once the temporary folder holds a file with bytes: the
		// export is midway.
		deadline := time.Now().Add(time.Minute)
		for !tempHasBytes(outDir) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				require.FailNow(t, fmt.Sprintf("no temporary export appeared in %s: %s", outDir, stderr.String()))
			}
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		assert.Equalf(t, 130, shellStatus(cmd.Wait()), "stderr: %s: status", stderr.String())
		assert.Empty(t, dirNames(t, outDir), "left behind: dirNames(t, outDir)")
	})
}

// runBin runs bin with args and PATH set to path, and returns its output
// and exit status.
func runBin(t *testing.T, path, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = shellStatus(err)
	require.GreaterOrEqualf(t, code, 0, "%s: %v", bin, err)
	return o.String(), e.String(), code
}

// sameFiles fails unless folders a and b hold the same files, byte for byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := exportFiles(t, a), exportFiles(t, b)
	require.Equal(t, fb, fa, "exportFiles(t, a)")
	for _, f := range fa {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		assert.Equalf(t, []byte(y), []byte(x), "%s differs between %s and %s", f, a, b)
	}
}

// tempHasBytes reports whether dir holds a temporary export folder (its
// name starts with a dot, outfile.CreateDir) with a file with bytes in it.
func tempHasBytes(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if err == nil && !d.IsDir() && strings.HasPrefix(rel, ".") {
			if st, err := d.Info(); err == nil && st.Size() > 0 {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// An -o that is a symbolic link is refused before any capture is read:
// export renames its folder into place, which a link cannot take, and a
// dangling link had been found out only once the records were written.
func TestExportRefusesALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, target := range []string{filepath.Join(dir, "nowhere"), t.TempDir()} {
		link := filepath.Join(dir, "link-"+filepath.Base(target))
		require.NoError(t, os.Symlink(target, link))
		_, stderr, code := runMain(t, "export", capture0, "-o", link)
		want := "cycleabi: -o " + link + " is a symbolic link (to " + target + "): export renames its folder into place, which a link cannot take; give the folder's own path\n"
		assert.Equal(t, ExitUsage, code, "code")
		assert.Equal(t, want, stderr, "code")
		got, err := os.Readlink(link)
		require.NoError(t, err, "the link now reads")
		assert.Equal(t, target, got, "the link now reads")
	}
}

const capture0 = "../../../examples/moe_layer.bin"
