package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/testkit/htmlcheck"
	"github.com/megakernel/cycleabi/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// reportPage runs report with args and returns the page.
func reportPage(t *testing.T, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.html")
	_, errOut, code := runMain(t, append(append([]string{"report"}, args...), "-o", out)...)
	require.Equalf(t, 0, code, "%s: code", errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}

// jsonOf runs a command that prints JSON and decodes it generically.
func jsonOf(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runMain(t, args...)
	require.Equalf(t, 0, code, "%s: code", errOut)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	return v
}

// field walks a dotted path of object keys.
func field(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// find returns the element of list whose key field is key.
func find(list any, keyField, key string) (map[string]any, bool) {
	l, _ := list.([]any)
	for _, e := range l {
		m, _ := e.(map[string]any)
		if fmt.Sprint(m[keyField]) == key || fmt.Sprintf("%.0f", m[keyField]) == key {
			return m, true
		}
	}
	return nil, false
}

// checkCell holds one cell to the JSON value it names: data-v exactly,
// and the shown text to its displayed precision.
func checkCell(t *testing.T, where string, c htmlcheck.Cell, want any) {
	t.Helper()
	switch w := want.(type) {
	case float64:
		got, err := strconv.ParseFloat(c.V, 64)
		if !assert.NoErrorf(t, err, "%s", where) {
			return
		}
		assert.Equalf(t, w, got, "%s: data-v", where)
		shown := strings.NewReplacer(",", "", "+", "", " ≈", "").Replace(c.Text)
		v, err := strconv.ParseFloat(shown, 64)
		if !assert.NoErrorf(t, err, "%s: text %q", where, c.Text) {
			return
		}
		prec := 0
		if i := strings.IndexByte(shown, '.'); i >= 0 {
			prec = len(shown) - i - 1
		}
		assert.Truef(t, math.Abs(v-w) <= 0.5*math.Pow10(-prec)+1e-9*math.Abs(w), "%s: text %q for %v: math.Abs(v-w)", where, c.Text, w)
	case string:
		assert.Equalf(t, w, c.V, "%s: data-v: c.V", where)
		assert.Equalf(t, w, c.Text, "%s: text: c.Text", where)
	case nil:
		assert.Fail(t, fmt.Sprintf("%s: the JSON value is null", where))
	default:
		assert.Fail(t, fmt.Sprintf("%s: unexpected JSON value %v", where, want))
	}
}

// compareTables holds every number of the page's data tables to the
// analyze (and diff) JSON for the same inputs, and checks that each
// table lists every row the JSON has.
func compareTables(t *testing.T, page []byte, analysis, diff map[string]any) (checked int) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	ranks := analysis["ranks"].([]any)
	for _, tab := range htmlcheck.Tables(doc) {
		var rank map[string]any
		if tab.Rank != "" {
			i, err := strconv.Atoi(tab.Rank)
			require.NoError(t, err)
			if strings.HasPrefix(tab.Name, "diff_") {
				require.NotNilf(t, diff, "%s: diff is nil, want non-nil", tab.Name)
				rank = diff["ranks"].([]any)[i].(map[string]any)
			} else {
				rank = ranks[i].(map[string]any)
			}
		}
		wantRows := -1
		for _, row := range tab.Rows {
			var obj map[string]any
			var ok bool
			switch tab.Name {
			case "summary":
				i, _ := strconv.Atoi(row.Key)
				obj, ok, wantRows = ranks[i].(map[string]any), true, len(ranks)
			case "regions":
				wantRows = len(rank["regions"].(map[string]any)) + 1
				if row.Key == "rank" {
					obj, ok = rank["totals"].(map[string]any)
				} else {
					obj, ok = rank["regions"].(map[string]any)[row.Key].(map[string]any)
				}
			case "cores":
				obj, ok = find(rank["cores"], "core", row.Key)
				wantRows = len(rank["cores"].([]any))
			case "task_types", "stages", "waits":
				obj, ok = find(rank[tab.Name], "name", row.Key)
				wantRows = len(rank[tab.Name].([]any))
			case "path_kinds":
				var c any
				c, ok = field(rank, "critical_path.by_kind."+row.Key)
				obj = map[string]any{"cycles": c}
				wantRows = len(rank["critical_path"].(map[string]any)["by_kind"].(map[string]any))
			case "path_stages":
				obj, ok = find(rank["critical_path"].(map[string]any)["by_stage"], "name", row.Key)
				wantRows = len(rank["critical_path"].(map[string]any)["by_stage"].([]any))
			case "segments":
				obj, ok = find(rank["critical_path"].(map[string]any)["segments"], "start_cycle", row.Key)
				wantRows = len(rank["critical_path"].(map[string]any)["segments"].([]any))
			case "cross_rank":
				i, _ := strconv.Atoi(row.Key)
				l := analysis["cross_rank"].(map[string]any)["ranks"].([]any)
				obj, ok, wantRows = l[i].(map[string]any), true, len(l)
			case "stage_spread":
				i, _ := strconv.Atoi(row.Key)
				l := analysis["cross_rank"].(map[string]any)["stages"].([]any)
				obj, ok, wantRows = l[i].(map[string]any), true, len(l)
			case "diff_summary":
				obj, ok = rank, true
			case "diff_task_types":
				obj, ok = find(rank["task_types"], "name", row.Key)
				wantRows = len(rank["task_types"].([]any))
			case "diff_stages":
				obj, ok = find(rank["stages"], "name", row.Key)
				wantRows = len(rank["stages"].([]any))
			default:
				require.FailNow(t, fmt.Sprintf("table %q: the test does not know it", tab.Name))
			}
			require.Truef(t, ok, "table %s rank %s: row %q is not in the JSON: ok = false, want true", tab.Name, tab.Rank, row.Key)
			for _, c := range row.Cells {
				if c.F == "" {
					continue
				}
				want, ok := field(obj, c.F)
				require.Truef(t, ok, "table %s row %q: no field %q in the JSON: ok = false, want true", tab.Name, row.Key, c.F)
				checkCell(t, fmt.Sprintf("table %s rank %s row %q field %s", tab.Name, tab.Rank, row.Key, c.F), c, want)
				checked++
			}
		}
		if wantRows >= 0 {
			assert.Lenf(t, tab.Rows, wantRows, "table %s rank %s: rows: len(tab.Rows)", tab.Name, tab.Rank)
		}
	}
	return checked
}

func TestReportNumbersAreAnalyzes(t *testing.T) {
	t.Parallel()
	args := []string{moeCapture, "--plan", moePlan, "--names", moeNames}
	page := reportPage(t, args...)
	analysis := jsonOf(t, append([]string{"analyze", "--format", "json"}, args...)...)
	n := compareTables(t, page, analysis, nil)
	// 72 cores × 8 fields, the stats, 305 segments × 8 fields ...
	assert.Greater(t, n, 3000, "n")
	for _, s := range []string{"2458.8 µs", "53.7 %", "8.5 %", "13 warnings", "dropped-records 10"} {
		assert.Contains(t, string(page), s, "the page does not contain")
	}

	// Without a schedule: no path, and the page says why.
	page = reportPage(t, moeCapture)
	analysis = jsonOf(t, "analyze", "--format", "json", moeCapture)
	assert.Greater(t, compareTables(t, page, analysis, nil), 500, "compareTables(t, page, analysis, nil)")
	assert.Contains(t, string(page), "only per-core chains are known", "the page does not contain")
}

func TestReportRanksAndBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(moeCapture)
	require.NoError(t, err)
	r0, r1 := filepath.Join(dir, "rank0.bin"), filepath.Join(dir, "rank1.bin")
	require.NoError(t, os.WriteFile(r0, data, 0o644))
	_, errOut, code := runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	require.Equalf(t, 0, code, "%s: code", errOut)
	// The base: the other way round, so every number changes.
	baseDir := filepath.Join(dir, "base")
	require.NoError(t, os.Mkdir(baseDir, 0o755))
	b0, b1 := filepath.Join(baseDir, "rank0.bin"), filepath.Join(baseDir, "rank1.bin")
	require.NoError(t, os.Rename(r1, b0))
	_, errOut, code = runMain(t, "synth", moePlan, "--seed", "5", "-o", r1)
	require.Equalf(t, 0, code, "%s: code", errOut)
	require.NoError(t, os.WriteFile(b1, data, 0o644))

	flags := []string{"--plan", moePlan, "--names", moeNames}
	page := reportPage(t, append([]string{r0, r1, "--base", b0, "--base", b1}, flags...)...)
	analysis := jsonOf(t, append([]string{"analyze", "--format", "json", r0, r1}, flags...)...)
	baseJSON, newJSON := filepath.Join(dir, "base.json"), filepath.Join(dir, "new.json")
	for _, c := range [][]string{{b0, b1, "-o", baseJSON}, {r0, r1, "-o", newJSON}} {
		_, errOut, code := runMain(t, append(append([]string{"analyze", "--format", "json"}, c...), flags...)...)
		require.Equalf(t, 0, code, "%s: code", errOut)
	}
	diff := jsonOf(t, "diff", baseJSON, newJSON, "--format", "json")
	assert.Greater(t, compareTables(t, page, analysis, diff), 6000, "compareTables(t, page, analysis, diff)")
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	var names []string
	for _, tab := range htmlcheck.Tables(doc) {
		names = append(names, tab.Name)
	}
	for _, want := range []string{"cross_rank", "diff_summary", "diff_task_types", "diff_stages"} {
		assert.Truef(t, slices.Contains(names, want), "names = %v, want it to contain %v", names, want)
	}
	assert.Contains(t, string(page), `class="slowest"`, "the page does not contain")
	assert.Contains(t, string(page), "makespan vs base (rank 0)", "the page does not contain")
	assert.Empty(t, htmlcheck.Valid(page), "htmlcheck.Valid(page)")
	assert.Empty(t, htmlcheck.External(page), "htmlcheck.External(page)")

	// One analyze report as the base.
	page = reportPage(t, append([]string{r0, r1, "--base", newJSON}, flags...)...)
	assert.Contains(t, string(page), `data-table="diff_summary"`, "the page does not contain")

	// A base of another ABI is refused unless allowed.
	other := filepath.Join(dir, "other.json")
	js, err := os.ReadFile(newJSON)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, bytes.Replace(js, []byte(`"abi_fingerprint": "`), []byte(`"abi_fingerprint": "00`), 1), 0o644))
	_, errOut, code = runMain(t, append([]string{"report", r0, r1, "--base", other, "-o", filepath.Join(dir, "x.html")}, flags...)...)
	assert.Equal(t, 1, code, "code")
	assert.Contains(t, errOut, "--allow-abi-mismatch", "errOut")
	_, err = os.Stat(filepath.Join(dir, "x.html"))
	assert.True(t, os.IsNotExist(err), "no page is left behind: os.IsNotExist(err) = false, want true")
}

func TestReportPageIsSelfContainedValidHTML(t *testing.T) {
	t.Parallel()
	page := reportPage(t, moeCapture, "--plan", moePlan, "--names", moeNames)
	assert.Empty(t, htmlcheck.Valid(page), "htmlcheck.Valid(page)")
	assert.Empty(t, htmlcheck.External(page), "htmlcheck.External(page)")
	// Not even a URL in text: nothing that looks like one.
	assert.NotContainsf(t, string(page), "://", "the page contains %q, want none", "://")
	assert.Less(t, len(page), 2<<20, "the example's page is under 2 MB: len(page)")
	t.Logf("example page: %d bytes", len(page))
	// The browser refuses any load all the same.
	assert.Contains(t, string(page), `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`, "the page does not contain")

	// Every chart has an accessible name and an axis caption with its unit.
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	charts := 0
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "svg" {
			return
		}
		charts++
		id := htmlcheck.Attr(n, "id")
		assert.NotEmptyf(t, htmlcheck.Attr(n, "aria-label"), "%s: htmlcheck.Attr(n, \"aria-label\") is empty, want something", id)
		var captions []string
		htmlcheck.Walk(n, func(c *html.Node) {
			if c.Type == html.ElementNode && c.Data == "text" && htmlcheck.Attr(c, "class") == "caption" {
				captions = append(captions, htmlcheck.Text(c))
			}
		})
		if assert.Lenf(t, captions, 1, "%s: captions", id) {
			assert.Regexpf(t, `µs|share`, captions[0], "%s: captions[0]", id)
		}
	})
	assert.Equal(t, 8, charts, "charts")

	// The checks can fail.
	for _, bad := range []string{`<img src="x.png">`, `<link rel="stylesheet" href="https://cdn.example/x.css">`,
		`<div style="background:url(a.png)"></div>`, `<a href="https://example.com">x</a>`, `<script>fetch("/x")</script>`} {
		mod := bytes.Replace(page, []byte("</main>"), []byte(bad+"</main>"), 1)
		assert.NotEmptyf(t, htmlcheck.External(mod), "%s: htmlcheck.External(mod) is empty, want something", bad)
	}
	for _, bad := range []string{`<p><div>x</div></p>`, `<table><tr><td>x</td></tr></table>`, `<span id="summary"></span>`, `<div>`, `<i><b>x</i></b>`} {
		mod := bytes.Replace(page, []byte("</main>"), []byte(bad+"</main>"), 1)
		assert.NotEmptyf(t, htmlcheck.Valid(mod), "%s: htmlcheck.Valid(mod) is empty, want something", bad)
	}
}

func TestReportCommandErrors(t *testing.T) {
	t.Parallel()
	_, _, code := runMain(t, "report")
	assert.Equal(t, 2, code, "code")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(bad, make([]byte, 100), 0o644))
	_, _, code = runMain(t, "report", bad, "-o", filepath.Join(dir, "r.html"))
	assert.Equal(t, 1, code, "code")
	_, _, code = runMain(t, "report", moeCapture, "--base", filepath.Join(dir, "missing.bin"), "-o", filepath.Join(dir, "r.html"))
	assert.Equal(t, 2, code, "code")
}

// A capture with more cores, stages and critical-path segments than a
// page draws or lists: every chart and table stays within the report's
// bounds, and says what it left out.
func TestReportIsBounded(t *testing.T) {
	t.Parallel()
	// A chain of tasks, each waiting on the one before, alternating AIC
	// and AIV over 400 workers (600 cores), each task its own graph stage:
	// 2400 stages, a critical path of about 12,000 segments on every core.
	const workers, chain = 400, 2400
	type task struct {
		TaskType       string `json:"task_type"`
		TriggerEvent   int    `json:"trigger_event"`
		DependentEvent *int   `json:"dependent_event,omitempty"`
		GraphStage     int    `json:"graph_stage"`
	}
	var tasks []task
	var cube, vector []int
	for k := range chain {
		tk := task{TaskType: "MatMul", TriggerEvent: k, GraphStage: k}
		if k > 0 {
			dep := k - 1
			tk.DependentEvent = &dep
		}
		if k%2 == 0 {
			cube = append(cube, k)
		} else {
			tk.TaskType = "AddCustom"
			vector = append(vector, k)
		}
		tasks = append(tasks, tk)
	}
	sched, err := json.Marshal(map[string]any{"num_workers": workers, "tasks": tasks, "cube_task_indices": cube, "vector_task_indices": vector})
	require.NoError(t, err)
	dir := t.TempDir()
	schedPath, capPath := filepath.Join(dir, "chain.json"), filepath.Join(dir, "chain.bin")
	require.NoError(t, os.WriteFile(schedPath, sched, 0o644))
	_, errOut, code := runMain(t, "synth", schedPath, "-o", capPath)
	require.Equalf(t, 0, code, "%s: code", errOut)
	page := reportPage(t, capPath, "--plan", schedPath)
	t.Logf("page: %d bytes", len(page))
	assert.Less(t, len(page), 4<<20, "len(page)")
	assert.Empty(t, htmlcheck.Valid(page), "htmlcheck.Valid(page)")

	analysis := jsonOf(t, "analyze", "--format", "json", capPath, "--plan", schedPath)
	rank := analysis["ranks"].([]any)[0].(map[string]any)
	cores, _ := rank["cores"].([]any)
	require.Len(t, cores, 3*workers/2, "len(cores)")
	stages, _ := rank["stages"].([]any)
	require.Len(t, stages, chain, "len(stages)")
	segments := len(rank["critical_path"].(map[string]any)["segments"].([]any))
	require.Greater(t, segments, report.MaxGanttSegments, "segments")

	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	charts := 0
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "svg" {
			return
		}
		charts++
		id, shapes, rows := htmlcheck.Attr(n, "id"), 0, 0
		htmlcheck.Walk(n, func(c *html.Node) {
			if c.Type == html.ElementNode && (c.Data == "rect" || c.Data == "path") {
				shapes++
				if htmlcheck.Attr(c, "class") == "rowbg" {
					rows++
				}
			}
		})
		assert.LessOrEqualf(t, rows, report.MaxChartRows, "%s: rows: rows", id)
		// A row's bins, as runs of one color: a few shapes per row and
		// color, never one per record.
		assert.LessOrEqualf(t, shapes, 4*report.TimelineBins, "%s: shapes: shapes", id)
	})
	assert.Equal(t, 8, charts, "charts")
	for _, tab := range htmlcheck.Tables(doc) {
		assert.LessOrEqualf(t, len(tab.Rows), report.MaxTableRows, "table %s: len(tab.Rows)", tab.Name)
	}
	for _, note := range []string{
		fmt.Sprintf("The %d largest of %d.", report.MaxTableRows, chain),
		fmt.Sprintf("The %d longest of %d segments.", report.MaxTableRows, segments),
	} {
		assert.Contains(t, string(page), note, "the page does not contain")
	}
}

// Invocations of a window (two launches of one rank): a section each,
// labelled, and the page's numbers are analyze's for the same window.
func TestReportInvocationWindow(t *testing.T) {
	t.Parallel()
	args := []string{moeCapture, moeCapture, "--step", "1", "--step", "2", "--plan", moePlan, "--names", moeNames}
	page := reportPage(t, args...)
	analysis := jsonOf(t, append([]string{"analyze", "--format", "json"}, args...)...)
	ranks, _ := analysis["ranks"].([]any)
	require.Len(t, ranks, 2, "analyze: len(ranks)")
	assert.Greater(t, compareTables(t, page, analysis, nil), 6000, "compareTables(t, page, analysis, nil)")
	for _, s := range []string{"Rank 0 · invocation 0 (step 1)", "Rank 0 · invocation 1 (step 2)"} {
		assert.Contains(t, string(page), s, "the page does not contain")
	}
	assert.Empty(t, htmlcheck.Valid(page), "htmlcheck.Valid(page)")
}

// svgRows returns the row labels of chart id (the text of each rowlabel,
// without its tooltip) and the tooltips of its paths and row backgrounds.
func svgRows(t *testing.T, doc *html.Node, id string) (labels, paths, backgrounds []string) {
	t.Helper()
	found := false
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.Data != "svg" || htmlcheck.Attr(n, "id") != id {
			return
		}
		found = true
		htmlcheck.Walk(n, func(c *html.Node) {
			if c.Type != html.ElementNode {
				return
			}
			title := ""
			for k := c.FirstChild; k != nil; k = k.NextSibling {
				if k.Type == html.ElementNode && k.Data == "title" {
					title = htmlcheck.Text(k)
				}
			}
			switch {
			case c.Data == "text" && htmlcheck.Attr(c, "class") == "rowlabel":
				var own strings.Builder
				for k := c.FirstChild; k != nil; k = k.NextSibling {
					if k.Type == html.TextNode {
						own.WriteString(k.Data)
					}
				}
				labels = append(labels, own.String())
			case c.Data == "path" && title != "":
				paths = append(paths, title)
			case c.Data == "rect" && htmlcheck.Attr(c, "class") == "rowbg":
				backgrounds = append(backgrounds, title)
			}
		})
	})
	require.Truef(t, found, "no chart %s: found = false, want true", id)
	return labels, paths, backgrounds
}

// The timeline has a row for every entered core, AIC then AIV, those that
// wrote no record too: drawn idle (no bin of any kind, the background's
// tooltip says so). The per-core bars keep the cores with records.
func TestReportTimelineRowsEveryEnteredCore(t *testing.T) {
	t.Parallel()
	args := []string{moeCapture, "--plan", moePlan, "--names", moeNames}
	page := reportPage(t, args...)
	analysis := jsonOf(t, append([]string{"analyze", "--format", "json"}, args...)...)
	var aic, aiv, active []string
	idle := map[string]bool{}
	for _, c := range analysis["ranks"].([]any)[0].(map[string]any)["cores"].([]any) {
		m := c.(map[string]any)
		name := m["core"].(string)
		if m["core_type"] == "AIC" {
			aic = append(aic, name)
		} else {
			aiv = append(aiv, name)
		}
		if m["records"].(float64) == 0 {
			idle[name] = true
		} else {
			active = append(active, name)
		}
	}
	require.NotEmpty(t, idle, "the example has entered cores that wrote no record: idle is empty, want something")
	require.Less(t, len(aic)+len(aiv), report.MaxChartRows, "one core a row: len(aic)+len(aiv)")

	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	labels, paths, backgrounds := svgRows(t, doc, "r0-timeline")
	assert.Equal(t, append(aic, aiv...), labels, "a row per entered core, AIC then AIV: labels")
	require.Equalf(t, len(labels), len(backgrounds), "len(backgrounds): %v", backgrounds)
	drawn := map[string]int{}
	for _, p := range paths {
		if core, _, ok := strings.Cut(p, " · "); ok {
			drawn[core]++
		}
	}
	for i, name := range labels {
		if idle[name] {
			assert.Equalf(t, 0, drawn[name], "%s wrote no record: nothing drawn on its row: drawn[name]", name)
			assert.Equal(t, name+": idle throughout (entered, wrote no record)", backgrounds[i], "backgrounds[i]")
		} else {
			assert.NotEqualf(t, 0, drawn[name], "%s: its bins are drawn: drawn[name] = 0, want non-zero", name)
			assert.Emptyf(t, backgrounds[i], "%s: backgrounds[i]", name)
		}
	}
	assert.Contains(t, string(page), fmt.Sprintf("%d entered cores wrote no record: their rows are idle throughout.", len(idle)), "the page does not contain")

	bars, _, _ := svgRows(t, doc, "r0-cores")
	assert.Equal(t, active, bars, "a bar per core with records: bars")
}

// A window compared with a base window: given by its manifest
// (--base-invocation-manifest) or by its analysis (analyze --format json
// of the base window, then --base), the page's comparison is diff's of
// the two windows' analyses, invocation by invocation.
func TestReportBaseWindow(t *testing.T) {
	t.Parallel()
	dir := analyzeWindow(t) // window.yaml: fwd.bin then bwd.bin, rank 2
	base := filepath.Join(dir, "window.yaml")
	// The new window: the same launches with their ids swapped, so that
	// each invocation is compared with the other capture.
	swapped := filepath.Join(dir, "swapped.yaml")
	require.NoError(t, os.WriteFile(swapped, []byte("- {capture: bwd.bin, rank: 2}\n- {capture: fwd.bin, rank: 2}\n"), 0o644))
	flags := []string{"--plan", moePlan, "--names", moeNames}
	baseJSON, newJSON := filepath.Join(dir, "base.json"), filepath.Join(dir, "new.json")
	for _, c := range [][]string{{base, baseJSON}, {swapped, newJSON}} {
		_, errOut, code := runMain(t, append([]string{"analyze", "--invocation-manifest", c[0], "--format", "json", "-o", c[1]}, flags...)...)
		require.Equalf(t, 0, code, "%s: code", errOut)
	}
	analysis := jsonOf(t, append([]string{"analyze", "--format", "json", "--invocation-manifest", swapped}, flags...)...)
	diff := jsonOf(t, "diff", baseJSON, newJSON, "--format", "json")
	ranks, _ := diff["ranks"].([]any)
	require.Len(t, ranks, 2, "diff: len(ranks)")
	span := func(i int) float64 {
		return diff["ranks"].([]any)[i].(map[string]any)["makespan_cycles"].(map[string]any)["abs"].(float64)
	}
	require.NotEqual(t, float64(0), span(0), "the two captures differ: span(0) = 0, want non-zero")

	var pages [][]byte
	for _, b := range [][]string{{"--base-invocation-manifest", base}, {"--base", baseJSON}} {
		page := reportPage(t, append(append([]string{"--invocation-manifest", swapped}, b...), flags...)...)
		assert.Greaterf(t, compareTables(t, page, analysis, diff), 6000, "%s: compareTables(t, page, analysis, diff)", b[0])
		for _, s := range []string{"makespan vs base (rank 2)", `data-table="diff_summary"`, "Rank 2 · invocation 1 · "} {
			assert.Containsf(t, string(page), s, "%s: the page says", b[0])
		}
		assert.Emptyf(t, htmlcheck.Valid(page), "%s: htmlcheck.Valid(page)", b[0])
		pages = append(pages, page)
	}
	// Both ways give the same page (the base's captures are named as the
	// manifest resolved them, in the JSON too).
	assert.Equal(t, []byte(pages[0]), []byte(pages[1]), "the two ways give one page: bytes.Equal(pages[1], pages[0]) = false, want true")

	// Not both; the base window's manifest and captures are inputs.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base", baseJSON, "--base-invocation-manifest", base}, "either with --base or with --base-invocation-manifest, not both"},
		{[]string{"--base-invocation-manifest", base, "-o", base}, "it is an input of this command"},
		{[]string{"--base-invocation-manifest", base, "-o", filepath.Join(dir, "fwd.bin")}, "it is an input of this command"},
		{[]string{"--base-invocation-manifest", filepath.Join(dir, "missing.yaml")}, "--base-invocation-manifest"},
	} {
		args := append([]string{"report", "--invocation-manifest", swapped}, c.args...)
		if !slices.Contains(args, "-o") {
			args = append(args, "-o", filepath.Join(dir, "x.html"))
		}
		_, errOut, code := runMain(t, args...)
		assert.Equalf(t, 2, code, "%v: code", c.args)
		assert.Containsf(t, errOut, c.want, "%v: errOut", c.args)
	}
}

// The dropped card says how many records the cores wrote and how many
// they tried to: the example's validate summary is "2974 records, 10
// dropped".
func TestReportDroppedCard(t *testing.T) {
	t.Parallel()
	page := reportPage(t, "../../../examples/moe_layer.bin")
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	var cards []string
	htmlcheck.Walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && strings.HasPrefix(htmlcheck.Attr(n, "class"), "card") && n.Data == "div" && htmlcheck.Attr(n, "class") != "cards" {
			cards = append(cards, htmlcheck.Text(n))
		}
	})
	// Label, value and line under it, run together.
	require.Truef(t, slices.Contains(cards, "dropped records"+"10"+"2974 written of 2984 attempted"), "cards = %v, want it to contain %v", cards, "dropped records"+"10"+"2974 written of 2984 attempted")
}
