package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExitCode: ExitCode, the one place an error becomes an exit code,
// gives an input's error 1 or 2 by its kind and a capture that breaks the
// ABI 1, however deep in the error they lie; a command's own ExitError
// keeps its code; anything else is a usage or I/O problem. A wrapped
// capture.Problem, and an input.Error no command converted, exited 2
// before (Run read only ExitError).
func TestExitCode(t *testing.T) {
	t.Parallel()
	problem := &capture.Problem{File: "cap.bin", Severity: capture.Error, Code: capture.CodeTruncated, Record: -1}
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"a capture's problem", problem, ExitInvalid},
		{"a capture's problem, wrapped", fmt.Errorf("rank 3: %w", problem), ExitInvalid},
		{"an invalid input", &input.Error{Invalid: true, Err: errors.New("no megaKernelCycleTrace object")}, ExitInvalid},
		{"an invalid input, wrapped", fmt.Errorf("decode: %w", &input.Error{Invalid: true, Err: errors.New("x")}), ExitInvalid},
		{"an input's usage error", &input.Error{Err: fs.ErrNotExist}, ExitUsage},
		{"an input's usage error around a problem", &input.Error{Err: problem}, ExitUsage},
		{"a command's Invalid", Invalid(errors.New("does not match the schedule")), ExitInvalid},
		{"a command's Usage", Usage(errors.New("export needs -o DIR")), ExitUsage},
		{"a command's Usage around a problem", Usage(problem), ExitUsage},
		{"a command's Silent", Silent(ExitInvalid), ExitInvalid},
		{"a broken pipe", &outfile.Error{Path: "standard output", Err: syscall.EPIPE}, outfile.BrokenPipeStatus},
		{"cobra's own", errors.New(`unknown command "bogus" for "cycleabi"`), ExitUsage},
		{"an I/O error", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, ExitUsage},
	} {
		assert.Equalf(t, c.want, ExitCode(c.err), "%s: ExitCode(%v)", c.name, c.err)
	}
}

// TestExitCodes runs every command with an error of each kind it can
// meet: a usage error exits 2 (an unknown flag, no operand, a flag's value
// refused), as does a file that cannot be read (I/O); an input that was
// read and is invalid exits 1 (a capture that breaks the ABI, a file that
// is no capture, a JSON trace that cannot be read back, one that is no
// MegaKernel trace, an invalid schedule, a capture that does not match its
// schedule, traces that cannot be merged). Each says why on stderr, or,
// for validate and dump, in what they print.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	example, err := os.ReadFile("../../../examples/moe_layer.bin")
	require.NoError(t, err)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	var (
		missing   = filepath.Join(dir, "missing.bin")
		truncated = write("truncated.bin", string(example[:100_000]))
		text      = write("text.bin", "hello")
		cutTrace  = write("cut.json", `{"traceEvents":[`)
		noMeta    = write("nometa.json", `{"traceEvents":[{"name":"x","ph":"X","ts":0,"dur":1,"pid":0,"tid":0}]}`)
		badPlan   = write("bad.yaml", "mode: event_driven\nnum_workers: 4\ntasks:\n  - {task_type: NoSuchType}\n")
		otherPlan = "../../../examples/aiv_pipeline.yaml"
		capture   = "../../../examples/moe_layer.bin"
		kineto    = "../../../examples/moe_layer.kineto.json"
	)
	out := func(name string) string { return filepath.Join(t.TempDir(), name) }
	type kind struct {
		name string
		args func(command string) []string // nil: the command meets no such error
		code int
	}
	// withOutput adds what each command needs to write, so that the error
	// is the one the case is about.
	withOutput := func(command string, args ...string) []string {
		switch command {
		case "decode":
			return append(args, "-o", out("trace.json"))
		case "report":
			return append(args, "-o", out("report.html"))
		case "export":
			return append(args, "-o", out("parquet"))
		case "synth":
			return append(args, "-o", out("synth.bin"))
		case "merge":
			return append(args, "-o", out("merged.json"))
		case "diff":
			return append(args, capture)
		}
		return args
	}
	captures := []string{"validate", "dump", "decode", "analyze", "diff", "report", "export"}
	traces := []string{"validate", "decode", "analyze", "diff", "report", "export"}
	schedules := []string{"plan", "synth"}
	matched := []string{"decode", "analyze", "report", "export"}
	only := func(commands []string, args func(string) []string) func(string) []string {
		return func(command string) []string {
			if !slices.Contains(commands, command) {
				return nil
			}
			return args(command)
		}
	}
	kinds := []kind{
		{"unknown flag", func(c string) []string { return []string{c, "--bogus"} }, ExitUsage},
		{"no operand", func(c string) []string { return []string{c} }, ExitUsage},
		{"missing file", func(c string) []string {
			if c == "merge" {
				return withOutput(c, c, missing, kineto)
			}
			return withOutput(c, c, missing)
		}, ExitUsage},
		{"refused flag value", only(captures, func(c string) []string { return withOutput(c, c, "--cube-slots", "3", capture) }), ExitUsage},
		{"truncated capture", only(captures, func(c string) []string { return withOutput(c, c, truncated) }), ExitInvalid},
		{"not a capture", only(captures, func(c string) []string { return withOutput(c, c, text) }), ExitInvalid},
		{"cut JSON trace", func(c string) []string {
			if c == "merge" {
				return withOutput(c, c, kineto, cutTrace)
			}
			return only(traces, func(c string) []string { return withOutput(c, c, cutTrace) })(c)
		}, ExitInvalid},
		{"no MegaKernel trace", func(c string) []string {
			if c == "merge" {
				return withOutput(c, c, kineto, noMeta)
			}
			return only(traces, func(c string) []string { return withOutput(c, c, noMeta) })(c)
		}, ExitInvalid},
		{"invalid schedule", only(schedules, func(c string) []string { return withOutput(c, c, badPlan) }), ExitInvalid},
		{"another schedule's capture", only(matched, func(c string) []string { return withOutput(c, c, "--plan", otherPlan, capture) }), ExitInvalid},
	}
	for _, command := range []string{"plan", "synth", "validate", "dump", "decode", "merge", "analyze", "diff", "report", "export"} {
		for _, k := range kinds {
			args := k.args(command)
			if args == nil {
				continue
			}
			t.Run(command+"/"+k.name, func(t *testing.T) {
				stdout, stderr, code := runMain(t, args...)
				assert.Equalf(t, k.code, code, "cycleabi %s: exit\nstderr: %s", strings.Join(args, " "), stderr)
				assert.NotEmptyf(t, stdout+stderr, "cycleabi %s: exit %d and nothing said", strings.Join(args, " "), code)
				if stderr != "" {
					assert.Truef(t, strings.HasPrefix(stderr, "cycleabi: "), "cycleabi %s: stderr %q does not begin with the program's name", strings.Join(args, " "), stderr)
				}
			})
		}
	}
}
