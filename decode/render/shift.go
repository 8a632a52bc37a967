package render

import (
	"fmt"
	"math/big"
	"math/bits"
)

// ShiftNegative moves time 0 of every input back by one time when a
// record of any input starts before its own time 0, so that no JSON
// timestamp is negative (Perfetto's JSON importer drops such events):
// the shift perfetto.Write makes, which keeps the inputs' times in step.
// The time is the largest of the inputs' distances before time 0; input
// i's anchor moves back by that time in its own cycles, rounded up (so
// its earliest record lands at or after ts 0, and the input with the
// largest distance exactly at 0). Each input's decode.Warnings.ShiftCycles,
// and its Placement's ShiftedBy, say by how much (0 when nothing is
// shifted). The JSON writer calls it on Prepare's placements when
// WriteOptions.ShiftNegativeTS is set.
func ShiftNegative(inputs []Input, ps []Placement) error {
	// The earliest start of input i before its time 0, in its cycles.
	before := make([]uint64, len(inputs))
	worst := -1
	for i := range inputs {
		inputs[i].Decoded.Warnings.ShiftCycles = 0
		sum := inputs[i].Decoded.Summary
		if sum.Records == 0 {
			continue
		}
		first, carry := bits.Add64(sum.Earliest, ps[i].shift, 0)
		if carry != 0 || first >= ps[i].anchor {
			continue
		}
		before[i] = ps[i].anchor - first
		if worst < 0 || microsOf(before[i], inputs[i].Config.FrequencyMHz).Cmp(microsOf(before[worst], inputs[worst].Config.FrequencyMHz)) > 0 {
			worst = i
		}
	}
	if worst < 0 {
		return nil
	}
	us := microsOf(before[worst], inputs[worst].Config.FrequencyMHz)
	for i := range inputs {
		// ceil(us × MHz), exactly: the frequencies are float64s, which
		// big.Rat holds as they are.
		c := new(big.Rat).Mul(us, new(big.Rat).SetFloat64(inputs[i].Config.FrequencyMHz))
		q, r := new(big.Int).QuoRem(c.Num(), c.Denom(), new(big.Int))
		if r.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		if !q.IsUint64() || q.Uint64() > ps[i].anchor {
			return fmt.Errorf("%s: shifting timestamps so that none is negative moves its time 0 (cycle %d) back by %s cycles, before cycle 0: write them as they are (negative)",
				inputs[i].Decoded.Capture.Name, ps[i].anchor, q)
		}
		cycles := max(q.Uint64(), before[i])
		ps[i].anchor -= cycles
		ps[i].shiftedBy = cycles
		inputs[i].Decoded.Warnings.ShiftCycles = cycles
	}
	return nil
}

// microsOf is cycles at mhz in microseconds, exactly.
func microsOf(cycles uint64, mhz float64) *big.Rat {
	r := new(big.Rat).SetFrac(new(big.Int).SetUint64(cycles), big.NewInt(1))
	return r.Quo(r, new(big.Rat).SetFloat64(mhz))
}
