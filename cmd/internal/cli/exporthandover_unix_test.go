//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/cmd/internal/clibase"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// standIn is a shell script for a cycleabi-export: its --version says the
// ABI fingerprint fp ("" for no ABI line); any other command line runs
// body.
func standIn(fp, body string) string {
	version := "echo 'cycleabi-export version devel'\n"
	if fp != "" {
		version += "echo 'ABI version " + strconv.Itoa(abi.Version) + ", fingerprint " + fp + "'\n"
	}
	return "#!/bin/sh\nif [ \"$1\" = --version ]; then\n" + version + "exit 0\nfi\n" + body + "\n"
}

// cycleabi hands export over only to a cycleabi-export of its own ABI,
// with its own fingerprint whatever the environment held.
func TestExportHandOverChecks(t *testing.T) {
	t.Parallel()
	bin := buildBoth(t)
	cycleabi := filepath.Join(bin, "cycleabi")
	noPath := t.TempDir()
	capture := "../../../examples/moe_layer.bin"

	// An inherited CYCLEABI_EXPORT_ABI does not stand in for cycleabi's
	// own: the first of two entries is the one a process sees, and
	// cycleabi's had come second, so this export was refused as of
	// another ABI.
	t.Run("inherited", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "moe.parquet")
		_, stderr, code := runBin(t, noPath, "/usr/bin/env", clibase.ABIEnv+"=0123456789abcdef", cycleabi, "export", capture, "-o", out)
		if code != clibase.ExitOK {
			t.Fatalf("code = %v, want %v; stderr: %s", code, clibase.ExitOK, stderr)
		}
		wantExport(t, out)
	})

	// A program that bears the name but does not say it is cycleabi-export
	// of this ABI is not run: one that exits 0 without writing had made
	// cycleabi export report success.
	for _, c := range []struct{ name, fp, want string }{
		{"impostor", "", "--version does not say it is cycleabi-export of an ABI"},
		{"other ABI", "0123456789abcdef", "reads another ABI (fingerprint 0123456789abcdef) than this cycleabi (fingerprint " + abi.FingerprintHex + ")"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, cycleabi, filepath.Join(dir, "cycleabi"))
			if err := os.WriteFile(filepath.Join(dir, clibase.ExportBinary), []byte(standIn(c.fp, "exit 0")), 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "moe.parquet")
			_, stderr, code := runBin(t, noPath+":/bin:/usr/bin", filepath.Join(dir, "cycleabi"), "export", capture, "-o", out)
			if code != clibase.ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("code = %v, stderr = %q; want %v and it to contain %q", code, stderr, clibase.ExitUsage, c.want)
			}
		})
	}
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
		if code != clibase.ExitUsage || stderr != want {
			t.Errorf("code = %v, stderr = %q; want %v, %q", code, stderr, clibase.ExitUsage, want)
		}
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Errorf("the link now reads %q, %v; want %q", got, err, target)
		}
	}
}

const capture0 = "../../../examples/moe_layer.bin"
