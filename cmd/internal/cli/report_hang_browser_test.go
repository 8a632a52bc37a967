package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/htmlcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// cardsInChromium returns the summary cards of a page as Chromium lays it
// out: each "label: value" in order.
func cardsInChromium(t *testing.T, bin string, page []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(path, page, 0o644))
	doc, err := html.Parse(bytes.NewReader(runChromium(t, bin, path, "--dump-dom")))
	require.NoError(t, err)
	var cards []string
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "div" || !strings.Contains(" "+htmlcheck.Attr(n, "class")+" ", " card ") {
			return
		}
		var parts []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			parts = append(parts, textOf(c))
		}
		cards = append(cards, strings.Join(parts, " | "))
	})
	return cards
}

func textOf(n *html.Node) string {
	var b strings.Builder
	htmlcheck.Walk(n, func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
		}
	})
	return b.String()
}

// TestHangReportInChromium: the first screen says why, as the browser
// shows it: a stopped capture's first card names the task at the root;
// of a cluster whose slowest rank has cores that never entered, the card
// after the slowest rank's says so.
func TestHangReportInChromium(t *testing.T) {
	bin := chromium(t)
	t.Chdir("../../..")
	dir := t.TempDir()
	hung := filepath.Join(dir, "hung.bin")
	out, code, _ := runOut(t, "synth", "examples/moe_layer.yaml", "--stop-in-task", "100", "-o", hung)
	require.Equal(t, ExitOK, code, out)
	cards := cardsInChromium(t, bin, reportPage(t, hung, "--plan", "examples/moe_layer.yaml", "--kernel-family", "none"))
	require.NotEmptyf(t, cards, "the first card %q, want the stopped task", cards)
	assert.Truef(t, strings.HasPrefix(cards[0], "kernel stopped | task 100 | stopped-inside: task 100 (GroupedMatMul) on AIC/6"), "the first card %q, want the stopped task", cards)

	var ranks []string
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("rank%d.bin", i))
		args := []string{"synth", "examples/moe_layer.yaml", "--seed", "1", "-o", p}
		if i == 3 {
			args = append(args, "--idle-cores", "6")
		}
		out, code, _ := runOut(t, args...)
		require.Equal(t, ExitOK, code, out)
		ranks = append(ranks, p)
	}
	cards = cardsInChromium(t, bin, reportPage(t, append(ranks, "--kernel-family", "none")...))
	require.GreaterOrEqualf(t, len(cards), 2, "the cards %q, want rank 3 slowest for its cores not entered", cards)
	require.Truef(t, strings.HasPrefix(cards[0], "slowest rank | rank 3"), "the cards %q, want rank 3 slowest for its cores not entered", cards)
	assert.Truef(t, strings.HasPrefix(cards[1], "why it is slowest: cores not entered | see cores | 6 of its cores wrote no record"), "the cards %q, want rank 3 slowest for its cores not entered", cards)
}
