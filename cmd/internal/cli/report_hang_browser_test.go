package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/htmlcheck"
	"golang.org/x/net/html"
)

// cardsInChromium returns the summary cards of a page as Chromium lays it
// out: each "label: value" in order.
func cardsInChromium(t *testing.T, bin string, page []byte) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(runChromium(t, bin, path, "--dump-dom")))
	if err != nil {
		t.Fatal(err)
	}
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
	if out, code, _ := runOut(t, "synth", "examples/moe_layer.yaml", "--stop-in-task", "100", "-o", hung); code != ExitOK {
		t.Fatal(out)
	}
	cards := cardsInChromium(t, bin, reportPage(t, hung, "--plan", "examples/moe_layer.yaml", "--kernel-family", "none"))
	if len(cards) == 0 || !strings.HasPrefix(cards[0], "kernel stopped | task 100 | stopped-inside: task 100 (GroupedMatMul) on AIC/6") {
		t.Errorf("the first card %q, want the stopped task", cards)
	}

	var ranks []string
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("rank%d.bin", i))
		args := []string{"synth", "examples/moe_layer.yaml", "--seed", "1", "-o", p}
		if i == 3 {
			args = append(args, "--idle-cores", "6")
		}
		if out, code, _ := runOut(t, args...); code != ExitOK {
			t.Fatal(out)
		}
		ranks = append(ranks, p)
	}
	cards = cardsInChromium(t, bin, reportPage(t, append(ranks, "--kernel-family", "none")...))
	if len(cards) < 2 || !strings.HasPrefix(cards[0], "slowest rank | rank 3") ||
		!strings.HasPrefix(cards[1], "why it is slowest: cores not entered | see cores | 6 of its cores wrote no record") {
		t.Errorf("the cards %q, want rank 3 slowest for its cores not entered", cards)
	}
}
