package report

// pageHTML is the page. Everything is inline: no element loads anything
// (no src, no external href, no url() but none at all in the CSS), the
// fonts are the system's. Its Content-Security-Policy has the browser
// refuse any load all the same.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="cycleabi report">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<title>{{.Kernel}}: where the time went</title>
<style>
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d6dae0;--bad:#B2182B;--good:#2166AC}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);margin:0;background:#fff}
main{max-width:1240px;margin:0 auto;padding:18px 28px 40px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:18px;margin:26px 0 8px;padding-top:8px;border-top:2px solid var(--fg)}
h3{font-size:14.5px;margin:14px 0 6px}
code{font-size:12.5px}
nav{font-size:12.5px;margin:6px 0 0}
nav a{color:#24456E;margin-right:12px;text-decoration:none}
.sub,.note{color:var(--muted)}
.note{font-size:12.5px;margin:4px 0}
.banner{background:#FBE9EA;border-left:5px solid var(--bad);color:#7a0d19;padding:8px 12px;margin:8px 0;font-weight:600}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:7px 12px;min-width:150px}
.card .l{font-size:11.5px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.card .s{font-size:12px;color:var(--muted)}
.card.bad .v,.card.pos .v{color:var(--bad)}
.card.neg .v{color:var(--good)}
.regions{margin:4px 0;padding-left:18px;font-size:13px}
svg.chart{display:block;width:100%;height:auto;max-width:1000px}
svg.bars{max-width:470px}
svg.columns{max-width:800px}
svg .rowbg{fill:#F7F8FA}
svg .rowlabel{font-size:9.5px;fill:#333}
svg .tick{font-size:10px;fill:#555}
svg .caption{font-size:11px;fill:#333}
svg .gridline{stroke:#E4E7EB;stroke-width:.6}
svg .axis{stroke:#888;stroke-width:.8}
svg .value{font-size:10px;fill:#333}
svg .inbar{font-size:10.5px;fill:#fff}
svg .k-idle,svg .k-gap,svg .k-launch{stroke:#B0B0B0;stroke-width:.5}
table.data{border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums;margin:6px 0}
table.data caption{text-align:left;font-weight:600;padding:4px 0}
table.data th,table.data td{padding:2px 8px;border-bottom:1px solid #ECEEF1;text-align:right;white-space:nowrap}
table.data th{background:#F1F3F5;cursor:pointer;user-select:none}
table.data th[aria-sort=descending]::after{content:" ▼"}
table.data th[aria-sort=ascending]::after{content:" ▲"}
table.data .name,table.data .txt,table.data th:first-child{text-align:left}
table.data td.txt{white-space:normal}
table.data tr.slowest td{font-weight:650}
td.pos{color:var(--bad)}
td.neg{color:var(--good)}
td.bad{color:var(--bad);font-weight:600}
.sw{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:-1px;border:1px solid rgba(0,0,0,.3)}
.legend{list-style:none;padding:0;margin:4px 0 6px;display:flex;flex-wrap:wrap;gap:3px 14px;font-size:12px}
.sw.legend-path{border:0;border-top:2px solid #000;height:0;width:18px;vertical-align:3px}
.pair{display:grid;grid-template-columns:minmax(300px,470px) 1fr;gap:18px;align-items:start;margin-bottom:8px}
.scroll{overflow-x:auto}
details{margin:4px 0}
details summary{cursor:pointer;color:#24456E;font-size:13px}
ul.findings{margin:6px 0;padding-left:18px}
ul.findings li{margin:2px 0}
ul.findings li.bad{color:#7a0d19;font-weight:600}
details ul.findings li{font-size:12.5px;font-weight:400}
svg .median{stroke-dasharray:4 3}
svg .threshold{stroke-dasharray:6 3}
svg .axisbreak{stroke:#888;stroke-width:1;fill:#fff}
@media (max-width:980px){.pair{grid-template-columns:1fr}}
@media print{
 *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 main{max-width:none;padding:0}
 nav{display:none}
 svg.chart,table.data,.pair{break-inside:avoid}
 .pair{grid-template-columns:1fr}
 .scroll{overflow:visible}
}
</style>
</head>
<body>
<main>
<header>
<h1>{{.Kernel}}: where the time went</h1>
<p class="sub">{{.Subtitle}} · ABI v{{.ABIVersion}} · fingerprint <code>{{.Fingerprint}}</code> · made by <code>cycleabi report</code></p>
<nav><a href="#summary">Summary</a>{{if .Multi}}<a href="#ranks">Ranks</a>{{end}}<a href="#timeline">Timeline</a><a href="#cores">Cores</a><a href="#types">Task types and stages</a><a href="#critical-path">Critical path</a>{{if not .Multi}}<a href="#ranks">Ranks</a>{{end}}<a href="#base">Compared with base</a></nav>
</header>

<section id="summary">
<h2>Summary</h2>
{{if .Multi}}{{template "cards" .Cards}}
{{with .Findings}}<ul class="findings">{{range .}}<li{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</li>{{end}}</ul>
{{end}}{{with .RankFindings}}<details><summary>{{$.FindingsTitle}}</summary><ul class="findings">{{range .}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{range .Warnings}}<p class="banner" role="alert">Warning: {{.}}</p>
{{end}}{{range .Notes}}<p class="note">Note: {{.}}</p>
{{end}}{{if .FoldSummary}}<details><summary>{{.CapturesTitle}}</summary><div class="scroll">{{template "table" .Summary}}</div></details>
{{else}}<div class="scroll">{{template "table" .Summary}}</div>
{{end}}{{else}}{{range .Banners}}<p class="banner" role="alert">{{.}}</p>
{{end}}{{range .Warnings}}<p class="banner" role="alert">Warning: {{.}}</p>
{{end}}{{range .Notes}}<p class="note">Note: {{.}}</p>
{{end}}{{template "cards" .Cards}}
<div class="scroll">{{template "table" .Summary}}</div>
{{end}}{{with .DetailNote}}<p class="note">{{.}}</p>{{end}}
</section>
{{if .Multi}}
{{template "ranks" .}}
{{end}}
<section id="timeline">
<h2>Timeline overview</h2>
<p class="note">One row per entered core, AIC then AIV (a core that wrote no record is idle throughout); time runs left to right. Compute is colored by task type; wait, trigger and other are greys; white is idle.{{if .Ranks}}{{with index .Ranks 0}}{{if .Path}} The black line is the critical path.{{end}}{{end}}{{end}} Hover a row for its numbers.</p>
{{range .Ranks}}{{with .Title}}<h3>{{.}}</h3>
{{end}}<ul class="legend">{{range .Legend}}{{template "legend" .}}{{end}}{{range $.KindLegend}}{{template "legend" .}}{{end}}</ul>
{{with .Timeline}}{{template "chart" .}}{{end}}
<p class="note">{{.TLNote}}</p>
{{end}}</section>

<section id="cores">
<h2>Where each core's time went</h2>
{{range .Ranks}}{{with .Title}}<h3>{{.}}</h3>
{{end}}<ul class="regions">{{range .Regions}}<li>{{.}}</li>{{end}}</ul>
<ul class="legend"><li><span class="sw" style="background:#1D4E89"></span>compute</li><li><span class="sw" style="background:#BDBDBD"></span>wait</li><li><span class="sw" style="background:#4D4D4D"></span>trigger</li><li><span class="sw" style="background:#8C8C8C"></span>other</li><li><span class="sw" style="background:#FFFFFF"></span>idle</li></ul>
{{template "chart" .Cores}}
{{with .CoreNote}}<p class="note">{{.}}</p>{{end}}
<div class="scroll">{{template "table" .RegTable}}</div>
<details><summary>Every core, in numbers</summary><div class="scroll">{{template "table" .CoreTab}}</div></details>
{{end}}</section>

<section id="types">
<h2>Task types and stages</h2>
<p class="note">Total time of the records of each group, and their distribution in cycles (p50/p90/p99 by nearest rank; ≈ marks a group whose percentiles come from a histogram, within 0.4 %). Click a column to sort.</p>
{{range .Ranks}}{{with .Title}}<h3>{{.}}</h3>
{{end}}{{range .Groups}}<h3>{{.Title}}</h3>
{{if .Chart}}<div class="pair"><div>{{template "chart" .Chart}}</div><div class="scroll">{{template "table" .Table}}</div></div>
{{else}}<p class="note">No such records.</p>
{{end}}{{end}}{{end}}</section>

<section id="critical-path">
<h2>Critical path</h2>
{{range .Ranks}}{{with .Title}}<h3>{{.}}</h3>
{{end}}{{with .Path}}<p>{{.Text}}</p>
<p class="note">Back from the record that ends last, through the producer that released each wait; gaps are idle time on the path, launch the time from a core's entry to its first record. Compute segments are colored by stage.</p>
<ul class="legend">{{range .Legend}}{{template "legend" .}}{{end}}<li><span class="sw" style="background:#BDBDBD"></span>wait</li><li><span class="sw" style="background:#4D4D4D"></span>trigger</li><li><span class="sw" style="background:#F2F2F2"></span>gap, launch</li></ul>
{{template "chart" .Gantt}}
{{template "chart" .Kinds}}
<div class="pair">{{if .Stages}}<div>{{template "chart" .Stages}}</div>{{end}}<div class="scroll">{{template "table" .KindTab}}{{template "table" .StageT}}</div></div>
<details><summary>Every segment</summary><div class="scroll">{{template "table" .SegTab}}</div></details>
{{else}}<p class="note">{{.PathNote}}</p>
{{end}}{{end}}</section>

{{if not .Multi}}{{template "ranks" .}}

{{end}}<section id="base">
<h2>Compared with base</h2>
{{if .HasBase}}<p class="note">New minus base. Red: larger than the base (for times, slower); blue: smaller.</p>
{{range .InputDifferences}}<p class="banner" role="alert">Inputs differ ({{.}}): the changes may come from them, not from the kernel.</p>
{{end}}{{range .Diffs}}<h3>{{.Title}}</h3>
<div class="scroll">{{template "table" .Summary}}</div>
<div class="scroll">{{template "table" .TaskTypes}}</div>
<div class="scroll">{{template "table" .Stages}}</div>
{{end}}{{else}}<p class="note">No base: <code>--base CAPTURE</code> compares these captures with earlier ones.</p>
{{end}}</section>
</main>
<script>
(function () {
  function key(row, i) {
    var c = row.cells[i];
    if (!c) { return ""; }
    var v = c.getAttribute("data-v");
    return v === null ? c.textContent : v;
  }
  var heads = document.querySelectorAll("table.data th");
  Array.prototype.forEach.call(heads, function (th) {
    th.tabIndex = 0;
    th.addEventListener("click", function () {
      var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
      var down = th.getAttribute("aria-sort") !== "descending";
      Array.prototype.forEach.call(table.querySelectorAll("th"), function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, i), y = key(b, i), fx = parseFloat(x), fy = parseFloat(y);
        var c = (!isNaN(fx) && !isNaN(fy)) ? fx - fy : x.localeCompare(y);
        return down ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  });
})();
</script>
</body>
</html>
{{define "cards"}}<div class="cards">{{range .}}<div class="card{{with .Class}} {{.}}{{end}}"><div class="l">{{.Label}}</div><div class="v">{{if .Href}}<a href="{{.Href}}">{{.Value}}</a>{{else}}{{.Value}}{{end}}</div><div class="s">{{.Sub}}</div></div>{{end}}</div>{{end}}{{define "ranks"}}<section id="ranks">
<h2>Ranks</h2>
{{with .CrossRank}}<p>{{.Text}} {{.Slow}}</p>
{{template "chart" .Columns}}
{{with .Heat}}{{template "chart" .}}{{end}}
{{if .Fold}}<details><summary>Makespan of every rank ({{len .Table.Rows}} ranks)</summary><div class="scroll">{{template "table" .Table}}</div></details>
{{else}}<div class="scroll">{{template "table" .Table}}</div>
{{end}}<div class="scroll">{{template "table" .Spreads}}</div>
{{else}}<p class="note">One capture: give one capture per rank to compare the ranks.</p>
{{end}}</section>{{end}}{{define "legend"}}<li><span class="sw{{with .Class}} {{.}}{{end}}"{{with .Color}} style="background:{{.}}"{{end}}></span>{{.Name}}</li>{{end}}
{{define "table"}}<table class="data" data-table="{{.Name}}"{{with .Rank}} data-rank="{{.}}"{{end}}>
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Head}}<th{{if .Num}} class="num"{{end}}{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-key="{{.Key}}"{{with .Class}} class="{{.}}"{{end}}>{{range .Cells}}<td{{with .F}} data-f="{{.}}"{{end}}{{with .V}} data-v="{{.}}"{{end}}{{with .Class}} class="{{.}}"{{end}}>{{with .Swatch}}<span class="sw" style="background:{{.}}"></span>{{end}}{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{with .Note}}
<p class="note">{{.}}</p>{{end}}{{end}}
{{define "chart"}}<svg id="{{.ID}}" class="chart {{.Class}}" viewBox="0 0 {{n .W}} {{n .H}}" width="{{n .W}}" height="{{n .H}}" role="img" aria-label="{{.Label}}">
<title>{{.Label}}</title>
{{range .Grid}}<line x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}" class="{{.Class}}"/>{{end}}
{{range .Rects}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"{{with .Fill}} fill="{{.}}"{{end}}{{with .Class}} class="{{.}}"{{end}}>{{with .Title}}<title>{{.}}</title>{{end}}</rect>
{{end}}{{range .Paths}}<path d="{{.D}}"{{with .Fill}} fill="{{.}}"{{end}}>{{with .Title}}<title>{{.}}</title>{{end}}</path>
{{end}}{{range .Over}}<path d="{{.D}}" fill="none" stroke="{{.Stroke}}" stroke-width="{{.StrokeWidth}}" class="{{.Class}}">{{with .Title}}<title>{{.}}</title>{{end}}</path>
{{end}}{{range .Texts}}<text x="{{.X}}" y="{{.Y}}" text-anchor="{{.Anchor}}" class="{{.Class}}">{{with .Title}}<title>{{.}}</title>{{end}}{{.Text}}</text>{{end}}
</svg>{{end}}
`
