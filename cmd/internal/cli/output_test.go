package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
)

// An output that is one of the command's inputs (by name, through a
// symbolic link, or a hard link) is refused with exit 2, naming both
// paths, and the input is left byte for byte as it was.
func TestOutputIsNeverAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	names := filepath.Join(dir, "k.names.yaml")
	if err := os.WriteFile(names, []byte("graph_stages:\n  2: Down\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schedule := writeSchedule(t, "num_workers: 2\ntasks: [{task_type: MatMul}]\ncube_task_indices: [0]\n")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(capturePath, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(names, hard); err != nil {
		t.Fatal(err)
	}

	manifest := filepath.Join(filepath.Dir(capturePath), "window.yaml")
	if err := os.WriteFile(manifest, []byte("- {capture: cap.bin}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []string{capturePath, names, schedule, manifest}
	before := map[string][]byte{}
	for _, p := range inputs {
		before[p], _ = os.ReadFile(p)
	}
	for _, tc := range []struct {
		args  []string
		input string
	}{
		{[]string{"decode", capturePath, "-o", capturePath}, capturePath},
		{[]string{"decode", capturePath, "-o", link}, capturePath},
		{[]string{"decode", capturePath, "--names", names, "-o", hard}, names},
		{[]string{"decode", capturePath, "--plan", schedule, "-o", schedule}, schedule},
		{[]string{"decode", "--invocation-manifest", manifest, "-o", manifest}, manifest},
		{[]string{"synth", schedule, "-o", schedule}, schedule},
		{[]string{"report", capturePath, "-o", link}, capturePath},
		{[]string{"report", capturePath, "--names", names, "-o", hard}, names},
		{[]string{"report", capturePath, "--plan", schedule, "-o", schedule}, schedule},
		{[]string{"report", schedule, "--base", capturePath, "-o", link}, capturePath},
		{[]string{"report", "--invocation-manifest", manifest, "-o", manifest}, manifest},
	} {
		_, stderr, code := runMain(t, tc.args...)
		if code != ExitUsage {
			t.Errorf("%v: %s: code = %v, want %v", tc.args, stderr, code, ExitUsage)
		}
		out := tc.args[len(tc.args)-1]
		if !strings.Contains(stderr, "refusing to write "+out) {
			t.Errorf("%v: stderr = %q, want it to contain %q", tc.args, stderr, "refusing to write "+out)
		}
		if out != tc.input {
			if !strings.Contains(stderr, "same file as the input "+tc.input) {
				t.Errorf("%v: stderr = %q, want it to contain %q", tc.args, stderr, "same file as the input "+tc.input)
			}
		}
		for _, p := range inputs {
			got, _ := os.ReadFile(p)
			if !bytes.Equal(got, before[p]) {
				t.Errorf("%v changed %s: bytes.Equal(got, before[p]) = false, want true", tc.args, p)
			}
		}
		entries, _ := os.ReadDir(dir)
		// names, link, hard
		if len(entries) != 3 {
			t.Errorf("%v left files behind: len(entries) = %d, want 3: %v", tc.args, len(entries), entries)
		}
	}
}

// synth -o - writes the capture to stdout and its summary to stderr.
func TestSynthStdout(t *testing.T) {
	examples, err := filepath.Abs("../../../examples")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	stdout, stderr, code := runMain(t, "synth", filepath.Join(examples, "moe_layer.yaml"), "--capacity-scale", "0.8", "--seed", "1", "-o", "-")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	want, err := os.ReadFile(filepath.Join(examples, "moe_layer.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(stdout), want) {
		t.Errorf("stdout is not the capture (%d bytes, want %d): bytes.Equal([]byte(stdout), want) = false, want true", len(stdout), len(want))
	}
	if !strings.Contains(stderr, "2974 records written") {
		t.Errorf("stderr = %q, want it to contain %q", stderr, "2974 records written")
	}
	_, err = os.Stat("-")
	if !os.IsNotExist(err) {
		t.Errorf("synth wrote a file named -: os.IsNotExist(err) = false, want true")
	}
}

// A device given as the output is written in place, never replaced.
func TestDevNullStaysADevice(t *testing.T) {
	t.Parallel()
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skipf("no device at %s", os.DevNull)
	}
	capturePath := writeCapture(t, "cap.bin", decodeCapture().Bytes())
	for _, args := range [][]string{
		{"synth", "../../../examples/moe_layer.yaml", "-o", os.DevNull},
		{"decode", capturePath, "-o", os.DevNull},
	} {
		_, stderr, code := runMain(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: %s: code = %v, want %v", args, stderr, code, ExitOK)
		}
		st, err := os.Stat(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().IsRegular() {
			t.Errorf("%v replaced %s with a regular file: st.Mode().IsRegular() = true, want false", args, os.DevNull)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, "--version")
	if code != ExitOK {
		t.Fatalf("%s: code = %v, want %v", stderr, code, ExitOK)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: len(lines) = %d, want 2: %v", stdout, len(lines), lines)
	}
	// The version is VERSION's, however the test binary was built.
	if want := "cycleabi version " + buildinfo.Version(); lines[0] != want {
		t.Errorf("lines[0] = %q, want %q", lines[0], want)
	}
	if lines[1] != "ABI version 2, fingerprint "+abi.FingerprintHex {
		t.Errorf("lines[1] = %q, want %q", lines[1], "ABI version 2, fingerprint "+abi.FingerprintHex)
	}
	if len(abi.FingerprintHex) != 16 {
		t.Errorf("len(abi.FingerprintHex) = %d, want 16: %q", len(abi.FingerprintHex), abi.FingerprintHex)
	}
}

// The Perfetto format's output names are checked too: the default
// trace.pftrace of --format perfetto, and a -o name that picks the
// format, are refused when they are an input, which is left as it was.
func TestPerfettoOutputIsNeverAnInput(t *testing.T) {
	capturePath := writeCapture(t, "trace.pftrace", decodeCapture().Bytes())
	dir := filepath.Dir(capturePath)
	t.Chdir(dir)
	before, err := os.ReadFile(capturePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"decode", "trace.pftrace", "--format", "perfetto"},
		{"decode", capturePath, "-o", capturePath},
		{"decode", capturePath, "-o", "./trace.pftrace", "--format", "json"},
	} {
		_, stderr, code := runMain(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: %s: code = %v, want %v", args, stderr, code, ExitUsage)
		}
		if !strings.Contains(stderr, "refusing to write") {
			t.Errorf("%v: stderr = %q, want it to contain %q", args, stderr, "refusing to write")
		}
		got, _ := os.ReadFile(capturePath)
		if !bytes.Equal(got, before) {
			t.Errorf("%v changed the capture: bytes.Equal(got, before) = false, want true", args)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("%v left files behind: len(entries) = %d, want 1: %v", args, len(entries), entries)
		}
	}
}
