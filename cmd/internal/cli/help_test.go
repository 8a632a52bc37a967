package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// The help says what the schema says: the root help the record size and
// every region's core type, and decode's, validate's and dump's prose and
// examples every region's capacity flag (a schema with a third region
// shows a third flag, as the ABI drill checks); no placeholder is left.
func TestHelpFollowsSchema(t *testing.T) {
	t.Parallel()
	root, _, code := runMain(t, "--help")
	if code != ExitOK {
		t.Errorf("code = %v, want %v", code, ExitOK)
	}
	if want := fmt.Sprintf("core appends %d-byte cycle records", abi.ProfileRecordSize); !strings.Contains(root, want) {
		t.Errorf("root = %q, want it to contain %q", root, want)
	}
	intro, _, _ := strings.Cut(root, "\n\n")
	for _, r := range abi.Regions() {
		if !strings.Contains(intro, r.CoreType.String()) {
			t.Errorf("the root help's first paragraph names every region's core type: intro = %q, want it to contain %q", intro, r.CoreType.String())
		}
	}
	for _, cmd := range []string{"decode", "validate", "dump"} {
		help, _, code := runMain(t, cmd, "--help")
		if code != ExitOK {
			t.Errorf("%s: code = %v, want %v", cmd, code, ExitOK)
		}
		for _, p := range []string{"{capacity", "{core types}", "{record size}"} {
			if strings.Contains(help, p) {
				t.Errorf("%s --help: a placeholder is left: help = %q, want no %q", cmd, help, p)
			}
		}
		prose, _, _ := strings.Cut(help, "\nUsage:")
		for _, r := range abi.Regions() {
			flag := "--" + strings.ToLower(r.CoreType.String()) + "-capacity"
			if !strings.Contains(prose, flag) {
				t.Errorf("%s --help's text names %s: prose = %q, want it to contain %q", cmd, flag, prose, flag)
			}
		}
	}
	decode, _, _ := runMain(t, "decode", "--help")
	dump, _, _ := runMain(t, "dump", "--help")
	if len(abi.Regions()) == 2 { // today's schema: the text as written
		if want := "--cube-slots,\n              and --aic-capacity with --aiv-capacity, give it instead"; !strings.Contains(decode, want) {
			t.Errorf("decode = %q, want it to contain %q", decode, want)
		}
		if want := "--rank 4 --rank 5 --aic-capacity 32 --aiv-capacity 48\n"; !strings.Contains(decode, want) {
			t.Errorf("decode = %q, want it to contain %q", decode, want)
		}
		if want := "--records 0 --aic-capacity 80 --aiv-capacity 80\n"; !strings.Contains(dump, want) {
			t.Errorf("dump = %q, want it to contain %q", dump, want)
		}
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
	if got := HelpText("x {capacity args 7 9} y"); got != "x"+args+" y" {
		t.Errorf("helpText(\"x {capacity args 7 9} y\") = %q, want %q", got, "x"+args+" y")
	}
	if got := HelpText("a {capacity args "); got != "a {capacity args " {
		t.Errorf("an unclosed placeholder is left to be seen: helpText(\"a {capacity args \") = %q, want %q", got, "a {capacity args ")
	}
	if got := JoinLast([]string{"a", "b", "c"}, " and "); got != "a, b and c" {
		t.Errorf("joinLast([]string{\"a\", \"b\", \"c\"}, \" and \") = %q, want %q", got, "a, b and c")
	}
	if got := JoinLast([]string{"a", "b"}, " with "); got != "a with b" {
		t.Errorf("joinLast([]string{\"a\", \"b\"}, \" with \") = %q, want %q", got, "a with b")
	}
	if got := JoinLast([]string{"a"}, " with "); got != "a" {
		t.Errorf("joinLast([]string{\"a\"}, \" with \") = %q, want %q", got, "a")
	}
}

// No flag states its default twice (its usage text, and pflag's
// "(default ...)" after it), in any command's help.
func TestHelpDefaultsOnce(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"plan", "synth", "validate", "dump", "decode", "merge", "analyze", "diff", "report"} {
		help, _, code := runMain(t, cmd, "--help")
		if code != ExitOK {
			t.Errorf("%s: code = %v, want %v", cmd, code, ExitOK)
		}
		_, flags, _ := strings.Cut(help, "\nFlags:")
		for _, line := range strings.Split(flags, "\n") {
			if got := strings.Count(line, "(default"); got > 1 {
				t.Errorf("%s --help: %s: strings.Count(line, \"(default\") = %v, want <= %v", cmd, line, got, 1)
			}
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
		if code != ExitOK {
			t.Errorf("%s: code = %v, want %v", c.Name(), code, ExitOK)
		}
		for _, want := range []string{"Usage:\n", "Examples:\n", "Flags:\n", "docs/cli/" + c.Name() + ".md", guideOf(c.Name())} {
			if !strings.Contains(help, want) {
				t.Errorf("cycleabi %s --help: help = %q, want it to contain %q", c.Name(), help, want)
			}
		}
		if got := strings.Count(help, "\n"); got > maxLines {
			t.Errorf("cycleabi %s --help: the reference belongs in docs/: strings.Count(help, \"\\n\") = %v, want <= %v", c.Name(), got, maxLines)
		}
	}
}
