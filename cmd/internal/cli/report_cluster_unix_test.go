//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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

// The first screen of a cluster's report, as the docs show it: 1280×800.
const (
	firstScreenW, firstScreenH = 1280, 800
	clusterShot1024            = "docs/report-1024.png" // from the repository's root
	clusterShot64              = "docs/report-64.png"
	clusterShotMax             = 200 << 10
	// Budgets of a report of 1,024 ranks of examples/moe_layer.bin
	// (3,000 records each; the figures are in docs/performance.md):
	// the page, the peak live heap and the time.
	clusterPageMax = 3 << 20
	clusterHeapMax = 64 << 20
	clusterTimeMax = 60 * time.Second
)

// clusterProbe lays out the page and records, on the body, where the
// summary's parts and the first chart are (document y, px), whether a
// banner or an open list of ranks is shown, and the rendered heights of
// the makespan columns.
const clusterProbe = `<script>
(function () {
  var b = document.body;
  function bottom(sel) { var e = document.querySelector(sel); if (!e) { return -1; } var r = e.getBoundingClientRect(); return Math.round(r.bottom + window.scrollY); }
  function top(sel) { var e = document.querySelector(sel); if (!e) { return -1; } var r = e.getBoundingClientRect(); return Math.round(r.top + window.scrollY); }
  b.setAttribute("data-cards-bottom", bottom("#summary .cards"));
  b.setAttribute("data-findings-bottom", bottom("#summary ul.findings"));
  b.setAttribute("data-first-chart-top", top("svg.chart"));
  b.setAttribute("data-height", Math.round(document.documentElement.scrollHeight));
  b.setAttribute("data-banners", document.querySelectorAll(".banner").length);
  var shown = 0;
  Array.prototype.forEach.call(document.querySelectorAll("#summary details li, #summary details tr"), function (e) {
    if (e.checkVisibility()) { shown++; }
  });
  b.setAttribute("data-folded-shown", shown);
  var hs = [];
  Array.prototype.forEach.call(document.querySelectorAll("#ranks-columns rect.bar"), function (r) {
    hs.push(r.getBoundingClientRect().height.toFixed(1));
  });
  b.setAttribute("data-columns", hs.join(" "));
  var svg = document.querySelector("#ranks-columns");
  b.setAttribute("data-columns-scale", svg ? (svg.getBoundingClientRect().width / svg.viewBox.baseVal.width).toFixed(4) : "0");
})();
</script>`

// reportChild runs bin's report in dir over paths and returns the page, the time
// it took and its peak live heap. The heap is the collector's own count
// (GODEBUG=gctrace=1, as TestReportMemoryPerRank reads it), not the child's
// rusage: a child started from this process by vfork inherits, at its exec,
// this process's peak RSS as its own (Linux carries the shared address
// space's high-water mark over), so under go test -race the report "peaked"
// at the test binary's 179 MiB.
func reportChild(t *testing.T, bin, dir string, paths []string) ([]byte, time.Duration, int64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	cmd := exec.Command(bin, append(append([]string{"report"}, paths...), "-o", out)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	require.NoErrorf(t, cmd.Run(), "report of %d captures\n%s", len(paths), stderr.String())
	took := time.Since(start)
	var heap int64
	for line := range strings.Lines(stderr.String()) {
		if m := gcLive.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			mb, _ := strconv.ParseInt(m[1], 10, 64)
			heap = max(heap, mb<<20)
		}
	}
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	return page, took, heap
}

// probeCluster loads page, with the probe, in Chromium 1280 px wide and
// returns the body's attributes.
func probeCluster(t *testing.T, chrome string, page []byte) map[string]string {
	t.Helper()
	probed := filepath.Join(t.TempDir(), "probed.html")
	mod := bytes.Replace(page, []byte("<head>"), []byte("<head>"+probeHead), 1)
	mod = bytes.Replace(mod, []byte("</body>"), []byte(clusterProbe+"</body>"), 1)
	require.NoError(t, os.WriteFile(probed, mod, 0o644))
	doc, err := html.Parse(bytes.NewReader(runChromium(t, chrome, probed, "--dump-dom")))
	require.NoError(t, err)
	attrs := map[string]string{}
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "body" {
			for _, a := range n.Attr {
				attrs[a.Key] = a.Val
			}
		}
	})
	return attrs
}

// firstScreen checks that the first 1280×800 screen holds the cluster's
// answer: the cards and the findings end within it, no banner, nothing of
// the folded per-rank lists shown, no script error.
func firstScreen(t *testing.T, name string, a map[string]string) {
	t.Helper()
	num := func(k string) int {
		v, err := strconv.Atoi(a[k])
		require.NoErrorf(t, err, "%s: the probe's %s = %q", name, k, a[k])
		return v
	}
	got := num("data-cards-bottom")
	assert.Greaterf(t, got, 0, "%s: the cluster's cards end at y", name)
	assert.LessOrEqualf(t, got, firstScreenH, "%s: the cluster's cards end at y", name)
	assert.LessOrEqualf(t, num("data-findings-bottom"), firstScreenH, "%s: the findings end at y", name)
	assert.Equalf(t, 0, num("data-banners"), "%s", name)
	assert.Equalf(t, 0, num("data-folded-shown"), "%s", name)
	// However many ranks, a few screens: the per-rank lists are folded.
	assert.LessOrEqualf(t, num("data-height"), 10*firstScreenH, "%s: the page", name)
	assert.Emptyf(t, a["data-errors"], "%s: script errors", name)
	t.Logf("%s: cards end at %s px, findings at %s, the first chart starts at %s; the page is %s px high",
		name, a["data-cards-bottom"], a["data-findings-bottom"], a["data-first-chart-top"], a["data-height"])
}

// screenshot takes the page's first screen (1280×800) as a PNG, and with
// -update writes it to the repository's path shot.
func screenshot(t *testing.T, chrome string, page []byte, root, shot string) {
	t.Helper()
	dir := t.TempDir()
	htmlPath, pngPath := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.png")
	require.NoError(t, os.WriteFile(htmlPath, page, 0o644))
	runChromium(t, chrome, htmlPath, "--screenshot="+pngPath, "--hide-scrollbars")
	f, err := os.Open(pngPath)
	require.NoError(t, err)
	img, err := png.Decode(f)
	f.Close()
	require.NoError(t, err)
	first := image.NewRGBA(image.Rect(0, 0, firstScreenW, firstScreenH))
	draw.Draw(first, first.Bounds(), img, image.Point{}, draw.Src)
	var buf bytes.Buffer
	require.NoError(t, (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, first))
	assert.Lessf(t, buf.Len(), clusterShotMax, "%s", shot)
	if golden.Update() {
		require.NoError(t, os.WriteFile(filepath.Join(root, shot), buf.Bytes(), 0o644))
	}
	_, err = os.Stat(filepath.Join(root, shot))
	assert.NoErrorf(t, err, "%s: go test ./internal/cli -run ClusterReport -update", shot)
}

// A report of 1,024 ranks, one capture (examples/moe_layer.bin) under
// 1,024 names given in a random order: written within the budgets of
// time, memory and size, it loads in Chromium with no script error, and
// its first screen holds the cluster's answer and findings, not a banner
// a rank.
func TestClusterReport1024InChromium(t *testing.T) {
	short.Skip(t, "a report of 1,024 ranks and Chromium")
	chrome := chromium(t)
	root := repoRoot(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	var paths []string
	for i := range 1024 {
		p := fmt.Sprintf("rank%d.bin", i)
		require.NoError(t, os.Symlink(filepath.Join(root, "examples/moe_layer.bin"), filepath.Join(dir, p)))
		paths = append(paths, p)
	}
	rand.New(rand.NewPCG(10, 24)).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	page, took, heap := reportChild(t, bin, dir, paths)
	t.Logf("1,024 ranks: %v, peak live heap %d MiB, page %.2f MiB", took.Round(10*time.Millisecond), heap>>20, float64(len(page))/(1<<20))
	assert.LessOrEqual(t, len(page), clusterPageMax, "the page")
	assert.LessOrEqual(t, heap, int64(clusterHeapMax), "peak live heap")
	assert.LessOrEqual(t, took, clusterTimeMax, "report took")
	// Given in random order, the page still runs by rank: rank 0 is the
	// slowest of equals, the makespan table starts at rank 0.
	assert.Contains(t, string(page), string([]byte(`<div class="v">rank 0</div>`)), "the slowest of 1,024 equal ranks is not rank 0")
	a := probeCluster(t, chrome, page)
	firstScreen(t, "1,024 ranks", a)
	screenshot(t, chrome, page, root, clusterShot1024)
}

// 64 ranks a few percent apart (synthesized with 64 seeds, given in a
// random order): the first screen holds the cluster's answer, and the
// makespan columns, as the browser draws them, differ in height by more
// than a third of the plot (160 units), though the makespans differ by
// under 5 %.
func TestClusterReport64InChromium(t *testing.T) {
	chrome := chromium(t)
	root := repoRoot(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	var paths []string
	lo, hi := 0.0, 0.0
	for i := range 64 {
		p := fmt.Sprintf("rank%d.bin", i)
		_, errOut, code := runMain(t, "synth", filepath.Join(root, "examples/moe_layer.yaml"), "--seed", strconv.Itoa(i+1), "-o", filepath.Join(dir, p))
		require.Equalf(t, 0, code, "synth: %s", errOut)
		paths = append(paths, p)
	}
	rand.New(rand.NewPCG(64, 1)).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	page, _, _ := reportChild(t, bin, dir, paths)
	a := probeCluster(t, chrome, page)
	firstScreen(t, "64 ranks", a)
	scale, _ := strconv.ParseFloat(a["data-columns-scale"], 64)
	heights := strings.Fields(a["data-columns"])
	require.Len(t, heights, 64)
	for i, h := range heights {
		v, _ := strconv.ParseFloat(h, 64)
		if i == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	assert.GreaterOrEqualf(t, hi-lo, 160*scale/3, "the columns are %.1f to %.1f px high in a", lo, hi)
	screenshot(t, chrome, page, root, clusterShot64)
}
