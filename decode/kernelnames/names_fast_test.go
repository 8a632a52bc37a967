package kernelnames

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkFastAgrees: when a fast path accepts a file, the YAML parser
// accepts it too and reads the same names.
func checkFastAgrees(t require.TestingT, data []byte) (fast bool) {
	n, _, ok := parseNamesFast("f", bytes.NewReader(data), nil)
	if !ok {
		return false
	}
	want, err := parseNamesYAML("f", data, yamlpos.Limits{Input: 1 << 30, YAML: 1 << 30}, "")
	require.NoErrorf(t, err, "fast path accepts what YAML refuses:\n%s", data)
	require.Truef(t, sameNames(n, want), "fast path reads %+v, YAML %+v:\n%s", n, want, data)
	return true
}

// The names files a generator writes take a fast path.
func TestNamesFastPaths(t *testing.T) {
	example, err := os.ReadFile("../../examples/moe_layer.names.yaml")
	require.NoError(t, err)
	for name, data := range map[string]string{
		"example":   string(example),
		"json":      `{"stages": {"0x10001": "Prefetch"}, "graph_stages": {"0": "Dispatch"}, "tasks": {"0": "Dispatch", "17": "Combine x"}}`,
		"json-crlf": "{\r\n  \"tasks\": {\r\n    \"1\": \"a\"\r\n  }\r\n}\r\n",
		"yaml":      "# names\n\nstages:\n    0x10001: Prefetch   # comment\ngraph_stages:\n  0: Dispatch\ntasks:\n  0: Dispatch\n  17: Combine.v2\n",
		"empty":     "",
		"comments":  "# nothing\n\n",
	} {
		assert.Truef(t, checkFastAgrees(t, []byte(data)), "%s: not read by a fast path", name)
	}
	for name, data := range map[string]string{
		"json-escape":     `{"tasks": {"1": "a\u00e9"}}`,
		"json-null":       `{"tasks": null}`,
		"json-number":     `{"tasks": {"1": 5}}`,
		"json-dup":        `{"tasks": {"1": "a", "0x1": "b"}}`,
		"yaml-quoted":     "tasks:\n  1: 'a'\n",
		"yaml-flow":       "tasks: {1: a}\n",
		"yaml-null":       "tasks:\n  1: null\n",
		"yaml-spaces":     "tasks:\n  1: a b\n",
		"yaml-indent":     "tasks:\n  1: a\n   2: b\n",
		"yaml-dup":        "tasks:\n  1: a\n  1: b\n",
		"yaml-range":      "graph_stages:\n  65536: a\n",
		"yaml-conflict":   "stages:\n  0x30000: a\ngraph_stages:\n  0: b\n",
		"yaml-unknown":    "task:\n  1: a\n",
		"yaml-tab":        "tasks:\n\t1: a\n",
		"yaml-doc-marker": "---\ntasks:\n  1: a\n",
	} {
		assert.Falsef(t, checkFastAgrees(t, []byte(data)), "%s: read by a fast path, want the YAML parser", name)
	}
}

// propNamesFast draws names files near the fast paths' edges, in both
// forms: whatever a fast path accepts, YAML reads the same way; and clean
// files always take the fast path.
func propNamesFast(t *rapid.T) {
	keys := rapid.SliceOfN(rapid.SampledFrom([]string{"0", "1", "7", "0x10", "16", "0x1F", "65535", "65536", "4294967295", "4294967296", "01", "-1", "x"}), 0, 6)
	values := rapid.SampledFrom([]string{"Dispatch", "Gate_Up", "v1.2", "a-b", "_x", "null", "True", "a b", "'q'", "\"q\"", "x#y", "é", "", " ", "1st", "~"})
	sections := rapid.SliceOfN(rapid.SampledFrom([]string{"stages", "graph_stages", "tasks", "bogus"}), 0, 4).Draw(t, "sections")
	clean := true
	type entry struct{ k, v string }
	doc := map[string][]entry{}
	var order []string
	seenSection := map[string]bool{}
	for _, s := range sections {
		if s == "bogus" || seenSection[s] {
			clean = false
		}
		seenSection[s] = true
		order = append(order, s)
		var es []entry
		seen := map[string]bool{}
		for _, k := range keys.Draw(t, "keys") {
			v := values.Draw(t, "value")
			if !plainName([]byte(v)) || !idRE.MatchString(k) || seen[k] || k == "0x10" || k == "16" || k == "0x1F" && s == "stages" ||
				strings.HasPrefix(k, "4294967296") || s == "graph_stages" && (k == "65536" || k == "4294967295") {
				clean = false
			}
			seen[k] = true
			es = append(es, entry{k, v})
		}
		doc[s] = append(doc[s], es...)
	}
	var b strings.Builder
	if rapid.Bool().Draw(t, "json") {
		b.WriteString("{")
		for i, s := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: {", s)
			for j, e := range doc[s] {
				if j > 0 {
					b.WriteString(",\n  ")
				}
				fmt.Fprintf(&b, "%q: %q", e.k, e.v)
			}
			b.WriteString("}")
		}
		b.WriteString("}\n")
	} else {
		indent := strings.Repeat(" ", rapid.IntRange(1, 4).Draw(t, "indent"))
		b.WriteString("# generated\n")
		for _, s := range order {
			fmt.Fprintf(&b, "%s:\n", s)
			for _, e := range doc[s] {
				fmt.Fprintf(&b, "%s%s: %s", indent, e.k, e.v)
				if rapid.Bool().Draw(t, "comment") {
					b.WriteString("  # note")
				}
				b.WriteString("\n")
			}
		}
	}
	data := []byte(b.String())
	fast := checkFastAgrees(t, data)
	require.Falsef(t, clean && !fast, "a clean file missed the fast path:\n%s", data)
}

func TestNamesFastAgrees(t *testing.T) { rapid.Check(t, propNamesFast) }

// FuzzNamesFastPaths holds the fast paths to agreeing with the YAML
// parser on any bytes.
func FuzzNamesFastPaths(f *testing.F) {
	for _, seed := range []string{
		"tasks:\n  1: a\n", `{"tasks": {"1": "a"}}`, "graph_stages:\n  0: x # c\nstages:\n  0x10001: y\n",
		"tasks:\n  1: a\n  2: b\ntasks:\n  3: c\n", "{\"stages\": {}}", "tasks:\n  0x: a\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastAgrees(t, data) })
}

// parseIDBytes reads exactly the keys idRE and strconv do.
func TestParseIDBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.OneOf(
			rapid.StringMatching(`0[xX][0-9a-fA-F]{0,18}`),
			rapid.StringMatching(`[0-9]{0,22}`),
			rapid.String(),
		).Draw(t, "key")
		got, ok := parseIDBytes([]byte(key))
		want, err := strconv.ParseUint(key, 0, 64)
		wantOK := idRE.MatchString(key) && err == nil
		require.Equalf(t, wantOK, ok, "parseIDBytes(%q) = %d; want %d", key, got, want)
		require.Falsef(t, ok && got != want, "parseIDBytes(%q) = %d; want %d", key, got, want)
	})
}

// FuzzNamesStream holds the stream path (a file too large for the YAML
// parser) to the in-memory one: it accepts only what Parse accepts,
// to the same names, and a problem it reports itself (a name too long, a
// task named twice) Parse reports at the same place.
func FuzzNamesStream(f *testing.F) {
	for _, seed := range []string{
		"tasks:\n  1: a\n  1: b\n", `{"tasks": {"1": "a", "1": "b"}}`, "tasks:\n  4000000000: a\n  7: b\n  4000000000: c\n",
		"tasks:\n  1: " + strings.Repeat("x", MaxNameBytes+1) + "\n", `{"tasks": {"2": "` + strings.Repeat("é", MaxNameBytes/2+1) + `"}}`,
		"graph_stages:\n  0: x\ntasks:\n  0: a\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		all := yamlpos.Limits{Input: 1 << 30, YAML: 1 << 30}
		n, err := loadNames("f", bytes.NewReader(data), int64(len(data)), yamlpos.Limits{Input: 1 << 30, YAML: 0})
		want, werr := parseNames("f", data, all)
		var le *yamlpos.LimitError
		switch {
		case err == nil:
			require.NoErrorf(t, werr, "stream path reads %+v, in memory %+v", n, want)
			require.Truef(t, sameNames(n, want), "stream path reads %+v, in memory %+v", n, want)
		case errors.As(err, &le):
		default:
			var list *Errors
			require.ErrorAsf(t, err, &list, "stream path error %T %v", err, err)
			require.Lenf(t, list.Errs, 1, "stream path error %T %v", err, err)
			e := list.Errs[0]
			var wl *Errors
			require.ErrorAsf(t, werr, &wl, "stream path refuses (%v), in memory: %v", err, werr)
			for _, w := range wl.Errs {
				if w.Line == e.Line && w.Col == e.Col && strings.HasPrefix(w.Msg, e.Msg) {
					return
				}
			}
			// The text does not parse, further on than where the stream
			// path stopped: in memory, only that is reported.
			if w := wl.Errs[0]; len(wl.Errs) == 1 && (w.Line > e.Line || w.Line == e.Line && w.Col > e.Col) {
				return
			}
			require.NotEqualf(t, 0, wl.Omitted, "stream path: %v\nin memory, not at that place: %v", err, werr)
		}
	})
}
