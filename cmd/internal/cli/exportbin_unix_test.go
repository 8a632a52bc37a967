//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/cmd/internal/clibase"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
)

// buildBoth builds cycleabi and cycleabi-export into one temporary
// folder, as make build does, and returns it.
func buildBoth(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build cycleabi")
	}
	dir := t.TempDir()
	out, err := exec.Command(goTool, "build", "-o", dir+"/", "../../../cmd/cycleabi", "../../../cmd/"+clibase.ExportBinary).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %s: %v", out, err)
	}
	return dir
}

// copyFile copies the executable src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
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
	if code = shellStatus(err); code < 0 {
		t.Fatalf("%s: %v", bin, err)
	}
	return o.String(), e.String(), code
}

// sameFiles fails unless folders a and b hold the same files, byte for byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := exportFiles(t, a), exportFiles(t, b)
	if !reflect.DeepEqual(fa, fb) {
		t.Fatalf("exportFiles(t, a) = %v, exportFiles(t, b) = %v", fa, fb)
	}
	for _, f := range fa {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s", f, a, b)
		}
	}
}

// `cycleabi export ARGS...` runs cycleabi-export ARGS... found beside
// cycleabi (through a symbolic link too), else on PATH; without it, it
// names what to install and exits 2, and its --help still shows.
func TestExportDispatch(t *testing.T) {
	t.Parallel()
	bin := buildBoth(t)
	cycleabi := filepath.Join(bin, "cycleabi")
	noPath := t.TempDir() // PATH: a folder with no cycleabi-export
	capture, names := "../../../examples/moe_layer.bin", "../../../examples/moe_layer.names.yaml"

	// cycleabi-export --version names itself, with cycleabi's build and
	// ABI: one build, one ABI. Its help and errors name it too.
	v1, _, c1 := runBin(t, noPath, cycleabi, "--version")
	v2, _, c2 := runBin(t, noPath, filepath.Join(bin, clibase.ExportBinary), "--version")
	if c1 != clibase.ExitOK || c2 != clibase.ExitOK || "cycleabi-export"+strings.TrimPrefix(v1, "cycleabi") != v2 || !strings.Contains(v2, abi.FingerprintHex) {
		t.Errorf("--version: cycleabi %q (exit %d), cycleabi-export %q (exit %d); want the same lines, each naming its program, with the fingerprint", v1, c1, v2, c2)
	}
	help, _, _ := runBin(t, noPath, filepath.Join(bin, clibase.ExportBinary), "--help")
	if !strings.Contains(help, "Usage:\n  cycleabi-export CAPTURE... -o DIR [flags]\n") || strings.Contains(help, "Available Commands") {
		t.Errorf("cycleabi-export --help = %q, want its own usage line and no subcommands", help)
	}
	if _, stderr, code := runBin(t, noPath, filepath.Join(bin, clibase.ExportBinary), "--bogus"); code != clibase.ExitUsage || stderr != "cycleabi-export: unknown flag: --bogus\n" {
		t.Errorf("cycleabi-export --bogus: code = %v, stderr = %q; want %v, %q", code, stderr, clibase.ExitUsage, "cycleabi-export: unknown flag: --bogus\n")
	}

	// cycleabi-export run directly: what cycleabi export must write.
	direct := filepath.Join(t.TempDir(), "direct")
	if _, stderr, code := runBin(t, noPath, filepath.Join(bin, clibase.ExportBinary), capture, "--names", names, "-o", direct); code != clibase.ExitOK {
		t.Fatalf("cycleabi-export: code = %v, want %v; stderr: %s", code, clibase.ExitOK, stderr)
	}
	wantExport(t, direct)

	alone := t.TempDir() // cycleabi without cycleabi-export beside it
	copyFile(t, cycleabi, filepath.Join(alone, "cycleabi"))
	linked := t.TempDir() // a link to the cycleabi that has it beside it
	if err := os.Symlink(cycleabi, filepath.Join(linked, "cycleabi")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, bin, path string
		args            []string
	}{
		{"beside", cycleabi, noPath, []string{"export", capture, "--names", names, "-o"}},
		// Flags before the command word: cobra's own rule takes the word out.
		{"flags first", cycleabi, noPath, []string{"--names", names, "export", capture, "-o"}},
		{"link", filepath.Join(linked, "cycleabi"), noPath, []string{"export", capture, "--names", names, "-o"}},
		{"PATH", filepath.Join(alone, "cycleabi"), bin, []string{"export", capture, "--names", names, "-o"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "moe.parquet")
			stdout, stderr, code := runBin(t, c.path, c.bin, append(c.args, out)...)
			if code != clibase.ExitOK {
				t.Fatalf("code = %v, want %v; stderr: %s", code, clibase.ExitOK, stderr)
			}
			if want := out + ": 2974 records of 1 capture(s) as Parquet (records/, cores/, ranks/)\n"; stdout != "" || stderr != want {
				t.Errorf("stdout, stderr = %q, %q, want %q, %q", stdout, stderr, "", want)
			}
			sameFiles(t, direct, out)
		})
	}

	t.Run("missing", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "moe.parquet")
		stdout, stderr, code := runBin(t, noPath, filepath.Join(alone, "cycleabi"), "export", capture, "-o", out)
		if code != clibase.ExitUsage {
			t.Errorf("code = %v, want %v", code, clibase.ExitUsage)
		}
		want := "cycleabi: export is a second program, cycleabi-export, found neither in " + alone +
			" (beside cycleabi) nor on PATH: install it with `go install github.com/megakernel/cycleabi/cmd/cycleabi-export@v" + buildinfo.Version() + "`, or run `make build` in the repository (it builds both into build/)\n"
		if stdout != "" || stderr != want {
			t.Errorf("stdout, stderr = %q, %q, want %q, %q", stdout, stderr, "", want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("os.Stat(out): err = %v, want not exist", err)
		}
		help, _, code := runBin(t, noPath, filepath.Join(alone, "cycleabi"), "export", "--help")
		if code != clibase.ExitOK || !strings.Contains(help, "Usage:\n  cycleabi export CAPTURE... -o DIR") || !strings.Contains(help, "a second program, cycleabi-export") {
			t.Errorf("export --help without cycleabi-export: code = %v, help = %q; want 0 and export's help", code, help)
		}
		// A command line that cannot work says its own mistake first.
		_, stderr, code = runBin(t, noPath, filepath.Join(alone, "cycleabi"), "export", capture)
		if want := "cycleabi: export needs -o DIR, the folder to write\n"; code != clibase.ExitUsage || stderr != want {
			t.Errorf("export without -o nor cycleabi-export: code = %v, stderr = %q; want %v, %q", code, stderr, clibase.ExitUsage, want)
		}
	})

	// A stand-in cycleabi-export (which answers --version as one of this
	// ABI does) shows what it is given: the process (cycleabi's,
	// replaced), the caller's ABI, the arguments; its exit status is
	// cycleabi's.
	t.Run("handoff", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, cycleabi, filepath.Join(dir, "cycleabi"))
		script := standIn(abi.FingerprintHex, "echo \"$$\"\necho \"$"+clibase.ABIEnv+"\"\nfor a in \"$@\"; do echo \"[$a]\"; done\nexit 7")
		if err := os.WriteFile(filepath.Join(dir, clibase.ExportBinary), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(filepath.Join(dir, "cycleabi"), "export", capture, "-o", "a b", "--rank", "3")
		cmd.Env = append(os.Environ(), "PATH="+noPath+":/bin:/usr/bin")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if code := shellStatus(cmd.Wait()); code != 7 {
			t.Errorf("code = %v, want 7", code)
		}
		want := strconv.Itoa(cmd.Process.Pid) + "\n" + abi.FingerprintHex + "\n[" + capture + "]\n[-o]\n[a b]\n[--rank]\n[3]\n"
		if got := stdout.String(); got != want {
			t.Errorf("stdout = %q, want %q", got, want)
		}
	})
}

// An export interrupted through cycleabi (SIGINT, as Ctrl-C sends it to
// the process) leaves no folder, whole or temporary, and the shell
// reports 130: the signal reaches cycleabi-export, which cleans up as
// when run directly.
func TestExportDispatchInterrupted(t *testing.T) {
	t.Parallel()
	bin := buildBoth(t)
	dir := t.TempDir()
	capturePath := filepath.Join(dir, "big.bin")
	flags, err := exec.Command("go", "run", "../../../decode/internal/benchgen/benchcapture", "-records", strconv.Itoa(1<<20), "-o", capturePath).Output()
	if err != nil {
		t.Fatalf("benchcapture: %v", err)
	}
	outDir := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "cycleabi"), append([]string{"export", capturePath, "-o", filepath.Join(outDir, "big.parquet")}, strings.Fields(string(flags))...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the temporary folder holds a file with bytes: the
	// export is midway.
	deadline := time.Now().Add(time.Minute)
	for !tempHasBytes(outDir) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no temporary export appeared in %s: %s", outDir, stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if got := shellStatus(cmd.Wait()); got != 130 {
		t.Errorf("stderr: %s: status = %v, want 130", stderr.String(), got)
	}
	if got := dirNames(t, outDir); len(got) != 0 {
		t.Errorf("left behind: dirNames(t, outDir) = %v, want empty", got)
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
