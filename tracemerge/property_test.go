package tracemerge

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// decimalText draws decimal text: up to maxWhole whole digits and up to
// three fractional digits, trailing zeros trimmed as decode writes them.
func decimalText(t *rapid.T, label string, maxWhole int) string {
	whole := rapid.StringMatching(fmt.Sprintf(`[1-9][0-9]{0,%d}|0`, maxWhole-1)).Draw(t, label+"Whole")
	frac := strings.TrimRight(rapid.StringMatching(`[0-9]{0,3}`).Draw(t, label+"Frac"), "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// TestPropMergeKeepsDurationsAndOrder: every internal event keeps its
// duration text and its place in the order, and its offset from the
// invocation's earliest event, exactly, wherever the outer kernel is.
func TestPropMergeKeepsDurationsAndOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "events")
		ev := make([]mkEvent, n)
		for i := range ev {
			ev[i] = mkEvent{
				name: fmt.Sprintf("e%d", i), pid: 0,
				tid: rapid.SampledFrom([]int{1000, 1001, 2000, 2005}).Draw(rt, "tid"),
				ts:  decimalText(rt, "ts", 8), dur: decimalText(rt, "dur", 5), inv: -1,
			}
		}
		outerTs := decimalText(rt, "outerTs", 15) // below 2^53 us, as real clocks are
		quoted := rapid.Bool().Draw(rt, "quoted")
		tsText := outerTs
		if quoted {
			tsText = `"` + outerTs + `"`
		}
		fw := fmt.Sprintf(`[{"ph":"X","cat":"kernel","name":"K_1","pid":1,"tid":2,"ts":%s,"dur":5}]`, tsText)
		tt := t // files go in the outer test's temp dirs
		m, err := runMerge(tt, Options{Framework: writeFile(tt, "fw.json", fw), MegaKernel: writeMK(tt, ev, oneRankMeta("K"))})
		require.NoError(rt, err)
		got := m.internal()
		require.Len(rt, got, n)
		first := new(big.Rat)
		for i, e := range ev {
			r, _ := new(big.Rat).SetString(e.ts)
			if i == 0 || r.Cmp(first) < 0 {
				first = r
			}
		}
		outer, _ := new(big.Rat).SetString(outerTs)
		for i, e := range ev {
			g := got[i]
			require.Equal(rt, e.name, g["name"], "event %d: order changed", i)
			require.Equalf(rt, e.dur, fmt.Sprint(g["dur"]), "event %d dur %v", i, g["dur"])
			ts, ok := new(big.Rat).SetString(fmt.Sprint(g["ts"]))
			require.Truef(rt, ok, "event %d ts %v", i, g["ts"])
			src, _ := new(big.Rat).SetString(e.ts)
			want := new(big.Rat).Add(outer, new(big.Rat).Sub(src, first))
			require.True(rt, ts.Cmp(want) == 0, "event %d ts %v, want %s", i, g["ts"], want.FloatString(3))
			_, isStr := g["ts"].(string)
			require.Equalf(rt, quoted, isStr, "event %d ts %#v: quoted", i, g["ts"])
		}
	})
}
