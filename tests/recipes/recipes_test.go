// Package recipes runs the shell blocks of the docs as a new user would:
// each in a fresh temporary directory, with the built cycleabi first on
// PATH and the repository's examples/ beside it.
package recipes

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A block is one ```sh block of a page (indented too: a block in a list
// item), with what the comment right before it says:
//
//	<!-- recipe: skip: why it cannot run here -->
//
// A block without a skip marker runs as a reader would copy it, in a
// folder holding examples/ and nothing else, and must exit 0: it makes
// the files it names in its own lines, which the reader sees. There is
// no hidden setup: a marker of any other kind is an error.
type block struct {
	page   string
	line   int
	script string
	skip   string
}

var marker = regexp.MustCompile(`^<!-- recipe: ([a-z]+): (.*) -->$`)

// blocks reads the shell blocks of the Markdown page at path.
func blocks(t *testing.T, path string) []block {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []block
	var pending block
	var cur *block
	indent := "" // the open block's fence's indent (a block in a list item)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimLeft(raw, " ")
		switch {
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.script += strings.TrimPrefix(raw, indent) + "\n"
		case line == "```sh" || line == "```bash" || line == "```shell":
			b := pending
			b.page, b.line = path, n
			cur, pending = &b, block{}
			indent = raw[:len(raw)-len(line)]
		case marker.MatchString(line):
			m := marker.FindStringSubmatch(line)
			assert.Equalf(t, "skip", m[1], "%s:%d: a recipe marker", path, n)
			pending.skip = m[2]
		case strings.TrimSpace(line) != "":
			assert.Emptyf(t, pending.skip, "%s:%d: a recipe marker not right before a shell block", path, n)
			pending = block{}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// TestDocRecipes runs every shell block of docs/*.md that is not marked
// skip, and lists the skipped ones with their reasons.
func TestDocRecipes(t *testing.T) {
	short.Skip(t, "builds cycleabi and runs every recipe of the docs")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "cycleabi"), "./cmd/cycleabi")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoErrorf(t, err, "go build cycleabi:\n%s", out)

	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	var skipped []string
	ran := 0
	for _, p := range pages {
		for _, b := range blocks(t, p) {
			rel, _ := filepath.Rel(root, b.page)
			where := rel + ":" + itoa(b.line)
			if b.skip != "" {
				skipped = append(skipped, where+": "+b.skip)
				continue
			}
			ran++
			t.Run(where, func(t *testing.T) { run(t, root, bin, b) })
		}
	}
	t.Logf("ran %d recipes; skipped %d:\n  %s", ran, len(skipped), strings.Join(skipped, "\n  "))
	require.NotEqual(t, 0, ran, "no recipe ran")
}

func run(t *testing.T, root, bin string, b block) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")))
	script := "set -e\n" + b.script
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "the recipe at %s:%d fails:\n%s\n--- output:\n%s", b.page, b.line, script, out)
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		if n /= 10; n == 0 {
			return s
		}
	}
}
