package chromejson

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/internal/capturedraw"
	"github.com/megakernel/cycleabi/decode/internal/decodetest"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// earlyInputs are two ranks whose first records start before their time
// 0: rank 0 at 50 MHz by 100 cycles (2 µs), rank 1 at 3 MHz by 3 cycles
// (1 µs).
func earlyInputs(t *testing.T) []render.Input {
	t.Helper()
	mk := func(entry, s0, e0, s1, e1 uint64) *decode.Decoded {
		b := capturetest.New(abi.MinCubeSlots, 16, 16)
		b.Enter(abi.CoreTypeAIC, 0, entry).
			Span(abi.CoreTypeAIC, 0, s0, e0, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1).
			Span(abi.CoreTypeAIC, 0, s1, e1, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 2)
		d, err := decodetest.Decode("early.bin", b.Bytes(), capture.Request{})
		require.NoError(t, err)
		return d
	}
	a, b := decodetest.DefaultConfig(), decodetest.DefaultConfig()
	b.Rank, b.DeviceID, b.FrequencyMHz = 1, 1, 3
	return []render.Input{{Decoded: mk(1000, 900, 950, 1100, 1200), Config: a}, {Decoded: mk(3000, 2997, 2999, 3003, 3006), Config: b}}
}

func tsOf(t *testing.T, trace []byte) map[string][]string {
	t.Helper()
	f, err := decodetest.ParseTrace(trace)
	require.NoError(t, err)
	ts := map[string][]string{}
	for _, e := range decodetest.XEvents(f) {
		ts[e.Pid.String()] = append(ts[e.Pid.String()], e.Ts.String())
	}
	return ts
}

// The zero render.WriteOptions writes the reference's negative timestamps;
// ShiftNegativeTS moves every input's by the largest time any input's
// records start before its time 0 (2 µs here), so the earliest record is
// at 0 and no ts is negative, and says so.
func TestShiftNegativeTS(t *testing.T) {
	for _, tc := range []struct {
		shift  bool
		want   map[string][]string
		shifts []any // timestampShiftCycles of each rank, nil where absent
		line   string
	}{
		{false, map[string][]string{"0": {"-2", "2"}, "1": {"-1", "1"}}, []any{nil, nil},
			"1 record starts before the trace's anchor cycle, so their ts is negative (Perfetto drops them); run validate for offsets"},
		// Rank 1 moves by ceil(2 µs × 3 MHz) = 6 cycles: (2997 − 3000 + 6) / 3 = 1 µs.
		{true, map[string][]string{"0": {"0", "4"}, "1": {"1", "3"}}, []any{100, 6},
			"1 record starts before the trace's anchor cycle; every timestamp is moved later by the same time, so that none is negative; run validate for offsets"},
	} {
		inputs := earlyInputs(t)
		var out bytes.Buffer
		require.NoError(t, Write(&out, inputs, render.WriteOptions{ShiftNegativeTS: tc.shift}))
		got := tsOf(t, out.Bytes())
		for pid, want := range tc.want {
			assert.Equalf(t, strings.Join(want, " "), strings.Join(got[pid], " "), "shift %v: rank %s ts %v, want %v", tc.shift, pid, got[pid], want)
		}
		f, _ := decodetest.ParseTrace(out.Bytes())
		ranks := f.MegaKernelCycleTrace["ranks"].([]any)
		for i, r := range ranks {
			m := r.(map[string]any)
			assert.Equalf(t, fmt.Sprint(tc.shifts[i]), fmt.Sprint(m["timestampShiftCycles"]), "shift %v: rank %d timestampShiftCycles, want %v", tc.shift, i, tc.shifts[i])
			ws := m["warnings"].([]any)
			assert.Falsef(t, len(ws) != 2 || ws[1] != tc.line, "shift %v: rank %d warnings %q, want %q", tc.shift, i, ws, tc.line)
		}
	}
}

// A trace without records before time 0 is the same with or without
// ShiftNegativeTS; with one, every ts moves by the same time and none is
// negative (at 50 MHz, whole nanoseconds: exactly the same time).
func TestShiftNegativeTSProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := capturedraw.Draw(rt)
		d, err := decodetest.Decode("c.bin", g.B.Bytes(), g.Opts)
		if err != nil {
			rt.Skip("invalid capture")
		}
		cfg := decodetest.DefaultConfig()
		var kept, shifted bytes.Buffer
		require.NoError(rt, Write(&kept, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{}))
		negatives := d.Warnings.NegativeTS
		require.NoError(rt, Write(&shifted, []render.Input{{Decoded: d, Config: cfg}}, render.WriteOptions{ShiftNegativeTS: true}))
		if negatives == 0 {
			require.Equal(rt, []byte(shifted.Bytes()), []byte(kept.Bytes()), "no record before time 0, yet the shifted trace differs")
			return
		}
		k, _ := decodetest.ParseTrace(kept.Bytes())
		s, _ := decodetest.ParseTrace(shifted.Bytes())
		ke, se := decodetest.XEvents(k), decodetest.XEvents(s)
		shiftNs := int64(d.Warnings.ShiftCycles) * 20
		require.Equal(rt, int64(d.Summary.Anchor-d.Summary.Earliest)*20, shiftNs, "shifted by")
		for i := range ke {
			a, b := nanosOfTS(ke[i].Ts.String()), nanosOfTS(se[i].Ts.String())
			require.GreaterOrEqualf(rt, b.Sign(), 0, "event %d: ts %s shifted to %s, want %d ns later and not negative", i, ke[i].Ts, se[i].Ts, shiftNs)
			require.Equalf(rt, 0, new(big.Int).Sub(b, a).Cmp(big.NewInt(shiftNs)), "event %d: ts %s shifted to %s, want %d ns later and not negative", i, ke[i].Ts, se[i].Ts, shiftNs)
		}
	})
}

// nanosOfTS reads a trace ts ("-12.34") as nanoseconds (a cycle count
// near 2^64 is more than an int64 of them).
func nanosOfTS(s string) *big.Int {
	whole, frac, _ := strings.Cut(s, ".")
	n, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", 3-len(frac)), 10)
	return n
}
