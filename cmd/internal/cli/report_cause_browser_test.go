package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// causeCluster synthesizes five ranks of the MoE example (seeds 1 to 5),
// rank 2 from the schedule edit makes of examples/moe_layer.yaml's text
// instead, and returns the report's arguments.
func causeCluster(t *testing.T, edit func(schedule string) string) []string {
	t.Helper()
	text, err := os.ReadFile("examples/moe_layer.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.yaml")
	require.NoError(t, os.WriteFile(slow, []byte(edit(string(text))), 0o644))
	var ranks []string
	for i := range 5 {
		schedule := "examples/moe_layer.yaml"
		if i == 2 {
			schedule = slow
		}
		p := filepath.Join(dir, fmt.Sprintf("rank%d.bin", i))
		out, code, _ := runOut(t, "synth", schedule, "--seed", strconv.Itoa(i+1), "-o", p)
		require.Equal(t, ExitOK, code, out)
		ranks = append(ranks, p)
	}
	return append(ranks, "--kernel-family", "none", "--names", "examples/moe_layer.names.yaml")
}

// TestCauseCardsInChromium: the first screen names why the slowest rank
// is slowest, as the browser shows it, for a rank slow in one stage (its
// SwiGLU tiles take a GroupedMatMul's time) and one slow on its waits
// (each chunk's InputNorm waits for the chunk before to finish, so the
// chunks run one after another: the same work, a longer chain).
func TestCauseCardsInChromium(t *testing.T) {
	bin := chromium(t)
	t.Chdir("../../..")
	stage := causeCluster(t, func(s string) string {
		require.Contains(t, s, "{task_type: SwiGLU,", "examples/moe_layer.yaml has no SwiGLU task to slow down")
		return strings.ReplaceAll(s, "{task_type: SwiGLU,", "{task_type: GroupedMatMul,")
	})
	cards := cardsInChromium(t, bin, reportPage(t, stage...))
	require.GreaterOrEqualf(t, len(cards), 2, "the cards %q, want rank 2 slowest in its stage SwiGLU", cards)
	require.Truef(t, strings.HasPrefix(cards[0], "slowest rank | rank 2"), "the cards %q, want rank 2 slowest in its stage SwiGLU", cards)
	assert.Truef(t, strings.HasPrefix(cards[1], "where it is slowest | SwiGLU | +"), "the cards %q, want rank 2 slowest in its stage SwiGLU", cards)

	chain := causeCluster(t, func(s string) string {
		for c := 1; c < 8; c++ {
			s = strings.ReplaceAll(s, fmt.Sprintf("{task_type: RmsNorm, trigger_event: %d}", 8*c),
				fmt.Sprintf("{task_type: RmsNorm, dependent_event: %d, trigger_event: %d}", 8*(c-1)+7, 8*c))
		}
		return s
	})
	cards = cardsInChromium(t, bin, reportPage(t, chain...))
	require.GreaterOrEqualf(t, len(cards), 2, "the cards %q, want rank 2 slowest on its waits", cards)
	require.Truef(t, strings.HasPrefix(cards[0], "slowest rank | rank 2"), "the cards %q, want rank 2 slowest on its waits", cards)
	assert.Truef(t, strings.HasPrefix(cards[1], "why it is slowest: waits"), "the cards %q, want rank 2 slowest on its waits", cards)
}
