package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/cmd/internal/clibase"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// exportFiles lists the files of an export folder, relative to it.
func exportFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// wantExport checks that dir holds the three tables of one capture of
// rank 0, each a Parquet file (it starts and ends with PAR1).
func wantExport(t *testing.T, dir string) {
	t.Helper()
	want := []string{"cores/rank=0/part-00000.parquet", "ranks/rank=0/part-00000.parquet", "records/rank=0/part-00000.parquet"}
	if got := exportFiles(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("exportFiles(t, dir) = %v, want %v", got, want)
	}
	for _, f := range want {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 8 || string(b[:4]) != "PAR1" || string(b[len(b)-4:]) != "PAR1" {
			t.Errorf("%s is not a Parquet file: %d bytes, %q...", f, len(b), b[:min(len(b), 8)])
		}
	}
}

// In this process export writes through testExporter, as in
// cycleabi-export: the folder appears whole and stderr counts the records.
// Not in parallel: export sets the process's soft memory limit for its
// run (debug.SetMemoryLimit), and two runs at once could leave it set.
func TestExportCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "moe.parquet")
	stdout, stderr, code := runMain(t, "export", "../../../examples/moe_layer.bin", "--names", "../../../examples/moe_layer.names.yaml", "-o", out)
	if code != clibase.ExitOK {
		t.Fatalf("code = %v, want %v; stderr: %s", code, clibase.ExitOK, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want empty", stdout)
	}
	if want := out + ": 2974 records of 1 capture(s) as Parquet (records/, cores/, ranks/)\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	wantExport(t, out)
}

// A cycleabi-export run by a cycleabi of another ABI (abiEnv) refuses,
// names both fingerprints and how to install a matching pair, and writes
// nothing; run by its own ABI, or directly (no abiEnv), it exports.
func TestExportRefusesAnotherABI(t *testing.T) {
	dir := t.TempDir()
	other := strings.Repeat("0", len(abi.FingerprintHex))
	t.Setenv(clibase.ABIEnv, other)
	out := filepath.Join(dir, "other")
	_, stderr, code := runMain(t, "export", "../../../examples/moe_layer.bin", "-o", out)
	if code != clibase.ExitUsage {
		t.Errorf("code = %v, want %v", code, clibase.ExitUsage)
	}
	for _, want := range []string{"fingerprint " + abi.FingerprintHex, "another ABI (fingerprint " + other + ")", "make build", "go install github.com/megakernel/cycleabi/cmd/cycleabi-export@"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("os.Stat(out): err = %v, want not exist: nothing is written for another ABI", err)
	}

	t.Setenv(clibase.ABIEnv, abi.FingerprintHex)
	same := filepath.Join(dir, "same")
	if _, stderr, code := runMain(t, "export", "../../../examples/moe_layer.bin", "-o", same); code != clibase.ExitOK {
		t.Fatalf("the same ABI: code = %v, want %v; stderr: %s", code, clibase.ExitOK, stderr)
	}
	wantExport(t, same)
}
