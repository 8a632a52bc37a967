package clibase

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/buildinfo"
	"github.com/spf13/cobra"
)

// The export command is a second binary, as git's subcommands are: the
// Parquet writer would otherwise be linked into every command (it was
// parquet-go's, which brought protobuf's reflection, brotli, net/http and
// crypto/tls; it is export's own now, docs/cluster.md#two-programs).
// cycleabi parses export's command line as it does every other (its
// --help, flag and argument errors are its own), then replaces itself with
// cycleabi-export, which runs the same command with the same arguments.

// ExportBinary is the name of the program that writes exports.
const ExportBinary = "cycleabi-export"

// exportPackage is ExportBinary's package, for go install.
const exportPackage = "github.com/megakernel/cycleabi/cmd/cycleabi-export"

// ABIEnv carries the ABI fingerprint cycleabi reads to the cycleabi-export
// it runs, which refuses to run for another ABI: a stale install of one of
// the two would otherwise read the captures by another layout than the
// other's validate and decode.
const ABIEnv = "CYCLEABI_EXPORT_ABI"

// runExportBinary runs cycleabi-export with the export command's arguments
// (the command line without the word "export", as cobra found it). On
// unix the process becomes cycleabi-export, so its output, signals and
// exit status are that program's own.
func (p *Program) runExportBinary(cmd *cobra.Command) error {
	_, args, err := cmd.Root().Find(p.Args)
	if err != nil {
		return Usage(err)
	}
	path, err := findExportBinary()
	if err != nil {
		return Usage(err)
	}
	if err := checkExportBinary(cmd.Context(), path); err != nil {
		return Usage(err)
	}
	code, err := execExport(path, args, exportEnv(os.Environ()), p.Stdin, p.Stdout, p.Stderr)
	if err != nil {
		return Usage(fmt.Errorf("running %s: %w", path, err))
	}
	return Silent(code)
}

// exportEnv is the environment cycleabi-export runs with: environ with
// abiEnv set to this build's fingerprint, last and alone. An inherited
// abiEnv is dropped: a process environment keeps the first of two
// entries of one name (Go's os.Getenv does), so it would otherwise stand
// in for this cycleabi's own and let a cycleabi-export of another ABI
// run.
func exportEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, ABIEnv+"=") {
			env = append(env, kv)
		}
	}
	return append(env, ABIEnv+"="+abi.FingerprintHex)
}

// versionCheckTimeout bounds how long checkExportBinary waits for
// `cycleabi-export --version`.
const versionCheckTimeout = 30 * time.Second

// checkExportBinary runs `path --version` and refuses a program that does
// not say it is cycleabi-export of this ABI (the fingerprint line
// --version prints): a program that only bears the name, which could exit
// 0 without writing a thing, never makes cycleabi export report success,
// and a stale install is named before it runs.
func checkExportBinary(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, versionCheckTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w: it is not a %s cycleabi can run; reinstall it (`go install %s@%s`, or `make build`)", path, err, ExportBinary, exportPackage, installVersion())
	}
	fp, ok := fingerprintOf(string(out))
	switch {
	case !ok:
		return fmt.Errorf("%s --version does not say it is %s of an ABI (it printed %q): reinstall it (`go install %s@%s`, or `make build`)", path, ExportBinary, firstLine(string(out)), exportPackage, installVersion())
	case fp != abi.FingerprintHex:
		return fmt.Errorf("%s reads another ABI (fingerprint %s) than this cycleabi (fingerprint %s): install the two from one version (`make build` builds both; or `go install %s@VERSION` with the version `cycleabi --version` shows)", path, fp, abi.FingerprintHex, exportPackage)
	}
	return nil
}

// fingerprintOf finds the ABI fingerprint in --version's output: the
// word after "fingerprint" on its line "ABI version N, fingerprint HEX".
func fingerprintOf(version string) (string, bool) {
	for line := range strings.Lines(version) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "ABI version ")
		if !ok {
			continue
		}
		if _, fp, ok := strings.Cut(rest, ", fingerprint "); ok && fp != "" && !strings.ContainsAny(fp, " \t") {
			return fp, true
		}
	}
	return "", false
}

// firstLine is s's first line, for quoting a program's output.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// findExportBinary returns cycleabi-export beside the running executable
// (its symbolic links resolved: an install links both from one folder),
// else on PATH.
func findExportBinary() (string, error) {
	name := ExportBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var beside string
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			beside = filepath.Dir(self)
			path := filepath.Join(beside, name)
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) {
				return path, nil
			}
		}
	}
	path, err := exec.LookPath(ExportBinary)
	if err == nil {
		return path, nil
	}
	where := "not found on PATH"
	if beside != "" {
		where = "found neither in " + beside + " (beside cycleabi) nor on PATH"
	}
	return "", fmt.Errorf("export is a second program, %s, %s: install it with `go install %s@%s`, or run `make build` in the repository (it builds both into build/)", ExportBinary, where, exportPackage, installVersion())
}

// installVersion is the version of cycleabi-export to install beside this
// cycleabi: its own, as the module's tag (v0.5.0).
func installVersion() string {
	return "v" + buildinfo.Version()
}

// sameABIAsCaller refuses to export for a cycleabi that reads another ABI
// than this binary (abiEnv); run directly, cycleabi-export has no caller
// to match.
func sameABIAsCaller() error {
	want, set := os.LookupEnv(ABIEnv)
	if !set || want == abi.FingerprintHex {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		self = ExportBinary
	}
	return fmt.Errorf("%s reads ABI version %d (fingerprint %s), and the cycleabi that ran it another ABI (fingerprint %s): install the two from one version (`make build` builds both; or `go install %s@VERSION` with the version `cycleabi --version` shows)",
		self, abi.Version, abi.FingerprintHex, want, exportPackage)
}

// RunExport runs cycleabi-export: the export command alone, with args
// (its own arguments, without the program name), writing through
// newExporter; it returns the exit code, as cycleabi export ARGS... would.
// Its --version, help and errors name cycleabi-export.
func RunExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, newExporter func(dir string) (Exporter, error)) int {
	p := &Program{Name: ExportBinary, Args: args, Stdin: stdin, Stdout: stdout, Stderr: stderr, NewExporter: newExporter}
	return p.Run(ctx)
}

// NewExportRootCmd is cycleabi-export's command tree: export alone, named
// for the program.
func (p *Program) NewExportRootCmd() *cobra.Command {
	root := NewExportCmd(p)
	root.Use = ExportBinary + " CAPTURE... -o DIR [flags]"
	root.Example = strings.ReplaceAll(root.Example, "cycleabi export ", ExportBinary+" ")
	root.Version = VersionText()
	root.SilenceUsage, root.SilenceErrors = true, true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return Usage(err) })
	return root
}
