package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeMaxLines is the front page's budget: what a newcomer needs first;
// the reference lives in docs/.
const readmeMaxLines = 300

func TestREADMEIsShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(b), "\n"), readmeMaxLines, "README.md")
}

// link matches a Markdown inline link or image: [text](target) or
// ![alt](target), with an optional title.
var link = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestRelativeLinks: every relative link in the repository's Markdown pages
// (README.md, docs/, fuzz/, gen/doc/; not testdata) names a
// file of the repository, and its #fragment, if any, a heading of that
// file (GitHub's anchors). Links out of the repository (http, https,
// mailto) are not followed.
func TestRelativeLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	var pages []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == "build" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
		return nil
	})
	require.NoError(t, err)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(filepath.Join(root, page))
		require.NoError(t, err)
		for i, line := range outsideFences(string(text)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				path := filepath.Join(root, page)
				if file != "" {
					path = filepath.Join(filepath.Dir(path), file)
					rel, err := filepath.Rel(root, path)
					if !assert.Falsef(t, err != nil || strings.HasPrefix(rel, ".."), "%s:%d: %s points outside the repository", page, i+1, target) {
						continue
					}
					if _, err := os.Stat(path); err != nil {
						assert.Fail(t, fmt.Sprintf("%s:%d: %s: no such file", page, i+1, target))
						continue
					}
				}
				if frag == "" {
					continue
				}
				body, err := os.ReadFile(path)
				if !assert.NoErrorf(t, err, "%s:%d: %s", page, i+1, target) {
					continue
				}
				assert.Truef(t, anchors(string(body))[frag], "%s:%d: %s: no heading has the anchor #%s", page, i+1, target, frag)
			}
		}
	}
	assert.GreaterOrEqual(t, checked, len(pages), "only")
}

// outsideFences returns the lines of a Markdown text with those inside
// ``` fences blanked, so code is not read as links or headings.
func outsideFences(text string) []string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			in = !in
			lines[i] = ""
		} else if in {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation but '-' and '_' dropped, spaces to '-', and "-1", "-2", ...
// after repeats.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	for _, l := range outsideFences(text) {
		level := len(l) - len(strings.TrimLeft(l, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(l[level:], " ") {
			continue
		}
		a := slug(strings.TrimSpace(l[level:]))
		base := a
		for n := 1; set[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		set[a] = true
	}
	return set
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && !isPunct(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPunct(r rune) bool { return strings.ContainsRune("—–→‘’“”…·", r) }
