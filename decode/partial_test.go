package decode

import (
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A capture cut at any byte decodes with Partial to exactly the records
// of the whole capture that lie wholly before the cut, in a slot whose
// header does too; Missing lists the rest of each such slot's records
// and, from the first header the cut leaves incomplete, the slots whose
// headers are gone. Both sides are worked out here from the whole
// capture's records and the file offsets alone.
func TestPartialDecode(t *testing.T) {
	b := capturetest.New(abi.MinCubeSlots, 16, 16)
	var start uint64 = 1000
	for _, s := range []struct {
		t     abi.CoreType
		block uint32
		n     int
	}{{abi.CoreTypeAIC, 0, 5}, {abi.CoreTypeAIC, 1, 16}, {abi.CoreTypeAIC, 3, 2}, {abi.CoreTypeAIV, 0, 7}, {abi.CoreTypeAIV, 5, 3}} {
		b.Enter(s.t, s.block, 900)
		for range s.n {
			b.Span(s.t, s.block, start, start+5, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
			start += 7
		}
	}
	b.Enter(abi.CoreTypeAIV, 9, 900) // entered, no records
	whole := b.Bytes()
	full, err := mustDecode("whole.bin", whole, capture.Request{})
	require.NoError(t, err)
	type rec struct {
		slot    string
		index   int
		off     int64
		slotOff uint64
	}
	var all []rec
	require.NoError(t, full.Records(func(r Record) bool {
		all = append(all, rec{full.Slot(&r).String(), r.Index, full.FileOffset(&r), full.Slot(&r).Offset})
		return true
	}))
	l := full.Summary.Layout

	aiv0, _ := l.SlotOf(abi.CoreTypeAIV, 0)
	headers, _ := abi.NewLayout(l.CubeSlots, abi.Capacities{})
	rapid.Check(t, func(rt *rapid.T) {
		// The layout is found from the headers once the file holds the
		// AIV/0 header, and given whole (the flags) once it holds as many
		// bytes as the headers alone take (a shorter file is short-buffer).
		given := rapid.Bool().Draw(rt, "given")
		req, from := capture.Request{Partial: true}, int(aiv0.Offset)+abi.CoreHeaderSize
		if given {
			req.CubeSlots, req.Capacities, from = l.CubeSlots, &l.Capacities, int(headers.Size())
		}
		n := rapid.IntRange(from, len(whole)-1).Draw(rt, "cut")
		c, err := capture.FromBytes("cut.bin", whole[:n])
		require.NoError(rt, err)
		whole := req
		whole.Partial = false
		_, err = Decode(c, whole)
		require.Error(rt, err, "a truncated capture decodes without Partial")
		d, err := Decode(c, req)
		require.NoError(rt, err, "Partial")
		// The slot whose header the cut leaves incomplete, if any.
		cutSlot := -1
		for i := range l.NumSlots() {
			if s := l.Slot(i); int(s.Offset)+abi.CoreHeaderSize > n {
				cutSlot = i
				break
			}
		}
		var want, got []string
		missing := map[string][]int{}
		for _, r := range all {
			if r.off+abi.ProfileRecordSize <= int64(n) {
				want = append(want, fmt.Sprintf("%s#%d", r.slot, r.index))
				continue
			}
			if int(r.slotOff)+abi.CoreHeaderSize <= n {
				missing[r.slot] = append(missing[r.slot], r.index)
			}
		}
		require.NoError(rt, d.Records(func(r Record) bool {
			got = append(got, fmt.Sprintf("%s#%d", d.Slot(&r), r.Index))
			return true
		}))
		require.Equalf(rt, fmt.Sprint(want), fmt.Sprint(got), "cut at %d: decoded %v, want %v", n, got, want)
		gotMissing := map[string][]int{}
		headersFrom := -1
		for _, m := range d.Summary.Missing {
			if m.HeaderMissing {
				headersFrom = int(m.Off)
				last := l.Slot(l.NumSlots() - 1)
				require.Equalf(rt, last.String(), m.Last.String(), "cut at %d: headers missing up to, want the last slot", n)
				require.Equalf(rt, int64(l.Size()), m.End, "cut at %d: headers missing up to, want the layout's end", n)
				continue
			}
			for i := m.From; i < m.To; i++ {
				gotMissing[m.Slot.String()] = append(gotMissing[m.Slot.String()], i)
			}
			first := int64(m.Slot.Offset) + abi.CoreHeaderSize
			require.Equalf(rt, first+int64(m.From)*abi.ProfileRecordSize, m.Off, "cut at %d: %v: offsets", n, m)
			require.Equalf(rt, first+int64(m.To)*abi.ProfileRecordSize, m.End, "cut at %d: %v: offsets", n, m)
		}
		require.Equalf(rt, fmt.Sprint(missing), fmt.Sprint(gotMissing), "cut at %d: missing records %v, want %v", n, gotMissing, missing)
		wantFrom := -1
		if cutSlot >= 0 {
			wantFrom = int(l.Slot(cutSlot).Offset)
		}
		require.Equalf(rt, wantFrom, headersFrom, "cut at %d: headers missing from", n)
		require.Equalf(rt, l.Size()-uint64(n), d.Warnings.Truncated, "cut at %d", n)
	})
}
