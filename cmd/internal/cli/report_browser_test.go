package cli

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/internal/testkit/htmlcheck"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// readmeShot is the README's screenshot; readmeShotMax its size budget.
const (
	readmeShot    = "docs/report.png" // from the repository's root
	readmeShotMax = 300 << 10
)

// chromium finds the distribution's Chromium: the test skips without it,
// unless CYCLEABI_REQUIRE_CHROMIUM is set (make ci sets it).
func chromium(t *testing.T) string {
	short.Skip(t, "runs headless Chromium")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	require.Empty(t, os.Getenv("CYCLEABI_REQUIRE_CHROMIUM"), "chromium is not installed and CYCLEABI_REQUIRE_CHROMIUM is set (apt-get install chromium)")
	t.Skip("chromium is not installed (apt-get install chromium); set CYCLEABI_REQUIRE_CHROMIUM to fail instead")
	return ""
}

// runChromium runs headless Chromium on a page with the given extra
// arguments and returns its stdout. The flags keep it off the network:
// no background networking, component updates, sync or QUIC, and every
// host name resolves to nothing.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + t.TempDir(), "--window-size=1280,3000"}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoErrorf(t, cmd.Run(), "chromium %v\n%s", args, stderr.String())
	return stdout.Bytes()
}

// probe is what the test adds to a copy of the page: the errors scripts
// raise, the loads the page's Content-Security-Policy blocks, each
// chart's rendered size, the sections laid out, and a click on a table
// head (the first row after sorting by count).
const (
	probeHead = `<script>window.__errors=[];window.addEventListener("error",function(e){window.__errors.push(String(e.message));});
document.addEventListener("securitypolicyviolation",function(e){var b=document.body;b.setAttribute("data-blocked",((b.getAttribute("data-blocked")||"")+" "+e.blockedURI).trim());});</script>`
	// probeLoad is a load the page's Content-Security-Policy must block
	// (a request it let through would not reach the network either: the
	// browser resolves no host name).
	probeLoad = `<img src="https://example.invalid/probe.png" alt="">`
	probeTail = `<script>
(function () {
  var b = document.body;
  Array.prototype.forEach.call(document.querySelectorAll("svg.chart"), function (s) {
    var r = s.getBoundingClientRect();
    s.setAttribute("data-size", Math.round(r.width) + "x" + Math.round(r.height));
  });
  var shown = [];
  Array.prototype.forEach.call(document.querySelectorAll("main > section"), function (s) {
    if (s.getBoundingClientRect().height > 0) { shown.push(s.id); }
  });
  b.setAttribute("data-sections", shown.join(" "));
  var overlaps = [];
  Array.prototype.forEach.call(document.querySelectorAll("svg.chart"), function (s) {
    var ticks = Array.prototype.map.call(s.querySelectorAll("text.tick"), function (t) {
      var r = t.getBoundingClientRect();
      return {l: r.left, r: r.right, y: Math.round(r.top), t: t.textContent};
    });
    ticks.sort(function (a, c) { return a.y - c.y || a.l - c.l; });
    for (var i = 1; i < ticks.length; i++) {
      if (ticks[i].y === ticks[i - 1].y && ticks[i].l < ticks[i - 1].r + 2) {
        overlaps.push(s.id + ": " + ticks[i - 1].t + " " + ticks[i].t);
      }
    }
  });
  b.setAttribute("data-tick-overlaps", overlaps.join(", "));
  var t = document.querySelector('table[data-table="task_types"]');
  if (t) {
    t.tHead.rows[0].cells[1].click();
    b.setAttribute("data-sorted", t.tBodies[0].rows[0].getAttribute("data-key"));
  }
  b.setAttribute("data-errors", window.__errors.join(" | "));
})();
</script>`
)

func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	// From the repository's root, so the page names the example as the
	// README does.
	t.Chdir("../../..")
	page := reportPage(t, "examples/moe_layer.bin", "--plan", "examples/moe_layer.yaml", "--names", "examples/moe_layer.names.yaml")
	dir := t.TempDir()
	probed := filepath.Join(dir, "probed.html")
	mod := bytes.Replace(page, []byte("<head>"), []byte("<head>"+probeHead), 1)
	mod = bytes.Replace(mod, []byte("</body>"), []byte(probeLoad+probeTail+"</body>"), 1)
	require.NoError(t, os.WriteFile(probed, mod, 0o644))

	dom := runChromium(t, bin, probed, "--dump-dom")
	doc, err := html.Parse(bytes.NewReader(dom))
	require.NoError(t, err)
	var body *html.Node
	charts := 0
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if n.Data == "body" {
			body = n
		}
		if n.Data == "svg" && strings.Contains(htmlcheck.Attr(n, "class"), "chart") {
			charts++
			w, h, ok := strings.Cut(htmlcheck.Attr(n, "data-size"), "x")
			require.Truef(t, ok, "svg %s has no rendered size: ok = false, want true", htmlcheck.Attr(n, "id"))
			wi, _ := strconv.Atoi(w)
			hi, _ := strconv.Atoi(h)
			assert.Greaterf(t, wi, 100, "svg %s renders %sx%s: its width", htmlcheck.Attr(n, "id"), w, h)
			assert.Greaterf(t, hi, 20, "svg %s renders %sx%s: its height", htmlcheck.Attr(n, "id"), w, h)
		}
	})
	require.NotNil(t, body, "the dumped DOM has a body: body is nil, want non-nil")
	assert.Equal(t, "summary timeline cores types critical-path ranks base", htmlcheck.Attr(body, "data-sections"), "every section, in order, laid out: htmlcheck.Attr(body, \"data-sections\")")
	assert.Emptyf(t, htmlcheck.Attr(body, "data-errors"), "no script error: htmlcheck.Attr(body, \"data-errors\"), want %q", "")
	// Axis labels as the browser lays them out: none runs into the next
	// (2 px apart at least).
	assert.Emptyf(t, htmlcheck.Attr(body, "data-tick-overlaps"), "tick labels that overlap: htmlcheck.Attr(body, \"data-tick-overlaps\"), want %q", "")
	assert.Equal(t, "https://example.invalid/probe.png", htmlcheck.Attr(body, "data-blocked"), "the page's Content-Security-Policy blocks the probe's load, and nothing of the page's own: htmlcheck.Attr(body, \"data-blocked\")")
	assert.Equal(t, "GroupedMatMul", htmlcheck.Attr(body, "data-sorted"), "a click sorts the task types by count, largest first: htmlcheck.Attr(body, \"data-sorted\")")
	// The timeline, the cores, 3 stats charts, the Gantt, by kind, by stage.
	assert.Equal(t, 8, charts, "charts")

	// The screenshot, the page and its PDF: with CYCLEABI_KEEP_ARTIFACTS=1
	// kept in a temporary folder that outlives the test (to look at, or
	// as CI artifacts), else removed with the test; with -update the
	// screenshot also becomes the README's.
	shots := t.TempDir()
	if os.Getenv("CYCLEABI_KEEP_ARTIFACTS") == "1" {
		shots, err = os.MkdirTemp("", "cycleabi-report-")
		require.NoError(t, err)
	}
	htmlPath, shot := filepath.Join(shots, "report.html"), filepath.Join(shots, "report.png")
	require.NoError(t, os.WriteFile(htmlPath, page, 0o644))
	runChromium(t, bin, htmlPath, "--screenshot="+shot, "--hide-scrollbars")
	t.Logf("screenshot of the example report: %s (the page: %s)", shot, htmlPath)

	// Printed: a PDF of a few pages (the print style sheet stacks the
	// charts and tables and keeps each whole), also left as an artifact.
	pdfPath := filepath.Join(shots, "report.pdf")
	runChromium(t, bin, htmlPath, "--print-to-pdf="+pdfPath, "--no-pdf-header-footer")
	pdf, err := os.ReadFile(pdfPath)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "chromium printed a PDF: bytes.HasPrefix(pdf, []byte(\"%PDF-\")) = false, want true")
	pages := 0
	for _, m := range regexp.MustCompile(`/Count (\d+)`).FindAllSubmatch(pdf, -1) {
		c, _ := strconv.Atoi(string(m[1]))
		pages = max(pages, c)
	}
	assert.Truef(t, pages >= 3 && pages <= 40, "the printed report has %d pages: pages >= 3 && pages <= 40 = false, want true", pages)
	t.Logf("printed: %s (%d pages)", pdfPath, pages)
	f, err := os.Open(shot)
	require.NoError(t, err)
	img, err := png.Decode(f)
	f.Close()
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, 1280, 3000), img.Bounds(), "img.Bounds()")
	readme := readmeImage(img)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	require.NoError(t, enc.Encode(&buf, readme))
	if golden.Update() {
		require.NoError(t, os.MkdirAll(filepath.Dir(readmeShot), 0o755))
		require.NoError(t, os.WriteFile(readmeShot, buf.Bytes(), 0o644))
	}
	assert.Less(t, buf.Len(), readmeShotMax, "the README's screenshot stays under 300 KB: buf.Len()")
	st, err := os.Stat(readmeShot)
	if assert.NoError(t, err, "docs/report.png: go test ./internal/cli -run Chromium -update") {
		assert.Less(t, st.Size(), int64(readmeShotMax), "docs/report.png: st.Size()")
	}
}

// readmeImage is the top of the page (summary, timeline, per-core bars),
// reduced to a palette-friendly size for the README.
func readmeImage(img image.Image) image.Image {
	const h = 2200
	top := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), h))
	draw.Draw(top, top.Bounds(), img, image.Point{}, draw.Src)
	return top
}
