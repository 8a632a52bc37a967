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
	if out, err := exec.Command(goTool, "build", "-o", cycleabi, "../../../cmd/cycleabi").CombinedOutput(); err != nil {
		t.Fatalf("go build: %s: %v", out, err)
	}
	if entries := dirNames(t, bin); !reflect.DeepEqual(entries, []string{"cycleabi"}) {
		t.Fatalf("dirNames(t, bin) = %v, want [cycleabi] alone", entries)
	}
	noPath := t.TempDir() // PATH: an empty folder
	capture, names := "../../../examples/moe_layer.bin", "../../../examples/moe_layer.names.yaml"
	inProcess := filepath.Join(t.TempDir(), "in-process")
	if _, stderr, code := runMain(t, "export", capture, "--names", names, "-o", inProcess); code != ExitOK {
		t.Fatalf("in process: code = %v, want %v; stderr: %s", code, ExitOK, stderr)
	}
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
			if code != ExitOK {
				t.Fatalf("code = %v, want %v; stderr: %s", code, ExitOK, stderr)
			}
			if want := out + ": 2974 records of 1 capture(s) as Parquet (records/, cores/, ranks/)\n"; stdout != "" || stderr != want {
				t.Errorf("stdout, stderr = %q, %q, want %q, %q", stdout, stderr, "", want)
			}
			sameFiles(t, inProcess, out)
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		dir := t.TempDir()
		capturePath := filepath.Join(dir, "big.bin")
		flags, err := exec.Command(goTool, "run", "../../../decode/internal/benchgen/benchcapture", "-records", strconv.Itoa(1<<20), "-o", capturePath).Output()
		if err != nil {
			t.Fatalf("benchcapture: %v", err)
		}
		outDir := t.TempDir()
		cmd := exec.Command(cycleabi, append([]string{"export", capturePath, "-o", filepath.Join(outDir, "big.parquet")}, strings.Fields(string(flags))...)...)
		cmd.Env = append(os.Environ(), "PATH="+noPath)
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
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runMain(t, "export", capture0, "-o", link)
		want := "cycleabi: -o " + link + " is a symbolic link (to " + target + "): export renames its folder into place, which a link cannot take; give the folder's own path\n"
		if code != ExitUsage || stderr != want {
			t.Errorf("code = %v, stderr = %q; want %v, %q", code, stderr, ExitUsage, want)
		}
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Errorf("the link now reads %q, %v; want %q", got, err, target)
		}
	}
}

const capture0 = "../../../examples/moe_layer.bin"
