package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cliDocsDir is where a page per command lives, written from the cobra
// commands themselves: `make docs` (this test with -update) rewrites them,
// and `make test` fails when one differs from what the commands say.
const cliDocsDir = "../../../docs/cli"

// TestCLIDocs renders docs/cli: an index and one page per command, each
// the command's synopsis, description, example and flags as --help has
// them. A page no command has any more is an error too.
func TestCLIDocs(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&Program{Name: "cycleabi"})
	want := map[string]bool{"README.md": true}
	var index strings.Builder
	index.WriteString("# Command reference\n\n" + generatedNote + "\n\n")
	index.WriteString(root.Long + "\n\n| command | what it does |\n|---|---|\n")
	cmds := root.Commands()
	slices.SortFunc(cmds, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	for _, c := range cmds {
		if !c.IsAvailableCommand() {
			continue
		}
		assert.NotEmptyf(t, guideOf(c.Name()), "cycleabi %s has no guide in main.go's guideOf: its --help points to no page of docs/", c.Name())
		page := c.Name() + ".md"
		want[page] = true
		fmt.Fprintf(&index, "| [`cycleabi %s`](%s) | %s |\n", c.Name(), page, c.Short)
		golden.Check(t, filepath.Join(cliDocsDir, page), []byte(commandPage(c)))
	}
	golden.Check(t, filepath.Join(cliDocsDir, "README.md"), []byte(index.String()))
	entries, err := os.ReadDir(cliDocsDir)
	require.NoError(t, err)
	for _, e := range entries {
		if !want[e.Name()] {
			if golden.Update() {
				os.Remove(filepath.Join(cliDocsDir, e.Name()))
				continue
			}
			assert.Fail(t, fmt.Sprintf("docs/cli/%s is no command's page: remove it (make docs)", e.Name()))
		}
	}
}

const generatedNote = "<!-- Generated from the cobra commands by `make docs`; DO NOT EDIT. -->"

// commandPage is one command's reference page: what --help says, laid out
// as Markdown.
func commandPage(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cycleabi %s\n\n%s\n\n%s\n\n", c.Name(), generatedNote, c.Short)
	b.WriteString("## Synopsis\n\n```text\n" + c.UseLine() + "\n```\n\n")
	if c.Long != "" {
		b.WriteString("## Description\n\n```text\n" + strings.TrimRight(c.Long, "\n") + "\n```\n\n")
	}
	if c.Example != "" {
		b.WriteString("## Example\n\n```sh\n" + strings.TrimRight(dedent(c.Example), "\n") + "\n```\n\n")
	}
	if flags := c.NonInheritedFlags().FlagUsages(); flags != "" {
		b.WriteString("## Flags\n\n```text\n" + strings.TrimRight(flags, "\n") + "\n```\n\n")
	}
	b.WriteString("See also the [command reference](README.md).\n")
	return b.String()
}

// dedent removes the two spaces cobra's examples are indented by.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}
