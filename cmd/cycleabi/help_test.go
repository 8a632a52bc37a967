package main

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
	root, _, code := runMain(t, "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, root, fmt.Sprintf("core appends %d-byte cycle records", abi.ProfileRecordSize))
	intro, _, _ := strings.Cut(root, "\n\n")
	for _, r := range abi.Regions() {
		assert.Contains(t, intro, r.CoreType.String(), "the root help's first paragraph names every region's core type")
	}
	for _, cmd := range []string{"decode", "validate", "dump"} {
		help, _, code := runMain(t, cmd, "--help")
		assert.Equal(t, exitOK, code, cmd)
		for _, p := range []string{"{capacity", "{core types}", "{record size}"} {
			assert.NotContains(t, help, p, "%s --help: a placeholder is left", cmd)
		}
		prose, _, _ := strings.Cut(help, "\nUsage:")
		for _, r := range abi.Regions() {
			flag := "--" + strings.ToLower(r.CoreType.String()) + "-capacity"
			assert.Contains(t, prose, flag, "%s --help's text names %s", cmd, flag)
		}
	}
	decode, _, _ := runMain(t, "decode", "--help")
	dump, _, _ := runMain(t, "dump", "--help")
	if len(abi.Regions()) == 2 { // today's schema: the text as written
		assert.Contains(t, decode, "--cube-slots,\n              and --aic-capacity with --aiv-capacity, give it instead")
		assert.Contains(t, decode, "--rank 4 --rank 5 --aic-capacity 32 --aiv-capacity 48\n")
		assert.Contains(t, dump, "--records 0 --aic-capacity 80 --aiv-capacity 80\n")
	}
}

func TestHelpTextPlaceholders(t *testing.T) {
	var flags []string
	for _, r := range abi.Regions() {
		flags = append(flags, "--"+strings.ToLower(r.CoreType.String())+"-capacity")
	}
	args := ""
	for i, f := range flags {
		args += fmt.Sprintf(" %s %d", f, []int{7, 9}[min(i, 1)])
	}
	assert.Equal(t, "x"+args+" y", helpText("x {capacity args 7 9} y"))
	assert.Equal(t, "a {capacity args ", helpText("a {capacity args "), "an unclosed placeholder is left to be seen")
	assert.Equal(t, "a, b and c", joinLast([]string{"a", "b", "c"}, " and "))
	assert.Equal(t, "a with b", joinLast([]string{"a", "b"}, " with "))
	assert.Equal(t, "a", joinLast([]string{"a"}, " with "))
}

// No flag states its default twice (its usage text, and pflag's
// "(default ...)" after it), in any command's help.
func TestHelpDefaultsOnce(t *testing.T) {
	for _, cmd := range []string{"plan", "synth", "validate", "dump", "decode", "merge", "analyze", "diff", "report"} {
		help, _, code := runMain(t, cmd, "--help")
		assert.Equal(t, exitOK, code, cmd)
		_, flags, _ := strings.Cut(help, "\nFlags:")
		for _, line := range strings.Split(flags, "\n") {
			assert.LessOrEqual(t, strings.Count(line, "(default"), 1, "%s --help: %s", cmd, line)
		}
	}
}

// TestHelpShape: every command's --help gives its synopsis, an example and
// its flags, names its page in docs/ and stays a screenful or two: the
// reference lives in docs/, not in the help.
func TestHelpShape(t *testing.T) {
	const maxLines = 100
	for _, c := range newRootCmd().Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		help, _, code := runMain(t, c.Name(), "--help")
		assert.Equal(t, exitOK, code, c.Name())
		for _, want := range []string{"Usage:\n", "Examples:\n", "Flags:\n", "docs/cli/" + c.Name() + ".md", guides[c.Name()]} {
			assert.Contains(t, help, want, "cycleabi %s --help", c.Name())
		}
		assert.LessOrEqual(t, strings.Count(help, "\n"), maxLines, "cycleabi %s --help: the reference belongs in docs/", c.Name())
	}
}
