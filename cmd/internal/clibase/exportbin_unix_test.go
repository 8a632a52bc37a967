//go:build unix

package clibase

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// TestVersionCheckBounded: checkExportBinary reads at most 64 KiB of a
// cycleabi-export's --version (one that printed forever drove cycleabi
// export to 2 GiB) and returns soon after the program exits even when a
// child of it keeps the output open (it waited for the child: no
// WaitDelay), well inside the 30 s timeout either way.
func TestVersionCheckBounded(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	version := "echo 'cycleabi-export version devel'\necho 'ABI version " + strconv.Itoa(abi.Version) + ", fingerprint " + abi.FingerprintHex + "'\n"
	for _, c := range []struct {
		name, script, err string
	}{
		{"prints 10 MB, then sleeps", "head -c 10000000 /dev/zero | tr '\\0' x\nsleep 60", "printed more than 65536 bytes"},
		{"a child keeps stdout open", version + "sleep 60 &\nexit 0", ""},
	} {
		path := filepath.Join(t.TempDir(), ExportBinary)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := checkExportBinary(context.Background(), path)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: the check took %v", c.name, d)
		}
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %.300v, want %q", c.name, err, c.err)
		}
	}
}

// TestExportBinaryOnRelativePath: a cycleabi-export that PATH finds only
// through a relative entry (PATH=.), which Go does not run, is named as
// found there and why it is not run; it was "not found on PATH".
func TestExportBinaryOnRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ExportBinary), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", ".")
	_, err := findExportBinary()
	if want := "export is a second program, cycleabi-export, found on PATH only through a relative entry (cycleabi-export), which is not run (it would run whatever the current folder holds): put its absolute folder on PATH, or install it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("PATH=.: %v, want %q", err, want)
	}
}
