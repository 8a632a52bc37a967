package analyze

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiffExactIntegers: diff shows cycles and counts exactly, in text,
// Markdown and JSON, past 2^53 too: 2^64−1 was shown as
// 18446744073709551616 and a change of 1 at that size as 0 ("no change").
// The JSON's abs is checked against math/big.
func TestDiffExactIntegers(t *testing.T) {
	const top = 1<<64 - 1
	for _, c := range []struct{ base, new uint64 }{{top - 1, top}, {0, top}, {top, 3}, {1 << 53, 1<<53 + 1}} {
		b := &Report{Ranks: []*Rank{{MakespanCycles: c.base, TaskTypes: []Stat{{Name: "MatMul", Count: c.base, TotalCycles: c.base, P90Cycles: c.base}}}}}
		n := &Report{Ranks: []*Rank{{MakespanCycles: c.new, TaskTypes: []Stat{{Name: "MatMul", Count: c.new, TotalCycles: c.new, P90Cycles: c.new}}}}}
		d, err := Compare(b, n, false)
		require.NoError(t, err)
		assert.Falsef(t, d.IsZero(), "%d -> %d: IsZero", c.base, c.new)
		var buf bytes.Buffer
		require.NoError(t, d.WriteJSON(&buf))
		var doc struct {
			Ranks []struct {
				Makespan struct{ Base, New, Abs json.Number } `json:"makespan_cycles"`
			} `json:"ranks"`
		}
		dec := json.NewDecoder(&buf)
		dec.UseNumber()
		require.NoError(t, dec.Decode(&doc))
		m := doc.Ranks[0].Makespan
		wantAbs := new(big.Int).Sub(new(big.Int).SetUint64(c.new), new(big.Int).SetUint64(c.base))
		require.Equalf(t, big.NewInt(0).SetUint64(c.base).String(), string(m.Base), "%d -> %d: JSON base %s new %s abs %s, want abs %s", c.base, c.new, m.Base, m.New, m.Abs, wantAbs)
		require.Equalf(t, big.NewInt(0).SetUint64(c.new).String(), string(m.New), "%d -> %d: JSON base %s new %s abs %s, want abs %s", c.base, c.new, m.Base, m.New, m.Abs, wantAbs)
		assert.Equalf(t, wantAbs.String(), string(m.Abs), "%d -> %d: JSON base %s new %s abs %s, want abs %s", c.base, c.new, m.Base, m.New, m.Abs, wantAbs)
		buf.Reset()
		require.NoError(t, d.WriteText(&buf, 0))
		signed := wantAbs.String()
		if wantAbs.Sign() > 0 {
			signed = "+" + signed
		}
		for _, want := range []string{new(big.Int).SetUint64(c.new).String(), signed} {
			assert.Containsf(t, buf.String(), want, "%d -> %d: text lacks", c.base, c.new)
		}
	}
}
