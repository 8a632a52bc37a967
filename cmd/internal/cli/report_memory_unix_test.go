//go:build unix

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportPerRankBudget is the most live heap report may keep per rank of
// examples/aiv_pipeline.npy (its analysis, its check's result, its
// capture's summary); a rank's 900-bin timeline, which report kept for
// every rank until the page was written, is many times more (the
// figures are in docs/memory.md).
const reportPerRankBudget = 64 << 10

// What report keeps of each rank stays a small summary: the peak live
// heap of a report over 1,024 ranks exceeds that over 8 by less than
// reportPerRankBudget a rank.
//
// The live heap is the Go collector's own count of what it marked live,
// read from a child's GODEBUG=gctrace=1 lines (every cycle is reported,
// none can be missed) and maxed over the run: bytes, not time, so the
// load of a shared machine does not move it, and not RSS, which lags the
// heap by the collector's slack. GOGC=25 has it collect often, so the
// peak it sees is close to the true one. report holds the timeline of
// the slowest rank so far and of the rank at hand, whatever the number of
// ranks, so what grows from 8 ranks to 1,024 is what each rank keeps.
func TestReportMemoryPerRank(t *testing.T) {
	t.Parallel()
	const capture, few, many = "../../../examples/aiv_pipeline.npy", 8, 1024
	bin := buildBinary(t)
	small := reportPeakLiveHeap(t, bin, capture, few, 0)
	// A regression is stopped as it passes the budget, not run to its end
	// (keeping every rank's timeline would take gigabytes).
	limit := small + reportPerRankBudget*(many-few)
	large := reportPeakLiveHeap(t, bin, capture, many, limit)
	perRank := (large - min(large, small)) / (many - few)
	t.Logf("peak live heap: %d ranks %d B, %d ranks %d B: %d B a rank", few, small, many, large, perRank)
	assert.LessOrEqualf(t, large, limit, "report keeps over %d bytes a rank (%d ranks: %d B live at most; %d B and growing, stopped), over the budget of %d", perRank, few, small, many, reportPerRankBudget)
}

var gcLive = regexp.MustCompile(`^gc \d+ .* \d+->\d+->(\d+) MB`)

// reportPeakLiveHeap runs bin's report over a window of ranks links to
// capture and returns the largest live heap a collection found, in bytes;
// past limit (when not 0) it stops the run and returns what it found.
func reportPeakLiveHeap(t *testing.T, bin, capture string, ranks int, limit uint64) uint64 {
	t.Helper()
	abs, err := filepath.Abs(capture)
	require.NoError(t, err)
	dir := t.TempDir()
	var manifest []byte
	for i := range ranks {
		name := fmt.Sprintf("c%d.bin", i)
		require.NoError(t, os.Symlink(abs, filepath.Join(dir, name)))
		manifest = fmt.Appendf(manifest, "- {capture: %s, rank: %d}\n", name, i)
	}
	window := filepath.Join(dir, "window.yaml")
	require.NoError(t, os.WriteFile(window, manifest, 0o644))
	cmd := exec.Command(bin, "report", "--invocation-manifest", window, "-o", filepath.Join(dir, "report.html"))
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOGC=25", "GOMEMLIMIT=off")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var most uint64
	var cycles int
	var other strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		m := gcLive.FindSubmatch(lines.Bytes())
		if m == nil {
			fmt.Fprintln(&other, lines.Text())
			continue
		}
		mb, err := strconv.ParseUint(string(m[1]), 10, 64)
		require.NoError(t, err)
		cycles++
		most = max(most, mb<<20)
		if limit > 0 && most > limit {
			cmd.Process.Kill()
			cmd.Wait()
			return most
		}
	}
	require.NoErrorf(t, cmd.Wait(), "report of %d ranks\n%s", ranks, other.String())
	require.NotEqualf(t, 0, cycles, "report of %d ranks: no gctrace line in\n%s", ranks, other.String())
	return most
}
