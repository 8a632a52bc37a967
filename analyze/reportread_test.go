package analyze_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/internal/testkit/short"
	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadReportRoundTrip: a report read back (from bytes or streamed)
// writes the bytes it was read from, its critical path held packed alone
// (no segment kept besides), and a path whose segments do not tile or
// whose µs are not the ones analyze derives (a report edited by hand)
// reads back as it was written too: each segment as encoding/json reads
// the same text.
func TestReadReportRoundTrip(t *testing.T) {
	var js bytes.Buffer
	require.NoError(t, moeReport(t, true).WriteJSON(&js))
	for name, read := range map[string]func([]byte) (*analyze.Report, error){
		"bytes":  func(b []byte) (*analyze.Report, error) { return analyze.ReadReport("moe.json", b) },
		"stream": func(b []byte) (*analyze.Report, error) { return analyze.ReadReportFrom("moe.json", bytes.NewReader(b)) },
	} {
		t.Run(name, func(t *testing.T) {
			r, err := read(js.Bytes())
			require.NoError(t, err)
			segs := &r.Ranks[0].CriticalPath.Segments
			require.GreaterOrEqual(t, segs.Len(), 100)
			assert.Equal(t, 0, analyze.OddSegments(segs))
			var again bytes.Buffer
			require.NoError(t, r.WriteJSON(&again))
			assert.True(t, bytes.Equal(again.Bytes(), js.Bytes()), "the report read back writes other bytes (%d, want %d)", again.Len(), js.Len())
		})
	}

	// Edited: the 3rd segment ends 5 cycles early (a hole), the 5th
	// starts at µs -0 and the 8th lasts 1.5 µs more than its cycles.
	text := js.String()
	segAt := regexp.MustCompile(`(?s)\{\s*"core"[^{}]*\}`)
	first := strings.Index(text, `"segments": [`)
	locs := segAt.FindAllStringIndex(text[first:], 8)
	require.GreaterOrEqual(t, len(locs), 8)
	edits := map[int]func(seg string) string{
		2: func(s string) string {
			return replaceNumber(t, s, "end_cycle", func(v float64) float64 { return v - 5 })
		},
		4: func(s string) string {
			return regexp.MustCompile(`"start_us": [^,\n]+`).ReplaceAllString(s, `"start_us": -0`)
		},
		7: func(s string) string {
			return replaceNumber(t, s, "duration_us", func(v float64) float64 { return v + 1.5 })
		},
	}
	var b strings.Builder
	last := 0
	for i, l := range locs {
		if edit := edits[i]; edit != nil {
			b.WriteString(text[last : first+l[0]])
			b.WriteString(edit(text[first+l[0] : first+l[1]]))
			last = first + l[1]
		}
	}
	b.WriteString(text[last:])
	edited := b.String()
	r, err := analyze.ReadReport("edited.json", []byte(edited))
	require.NoError(t, err)
	segs := &r.Ranks[0].CriticalPath.Segments
	assert.Equal(t, len(edits), analyze.OddSegments(segs))
	var again bytes.Buffer
	require.NoError(t, r.WriteJSON(&again))
	assert.Equal(t, edited, again.String(), "the edited report read back writes other bytes")
	// Each segment as encoding/json reads the text.
	var doc struct {
		Ranks []struct {
			CriticalPath struct {
				Segments []analyze.Segment `json:"segments"`
			} `json:"critical_path"`
		} `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal([]byte(edited), &doc))
	want := doc.Ranks[0].CriticalPath.Segments
	require.Len(t, want, segs.Len())
	for i := range want {
		require.Equalf(t, want[i], segs.At(i), "segment %d read as", i)
	}
}

// replaceNumber applies f to the number of key in a segment's text.
func replaceNumber(t *testing.T, seg, key string, f func(float64) float64) string {
	t.Helper()
	re := regexp.MustCompile(`"` + key + `": ([^,\n]+)`)
	m := re.FindStringSubmatch(seg)
	require.NotNilf(t, m, "no %s in %s", key, seg)
	var v float64
	require.NoError(t, json.Unmarshal([]byte(m[1]), &v))
	out, _ := json.Marshal(f(v))
	return strings.Replace(seg, m[0], `"`+key+`": `+string(out), 1)
}

// TestReadReportAgrees: what ReadReport reads of a report, changed in
// ways encoding/json accepts (keys of another case, a key twice,
// unknown keys, null for a number or the segments, bytes that are not
// UTF-8, a lone surrogate), is what encoding/json reads; what it refuses
// (the wrong kind of value, a number out of range, bad JSON) encoding/json
// refuses too.
func TestReadReportAgrees(t *testing.T) {
	var js bytes.Buffer
	require.NoError(t, moeReport(t, true).WriteJSON(&js))
	text := js.String()
	cases := map[string]string{
		"as written":  text,
		"case":        strings.Replace(text, `"abi_fingerprint"`, `"ABI_Fingerprint"`, 1),
		"twice":       strings.Replace(text, `"makespan_us": `, `"makespan_us": 7, "makespan_us": `, 1),
		"unknown":     strings.Replace(text, `"abi_version": 1,`, `"zzz": [1, {"a": null, "b": "x"}], "abi_version": 1,`, 1),
		"null number": regexp.MustCompile(`"makespan_us": [^,\n]+`).ReplaceAllString(text, `"makespan_us": null`),
		"null segs":   strings.Replace(text, `"segments": [`, `"segments": null, "y": [`, 1),
		"not utf-8":   strings.Replace(text, `"capture": "`, "\"capture\": \"\xff\xfe", 1),
		"surrogate":   strings.Replace(text, `"capture": "`, `"capture": "\ud800`, 1),
		"escapes":     strings.Replace(text, `"capture": "`, `"capture": "\u00e9\n\"\\`, 1),
		"wrong kind":  strings.Replace(text, `"records": `, `"records": "1`, 1),
		"negative":    regexp.MustCompile(`"block_id": \d+`).ReplaceAllString(text, `"block_id": -1`),
		"too large":   regexp.MustCompile(`"block_id": \d+`).ReplaceAllString(text, `"block_id": 4294967296`),
		"fraction":    regexp.MustCompile(`"dropped": \d+`).ReplaceAllString(text, `"dropped": 1.5`),
		"map kind":    strings.Replace(text, `"regions": {`, `"regions": [], "x": {`, 1),
		"bad json":    strings.Replace(text, `"records": `, `"records" `, 1),
		"truncated":   text[:len(text)*2/3],
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := analyze.ReadReport("c.json", []byte(c))
			var want analyze.Report
			werr := json.Unmarshal([]byte(c), &want)
			require.Equalf(t, (werr == nil), (err == nil), "ReadReport: %v; encoding/json: %v", err, werr)
			if err != nil {
				var ye *yamlpos.Error
				require.ErrorAsf(t, err, &ye, "%v: want an error placed at a line and column of the report", err)
				require.NotEqualf(t, 0, ye.Line, "%v: want an error placed at a line and column of the report", err)
				assert.Containsf(t, err.Error(), "not an analyze --format json report: ", "%v: want an error placed at a line and column of the report", err)
				return
			}
			var g, w bytes.Buffer
			require.NoError(t, got.WriteJSON(&g))
			require.NoError(t, want.WriteJSON(&w))
			assert.Equal(t, []byte(w.Bytes()), []byte(g.Bytes()), "ReadReport and encoding/json read different reports")
		})
	}
}

// failingReader reads r, then fails as a file that cannot be read does.
type failingReader struct{ r io.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, &fs.PathError{Op: "read", Path: "base.json", Err: errors.New("input/output error")}
	}
	return n, err
}

// TestReadReportReadError: a report that cannot be read to its end is
// the read error (an I/O error to diff, exit 2), not a truncated report.
func TestReadReportReadError(t *testing.T) {
	var js bytes.Buffer
	require.NoError(t, moeReport(t, false).WriteJSON(&js))
	_, err := analyze.ReadReportFrom("base.json", failingReader{bytes.NewReader(js.Bytes()[:js.Len()/2])})
	var pe *fs.PathError
	require.ErrorAsf(t, err, &pe, "got %v, want the read error", err)
	assert.NotContainsf(t, err.Error(), "truncated", "got %v, want the read error", err)
}

// heapReader is an io.Reader of r that, every MiB, fails when the live
// heap is over limit.
type heapReader struct {
	r       io.Reader
	n, next int
	peak    uint64
	limit   uint64
}

func (h *heapReader) Read(p []byte) (int, error) {
	if h.n >= h.next {
		h.next = h.n + 1<<20
		live := liveHeap()
		h.peak = max(h.peak, live)
		if live > h.limit {
			return 0, errHeap
		}
	}
	n, err := h.r.Read(p)
	h.n += n
	return n, err
}

// TestReadReportMemory: a report of a 60k-task chain's path (300k
// segments, about 75 MB of JSON) is read holding at most 40 bytes a
// segment besides a few MiB: the text streams (never whole), and the
// segments go straight into their packed form (16 bytes a segment; the
// slice grows by doubling). encoding/json held the text and 106 bytes a
// segment.
func TestReadReportMemory(t *testing.T) {
	short.Skip(t, "simulates a 60k-task chain")
	const tasks = 60_000
	d, deps := chainCapture(t, tasks)
	res, err := analyze.Analyze(d, analyze.Options{FrequencyMHz: 50, Deps: deps})
	require.NoError(t, err)
	rep := analyze.NewReport([]*analyze.Rank{res})
	n := res.CriticalPath.Segments.Len()
	d, deps = nil, nil

	// The report is written as it is read, through a pipe.
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(rep.WriteJSON(pw)) }()
	start := liveHeap()
	h := &heapReader{r: pr, limit: start + uint64(40*n) + 8<<20}
	back, err := analyze.ReadReportFrom("chain.json", h)
	pr.Close()
	require.NoErrorf(t, err, "peak live heap %.1f MiB, %.1f at the start, %d segments", float64(h.peak)/(1<<20), float64(start)/(1<<20), n)
	runtime.KeepAlive(rep)
	require.Equal(t, n, back.Ranks[0].CriticalPath.Segments.Len(), "segments read, from %d bytes", h.n)
	require.GreaterOrEqual(t, h.n, 200*n, "bytes read for %d segments", n)
	t.Logf("%d segments, %.1f MB of JSON: peak live heap %.1f MiB over %.1f at the start", n, float64(h.n)/1e6, float64(h.peak-min(h.peak, start))/(1<<20), float64(start)/(1<<20))
}

// FuzzReadReportAgrees: ReadReport reads what encoding/json reads (the
// same report, written back byte for byte) and refuses only what
// encoding/json refuses, or what it checks after reading (a report
// without a fingerprint or ranks, of another ABI version, a null rank)
// and nesting past jsonread's bound in a value it skips.
func FuzzReadReportAgrees(f *testing.F) {
	f.Add([]byte(`{"abi_version":1,"abi_fingerprint":"e7b0842e14986bfc","ranks":[{"rank":0,"capture":"a.bin",
"cycle_frequency_mhz":50,"records":3,"makespan_cycles":100,"makespan_us":2,"start_cycle":1,
"invocation":{"invocation_id":3,"step":null,"direction":"fwd"},
"layout":{"cube_slots":1,"capacities":{"AIC":16},"size":4096},
"cores":[{"core":"AIC/0","core_type":"AIC","block_id":0,"entry_cycle":1,"end_cycle":101,"records":3,"compute_cycles":50,"wait_cycles":20,"trigger_cycles":5,"other_cycles":0,"idle_cycles":25}],
"regions":{"AIC":{"cores":1,"active_cores":1,"span_cycles":100,"compute_cycles":50,"busy_pct":50,"imbalance":1}},
"totals":{"cores":1,"span_cycles":100,"compute_cycles":50,"busy_pct":50,"imbalance":1},
"task_types":[{"name":"MatMul","count":1,"total_cycles":50,"mean_cycles":50,"p50_cycles":50,"p90_cycles":50,"p99_cycles":50,"max_cycles":50,"exact":true}],
"stages":[{"name":"Router","count":1,"total_cycles":50}],"owners":[],"waits":null,
"critical_path":{"start_cycle":1,"end_cycle":101,"total_cycles":100,"by_kind":{"compute":50,"gap":50},"by_stage":[{"name":"Router","cycles":50}],
"segments":[{"core":"AIC/0","task_id":null,"kind":"gap","start_cycle":1,"end_cycle":51,"start_us":0,"duration_us":1},{"core":"AIC/0","task_id":3,"kind":"compute","start_cycle":51,"end_cycle":101,"start_us":1,"duration_us":1,"task_type":"MatMul","stage":"Router"}]},
"flows":{"waits":1,"arrows":1,"waits_without_producer":0},"notes":["a\u00e9"]}],
"cross_rank":{"ranks":[{"rank":0,"slow":true}],"slow_ranks":[{"rank":0,"invocation_id":5}],"stages":[{"name":"x","min_rank":{"rank":0}}]},
"inputs":[{"flag":"--plan","value":"x","sha256":"00"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		got, err := analyze.ReadReport("fuzz.json", data)
		var want analyze.Report
		werr := json.Unmarshal(data, &want)
		if err != nil {
			checked := want.ABIFingerprint == "" || len(want.Ranks) == 0 || want.ABIVersion != 1 ||
				slices.Contains(want.Ranks, nil) || strings.Contains(err.Error(), "nested more than")
			require.Falsef(t, werr == nil && !checked, "ReadReport refuses what encoding/json reads: %v", err)
			return
		}
		require.NoError(t, werr, "ReadReport reads what encoding/json refuses")
		var g, w bytes.Buffer
		gerr, wwerr := got.WriteJSON(&g), want.WriteJSON(&w)
		require.Equal(t, wwerr == nil, gerr == nil, "ReadReport's report writes (%v) as encoding/json's does (%v)", gerr, wwerr)
		require.Equal(t, w.String(), g.String(), "ReadReport and encoding/json read different reports")
	})
}

// TestReadReportHoldsBounded: a report whose values would take more than
// twice its text (besides a slack, 1 MiB here) is refused where it
// overflows, placed in it: a rank of some 300 bytes is made of "{}", and
// so is a segment held besides its packed form. A report analyze wrote
// holds less than its text.
func TestReadReportHoldsBounded(t *testing.T) {
	defer analyze.SetReportSlack(1 << 20)()
	var js bytes.Buffer
	require.NoError(t, moeReport(t, true).WriteJSON(&js))
	_, err := analyze.ReadReport("moe.json", js.Bytes())
	require.NoError(t, err, "a report analyze wrote")
	empties := func(n int) string { return strings.Repeat("{},", n-1) + "{}" }
	for name, text := range map[string]string{
		"ranks":    `{"abi_version":1,"abi_fingerprint":"x","ranks":[` + empties(20000) + `]}`,
		"segments": `{"abi_version":1,"abi_fingerprint":"x","ranks":[{"critical_path":{"segments":[` + empties(100000) + `]}}]}`,
		"notes":    `{"abi_version":1,"abi_fingerprint":"x","ranks":[{"notes":[` + strings.Repeat(`"",`, 200000) + `""]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := analyze.ReadReport("h.json", []byte(text))
			var ye *yamlpos.Error
			require.ErrorAsf(t, err, &ye, "got %v, want the report refused where its values pass twice its text", err)
			require.Equalf(t, 1, ye.Line, "got %v, want the report refused where its values pass twice its text", err)
			require.GreaterOrEqualf(t, ye.Col, 50, "got %v, want the report refused where its values pass twice its text", err)
			assert.Containsf(t, err.Error(), "twice the text", "got %v, want the report refused where its values pass twice its text", err)
		})
	}
}
