package decode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/chromejson"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/require"
)

// FuzzDecode feeds arbitrary bytes and layout options to package decode.
// Decode never panics. It fails with a plain error only when the options
// make no layout (and always fails then); otherwise its error is a
// *capture.Problem at an offset inside the file. A capture it accepts walks to exactly
// Summary.Records records in trace order, each with end >= start, and its
// trace parses as JSON with one X event per record.
func FuzzDecode(f *testing.F) {
	capturetest.AddFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, zeros uint32, cubeSlots uint16, planned bool, aic, aiv uint32) {
		data, o, ok := capturetest.FuzzInput(data, zeros, cubeSlots, planned, aic, aiv)
		if !ok {
			return
		}
		d, err := decodeBytes(data, o)
		if err != nil {
			var p *capture.Problem
			if !errors.As(err, &p) {
				require.Truef(t, capturetest.RequestMakesNoLayout(o), "plain error for options that make a layout (%+v): %v", o, err)
				return
			}
			capturetest.CheckProblem(t, err, len(data))
			return
		}
		require.Falsef(t, capturetest.RequestMakesNoLayout(o), "Decode accepted options that make no layout: %+v", o)
		checkDecoded(t, d, len(data))
	})
}

// decodeBytes opens data as a capture and decodes it.
func decodeBytes(data []byte, o capture.Request) (*decode.Decoded, error) {
	c, err := capture.FromBytes(capturetest.FuzzName, data)
	if err != nil {
		return nil, err
	}
	return decode.Decode(c, o)
}

// checkDecoded walks a decoded capture and writes its trace.
func checkDecoded(t *testing.T, d *decode.Decoded, size int) {
	t.Helper()
	sum := d.Summary
	require.NotEqual(t, uint64(0), sum.Records, "Decode accepted a capture without records")
	require.LessOrEqualf(t, sum.Records, uint64(size)/abi.ProfileRecordSize, "records in %d bytes", size)
	perSlot := make([]int, len(sum.Active))
	var prev *decode.Record
	n := uint64(0)
	err := d.Records(func(r decode.Record) bool {
		n++
		require.GreaterOrEqualf(t, r.EndCycle, r.StartCycle, "record %+v ends before it starts", r)
		require.GreaterOrEqualf(t, r.Active, 0, "record %+v names active slot %d of %d", r, r.Active, len(sum.Active))
		require.Lessf(t, r.Active, len(sum.Active), "record %+v names active slot %d of %d", r, r.Active, len(sum.Active))
		a := sum.Active[r.Active]
		require.Equalf(t, r.CoreType, a.Slot.CoreType, "record %+v does not belong to active slot %+v", r, a)
		require.Equalf(t, r.BlockID, a.Slot.BlockID, "record %+v does not belong to active slot %+v", r, a)
		require.Equalf(t, r.EntryCycle, a.EntryCycle, "record %+v does not belong to active slot %+v", r, a)
		require.GreaterOrEqualf(t, r.Index, 0, "record %+v does not belong to active slot %+v", r, a)
		require.Lessf(t, r.Index, a.Count, "record %+v does not belong to active slot %+v", r, a)
		perSlot[r.Active]++
		if prev != nil {
			require.Truef(t, traceOrdered(prev, &r), "record %+v follows %+v: not trace order", r, *prev)
		}
		p := r
		prev = &p
		return true
	})
	require.NoError(t, err, "Records")
	require.Equal(t, sum.Records, n, "Records yielded")
	for i, a := range sum.Active {
		require.Equalf(t, a.Count, perSlot[i], "%s", a.Slot)
	}
	var out bytes.Buffer
	in := render.Input{Decoded: d, Config: render.Config{FrequencyMHz: 50, KernelName: "Fuzz", OwnerLabel: "Owner"}}
	require.NoError(t, chromejson.Write(&out, []render.Input{in}, render.WriteOptions{Parallel: 1}), "chromejson.Write")
	require.Equal(t, sum.Records, uint64(countX(t, out.Bytes())), "the trace")
}

// traceOrdered reports whether b may follow a in trace order: by
// (start_cycle, core_type, block_id), ties in slot and record order.
func traceOrdered(a, b *decode.Record) bool {
	if a.StartCycle != b.StartCycle {
		return a.StartCycle < b.StartCycle
	}
	if a.CoreType != b.CoreType {
		return a.CoreType < b.CoreType
	}
	if a.BlockID != b.BlockID {
		return a.BlockID < b.BlockID
	}
	return a.Index < b.Index
}

// countX parses a trace and counts its X events.
func countX(t *testing.T, trace []byte) int {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph string `json:"ph"`
		} `json:"traceEvents"`
	}
	require.NoErrorf(t, json.Unmarshal(trace, &doc), "the trace is not JSON\n%.2000s", trace)
	n := 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			n++
		}
	}
	return n
}
