package analyze_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --top N cuts the cores table too: to the N cores with the most compute
// (ties: the earlier core), in core order, and a line says how many were
// left out. The rows expected are picked here by a plain selection over
// the report's cores.
func TestTopCutsCoresTable(t *testing.T) {
	rep := moeReport(t, true)
	cores := rep.Ranks[0].Cores
	require.Len(t, cores, 72, "the example")
	for _, top := range []int{1, 3, 10, 71, 72, 0} {
		var b bytes.Buffer
		require.NoError(t, rep.WriteText(&b, top))
		var want []string
		for i, c := range cores {
			// Kept when fewer than top cores beat it.
			better := 0
			for j, o := range cores {
				if o.ComputeCycles > c.ComputeCycles || o.ComputeCycles == c.ComputeCycles && j < i {
					better++
				}
			}
			if top == 0 || better < top {
				want = append(want, c.Core)
			}
		}
		got := coreRows(t, b.String())
		assert.Equalf(t, strings.Join(want, " "), strings.Join(got, " "), "top %d: cores %v, want %v", top, got, want)
		note := fmt.Sprintf("... %d more rows (cores with less compute; --top 0 shows all)\n", 72-len(want))
		assert.Equalf(t, (len(want) < 72), strings.Contains(b.String(), note), "top %d: omitted line %q present", top, note)
		var md bytes.Buffer
		require.NoError(t, rep.WriteMarkdown(&md, top))
		mdNote := fmt.Sprintf("\n%d more rows (cores with less compute; `--top 0` shows all).\n", 72-len(want))
		assert.Equalf(t, (len(want) < 72), strings.Contains(md.String(), mdNote), "top %d: markdown omitted line %q present", top, mdNote)
	}
}

// coreRows returns the first column of the text cores table's rows.
func coreRows(t *testing.T, text string) []string {
	_, after, ok := strings.Cut(text, "Where each core's time went (cycles)\n")
	require.True(t, ok, "no cores table")
	lines := strings.Split(after, "\n")[1:] // less the head
	var names []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "AIC/") && !strings.HasPrefix(l, "AIV/") {
			break
		}
		names = append(names, strings.Fields(l)[0])
	}
	return names
}
