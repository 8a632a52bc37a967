package cli

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rankCaptures synthesizes n ranks of the example MoE layer, each with its
// own seed (its own timings), as rank<i>.bin, and returns their paths and
// each rank's makespan worked out here from its decoded records: the
// latest record end minus the earliest entry of a core with records.
func rankCaptures(t *testing.T, n int) ([]string, []uint64) {
	t.Helper()
	s, err := plan.ParseFile("../../../examples/moe_layer.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	var paths []string
	var makespans []uint64
	for i := range n {
		c, err := synth.Run(s, synth.Options{Seed: uint64(i + 1), CapacityScale: 0.8})
		require.NoError(t, err)
		path := filepath.Join(dir, fmt.Sprintf("rank%d.bin", i))
		require.NoError(t, os.WriteFile(path, c.Buffer, 0o644))
		capt, err := capture.FromBytes(path, c.Buffer)
		require.NoError(t, err)
		d, err := decode.Decode(capt, capture.Request{})
		require.NoError(t, err)
		var first, last uint64
		seen := false
		require.NoError(t, d.Records(func(r decode.Record) bool {
			if !seen || r.EntryCycle < first {
				first = r.EntryCycle
			}
			last = max(last, r.EndCycle)
			seen = true
			return true
		}))
		paths = append(paths, path)
		makespans = append(makespans, last-first)
	}
	return paths, makespans
}

// byMakespan lists the ranks, the longest makespan first, of equal ones
// the lower rank first.
func byMakespan(makespans []uint64) []int {
	var ranks []int
	for i := range makespans {
		ranks = append(ranks, i)
	}
	slices.SortFunc(ranks, func(a, b int) int {
		if c := cmp.Compare(makespans[b], makespans[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ranks
}

var rankHeading = regexp.MustCompile(`(?m)^== rank (\d+): [^\n]*==$`)

// headings lists the ranks of the sections' headings, in order.
func headings(t *testing.T, out string) []int {
	var ranks []int
	for _, m := range rankHeading.FindAllStringSubmatch(out, -1) {
		r, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		ranks = append(ranks, r)
	}
	return ranks
}

// Past analyze.MaxTextSections ranks the text is the cluster's summary,
// the tables across ranks (the Ranks table cut to the --top slowest), and
// the sections of the 3 slowest ranks only, slowest first, each heading
// saying which slowest it is: checked against the makespans worked out
// from the records.
func TestAnalyzeManyRanksText(t *testing.T) {
	t.Parallel()
	const n = 20
	paths, makespans := rankCaptures(t, n)
	want := byMakespan(makespans)
	require.NotEqualf(t, makespans[want[3]], makespans[want[2]], "the 3rd and 4th slowest ranks have equal makespans %v: the seeds do not tell them apart", makespans)
	out, errOut, code := runMain(t, append([]string{"analyze", "--names", "../../../examples/moe_layer.names.yaml"}, paths...)...)
	require.Equalf(t, 0, code, "code: %s", errOut)
	assert.Truef(t, strings.HasPrefix(out, fmt.Sprintf("== %d ranks: summary ==\nslowest: rank %d (%s), makespan %d cycles", n, want[0], paths[want[0]], makespans[want[0]])), "the output does not begin with the summary naming rank %d slowest:\n%.400s", want[0], out)
	assert.Truef(t, slices.Equal(headings(t, out), want[:3]), "sections of ranks, want the 3 slowest %v (makespans %v)", want[:3], makespans)
	for i, why := range []string{"slowest", "2nd slowest", "3rd slowest"} {
		h := fmt.Sprintf("== rank %d: %s (%s of %d ranks by makespan) ==\n", want[i], paths[want[i]], why, n)
		assert.Contains(t, out, h, "no heading")
	}
	// In order: summary, Ranks, stages and task types across ranks, the
	// slow-rank line, then the sections.
	at := -1
	for _, s := range []string{"== 20 ranks: summary ==", "\nspread: ", "\nRanks\n", "\nStages across ranks", "\nTask types across ranks", "\nno slow rank (", "\n== rank "} {
		i := strings.Index(out, s)
		assert.Greaterf(t, i, at, "%q at", s)
		at = i
	}
	// The Ranks table keeps the 10 slowest (--top 10), in rank order.
	table := out[strings.Index(out, "\nRanks\n"):strings.Index(out, "\nStages across ranks")]
	kept := slices.Clone(want[:10])
	slices.Sort(kept)
	var rows []int
	for _, line := range strings.Split(table, "\n")[3:] {
		var r int
		if _, err := fmt.Sscanf(line, "%d ", &r); err == nil {
			rows = append(rows, r)
		}
	}
	assert.Truef(t, slices.Equal(rows, kept), "Ranks table rows %v, want the 10 slowest in rank order %v:\n%s", rows, kept, table)
	assert.Contains(t, table, "... 10 more rows (ranks with a shorter makespan; --top 0 shows all)\n", "the Ranks table does not say how many rows it left out")
	// --per-rank: every rank's section, in rank order, and no summary.
	out, errOut, code = runMain(t, append([]string{"analyze", "--per-rank", "--names", "../../../examples/moe_layer.names.yaml"}, paths...)...)
	require.Equalf(t, 0, code, "per-rank: code: %s", errOut)
	var all []int
	for i := range n {
		all = append(all, i)
	}
	assert.Truef(t, slices.Equal(headings(t, out), all), "per-rank: sections of ranks, want every rank %v", all)
	assert.NotContains(t, out, "summary ==", "per-rank writes the summary")
}

// Up to analyze.MaxTextSections ranks every rank has its section, as
// before the summary existed, and the help says where the threshold is.
func TestAnalyzeRanksAtThreshold(t *testing.T) {
	t.Parallel()
	n := analyze.MaxTextSections
	paths, _ := rankCaptures(t, n)
	out, errOut, code := runMain(t, append([]string{"analyze"}, paths...)...)
	require.Equalf(t, 0, code, "code: %s", errOut)
	var all []int
	for i := range n {
		all = append(all, i)
	}
	assert.Truef(t, slices.Equal(headings(t, out), all), "sections of ranks, want every rank %v", all)
	assert.NotContainsf(t, out, "summary ==", "%d ranks get the summary", n)
	help, _, _ := runMain(t, "analyze", "--help")
	assert.Contains(t, help, fmt.Sprintf("Past %d ranks", n), "the help does not say")
	_, errOut, code = runMain(t, "analyze", "--per-rank", "--format", "json", paths[0])
	assert.Equalf(t, 2, code, "per-rank --format json: code\n%s", errOut)
	assert.Contains(t, errOut, "--per-rank goes with --format text", "per-rank --format json: the reason")
}
