package roundtrip_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestDecodeRoundTrip(t *testing.T) { rapid.Check(t, propDecodeRoundTrip) }
func FuzzDecodeRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propDecodeRoundTrip)) }

// propDecodeRoundTrip: decode(synth(schedule, seed)) gives exactly the
// records synth wrote, slot by slot and in order, with the same entry
// cycles and dropped counts; validate finds no error. Captures are raw or
// .npy, with the planned or scaled-down capacities, some cores idle, and
// the layout given by the plan's flags or read from the headers.
func propDecodeRoundTrip(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, "seed"), WaitTimeout: synth.DefaultWaitTimeout}
	if rapid.Bool().Draw(t, "scale") {
		opts.CapacityScale = rapid.Float64Range(0.1, 1.5).Draw(t, "capacity_scale")
	}
	r, err := plan.Plan(s)
	require.NoError(t, err)
	workers := 0
	for _, p := range r.Regions {
		workers += int(p.Workers)
	}
	opts.IdleCores = rapid.IntRange(0, workers).Draw(t, "idle_cores")
	c, err := synth.Run(s, opts)
	require.NoError(t, err)
	file := c.Buffer
	if rapid.Bool().Draw(t, "npy") {
		file = append(capture.NPYHeader(uint64(len(c.Buffer))), c.Buffer...)
	}
	layout := capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities}
	aic0, aiv0 := c.Slots[0], c.Slots[c.Layout.CubeSlots]
	if aic0.Entered && aiv0.Entered && rapid.Bool().Draw(t, "layout_from_headers") {
		layout.Capacities = nil
	}

	res, err := validate.CheckBytes("synth.bin", file, validate.Options{Layout: layout})
	require.NoError(t, err, "validate")
	cp, err := capture.FromBytes("synth.bin", file)
	require.NoError(t, err)
	d, err := decode.Decode(cp, layout)
	if c.Records() == 0 {
		// A capture without a live record is invalid: both must say so.
		require.Error(t, err, "a capture with no records: decode")
		require.False(t, res.OK(), "a capture with no records: validate OK")
		return
	}
	require.NoError(t, err, "decode")
	require.Zerof(t, res.Errors(), "validate's errors: %+v", res.Findings)
	require.Equal(t, c.Records(), res.Records, "records: synth, validate")
	require.Equal(t, c.Dropped(), res.Dropped, "dropped: synth, validate")
	require.Equal(t, c.Records(), d.Summary.Records, "records: synth, decode")
	require.Equal(t, c.Dropped(), d.Summary.Dropped, "dropped: synth, decode")
	require.Equal(t, c.Layout, d.Summary.Layout, "decoded layout")

	bySlot := map[abi.Slot][]decode.Record{}
	err = d.Records(func(r decode.Record) bool {
		bySlot[d.Slot(&r)] = append(bySlot[d.Slot(&r)], r)
		return true
	})
	require.NoError(t, err)
	for _, m := range c.Slots {
		got := bySlot[m.Slot]
		// Records come in trace order; within a slot, put them back in
		// record order.
		slices.SortFunc(got, func(a, b decode.Record) int { return a.Index - b.Index })
		require.Lenf(t, got, len(m.Records), "%s: decoded", m.Slot)
		for i, r := range got {
			require.Equalf(t, i, r.Index, "%s record %d: decoded index", m.Slot, i)
			require.Equalf(t, m.Records[i], r.ProfileRecord, "%s record %d: decoded against what synth wrote", m.Slot, i)
			require.Equalf(t, m.EntryCycle, r.EntryCycle, "%s record %d: decoded entry cycle", m.Slot, i)
		}
	}
	for _, a := range d.Summary.Active {
		m := c.Slots[slices.IndexFunc(c.Slots, func(m synth.SlotManifest) bool { return m.Slot == a.Slot })]
		require.Equalf(t, m.Dropped, a.Dropped, "%s: decoded entry", a.Slot)
		require.Equalf(t, m.EntryCycle, a.EntryCycle, "%s: decoded entry", a.Slot)
		require.Equalf(t, len(m.Records), a.Count, "%s: decoded entry", a.Slot)
	}
}

// TestDemoCaptureValidates: the shipped capture validates with no error
// and exactly one kind of warning, the drops it was made to have.
func TestDemoCaptureValidates(t *testing.T) {
	res, err := validate.CheckFile("../../examples/moe_layer.bin", validate.Options{})
	require.NoError(t, err)
	assert.Zerof(t, res.Errors(), "errors: findings %+v", res.Counts)
	assert.Equal(t, uint64(10), res.Dropped, "dropped")
	assert.Equal(t, uint64(2974), res.Records, "records")
	assert.NotZerof(t, res.Count(validate.CodeDroppedRecords), "dropped-records findings: findings %+v", res.Counts)
	for _, cc := range res.Counts {
		require.Equalf(t, capture.Severity(capture.Warning), cc.Severity, "unexpected finding %+v", cc)
		assert.Truef(t, strings.HasPrefix(string(cc.Code), "dropped-"), "unexpected finding %+v", cc)
	}
}
