package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
)

// The help says what the schema says: the root help the record size and
// every region's core type, and decode's, validate's and dump's prose and
// examples every region's capacity flag (a schema with a third region
// shows a third flag, as the ABI drill checks); no placeholder is left.
func TestHelpFollowsSchema(t *testing.T) {
	t.Parallel()
	root, _, code := runMain(t, "--help")
	assert.Equal(t, ExitOK, code, "code")
	assert.Contains(t, root, fmt.Sprintf("core appends %d-byte cycle records", abi.ProfileRecordSize), "root")
	intro, _, _ := strings.Cut(root, "\n\n")
	for _, r := range abi.Regions() {
		assert.Contains(t, intro, r.CoreType.String(), "the root help's first paragraph names every region's core type: intro")
	}
	for _, cmd := range []string{"decode", "validate", "dump"} {
		help, _, code := runMain(t, cmd, "--help")
		assert.Equalf(t, ExitOK, code, "%s: code", cmd)
		for _, p := range []string{"{capacity", "{core types}", "{record size}"} {
			assert.NotContainsf(t, help, p, "%s --help: a placeholder is left: help = %q, want no %q", cmd, help, p)
		}
		prose, _, _ := strings.Cut(help, "\nUsage:")
		for _, r := range abi.Regions() {
			flag := "--" + strings.ToLower(r.CoreType.String()) + "-capacity"
			assert.Containsf(t, prose, flag, "%s --help's text names", cmd)
		}
	}
	decode, _, _ := runMain(t, "decode", "--help")
	dump, _, _ := runMain(t, "dump", "--help")
	if len(abi.Regions()) == 2 { // today's schema: the text as written
		assert.Contains(t, decode, "--cube-slots,\n              and --aic-capacity with --aiv-capacity, give it instead", "decode")
		assert.Contains(t, decode, "--rank 4 --rank 5 --aic-capacity 32 --aiv-capacity 48\n", "decode")
		assert.Contains(t, dump, "--records 0 --aic-capacity 80 --aiv-capacity 80\n", "dump")
	}
}

func TestHelpTextPlaceholders(t *testing.T) {
	t.Parallel()
	var flags []string
	for _, r := range abi.Regions() {
		flags = append(flags, "--"+strings.ToLower(r.CoreType.String())+"-capacity")
	}
	args := ""
	for i, f := range flags {
		args += fmt.Sprintf(" %s %d", f, []int{7, 9}[min(i, 1)])
	}
	assert.Equal(t, "x"+args+" y", HelpText("x {capacity args 7 9} y"), "helpText(\"x {capacity args 7 9} y\")")
	assert.Equal(t, "a {capacity args ", HelpText("a {capacity args "), "an unclosed placeholder is left to be seen: helpText(\"a {capacity args \")")
	assert.Equal(t, "a, b and c", JoinLast([]string{"a", "b", "c"}, " and "), "joinLast([]string{\"a\", \"b\", \"c\"}, \" and \")")
	assert.Equal(t, "a with b", JoinLast([]string{"a", "b"}, " with "), "joinLast([]string{\"a\", \"b\"}, \" with \")")
	assert.Equal(t, "a", JoinLast([]string{"a"}, " with "), "joinLast([]string{\"a\"}, \" with \")")
}

// No flag states its default twice (its usage text, and pflag's
// "(default ...)" after it), in any command's help.
func TestHelpDefaultsOnce(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"plan", "synth", "validate", "dump", "decode", "merge", "analyze", "diff", "report"} {
		help, _, code := runMain(t, cmd, "--help")
		assert.Equalf(t, ExitOK, code, "%s: code", cmd)
		_, flags, _ := strings.Cut(help, "\nFlags:")
		for _, line := range strings.Split(flags, "\n") {
			assert.LessOrEqualf(t, strings.Count(line, "(default"), 1, "%s --help: %s: strings.Count(line, \"(default\")", cmd, line)
		}
	}
}

// TestHelpShape: every command's --help gives its synopsis, an example and
// its flags, names its page in docs/ and stays a screenful or two: the
// reference lives in docs/, not in the help.
func TestHelpShape(t *testing.T) {
	t.Parallel()
	const maxLines = 100
	for _, c := range newRootCmd(&Program{Name: "cycleabi"}).Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		help, _, code := runMain(t, c.Name(), "--help")
		assert.Equalf(t, ExitOK, code, "%s: code", c.Name())
		for _, want := range []string{"Usage:\n", "Examples:\n", "Flags:\n", "docs/cli/" + c.Name() + ".md", guideOf(c.Name())} {
			assert.Containsf(t, help, want, "cycleabi %s --help: help", c.Name())
		}
		assert.LessOrEqualf(t, strings.Count(help, "\n"), maxLines, "cycleabi %s --help: the reference belongs in docs/: strings.Count(help, \"\\n\")", c.Name())
	}
}
