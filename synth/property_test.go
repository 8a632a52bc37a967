package synth_test

import (
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Each property runs under rapid.Check in TestX (rapid's default 100 cases;
// raise with -rapid.checks) and under go test -fuzz in FuzzX.

// simulate runs s; a schedule whose waits can never all end (generated
// schedules use events at random) is simulated again with bounded waits,
// after checking the refusal was a positioned error.
func simulate(t *rapid.T, s *plan.Schedule, opts synth.Options) *synth.Capture {
	c, err := synth.Run(s, opts)
	if err == nil {
		return c
	}
	var pe *plan.Error
	require.ErrorAsf(t, err, &pe, "Run: %v (want a positioned error about a wait)", err)
	require.NotEmptyf(t, pe.Path, "Run: %v (want a positioned error about a wait)", err)
	opts.WaitTimeout = synth.DefaultWaitTimeout
	c, err = synth.Run(s, opts)
	require.NoError(t, err, "Run with bounded waits")
	return c
}

func TestPlannerSound(t *testing.T) { rapid.Check(t, propPlannerSound) }
func FuzzPlannerSound(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propPlannerSound)) }

// propPlannerSound: with the planned capacities the simulated device drops
// nothing and the busiest worker of each core type fills exactly its
// requirement; with any smaller aligned capacity for that core type, the
// busiest worker drops what does not fit.
func propPlannerSound(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	seed := rapid.Uint64().Draw(t, "seed")
	c := simulate(t, s, synth.Options{Seed: seed})
	require.Zerof(t, c.Dropped(), "planned capacities %+v: records dropped", c.Layout.Capacities)
	required := map[abi.CoreType]uint64{}
	for _, p := range c.Plan.Regions {
		required[p.CoreType] = p.RequiredRecords
	}
	busiest := map[abi.CoreType]uint64{}
	for _, m := range c.Slots {
		busiest[m.Slot.CoreType] = max(busiest[m.Slot.CoreType], uint64(len(m.Records)))
	}
	for ct, req := range required {
		require.Equalf(t, req, busiest[ct], "%s: the busiest worker wrote", ct)
	}

	ct := rapid.SampledFrom(abi.CoreTypes()).Draw(t, "core_type")
	planned := c.Layout.Capacities.For(ct)
	if planned == 0 {
		return
	}
	smaller := abi.RecordCapacityAlignment * rapid.Uint32Range(0, planned/abi.RecordCapacityAlignment-1).Draw(t, "smaller")
	caps := c.Layout.Capacities
	caps.Set(ct, smaller)
	small := simulate(t, s, synth.Options{Seed: seed, Capacities: &caps})
	var dropped uint64
	for _, m := range small.Slots {
		if m.Slot.CoreType == ct {
			dropped = max(dropped, uint64(m.Dropped))
		}
	}
	require.Equalf(t, required[ct]-uint64(smaller), dropped, "%s capacity %d (planned %d, required %d): the busiest worker dropped", ct, smaller, planned, required[ct])
}

func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }
func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }

// propRoundTrip: decoding every slot of a simulated capture gives back
// exactly the header and records the simulator says it wrote (untouched
// slots are all zero), and encoding what was decoded reproduces the capture
// byte for byte. Capacities are sometimes scaled down so that full slots
// and dropped records are covered too.
func propRoundTrip(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	opts := synth.Options{Seed: rapid.Uint64().Draw(t, "seed")}
	if rapid.Bool().Draw(t, "scale") {
		opts.CapacityScale = rapid.Float64Range(0.1, 1.5).Draw(t, "capacity_scale")
	}
	c := simulate(t, s, opts)
	require.Equalf(t, c.Layout.Size(), uint64(len(c.Buffer)), "buffer bytes for layout %+v", c.Layout)
	require.Lenf(t, c.Slots, c.Layout.NumSlots(), "slots for layout %+v", c.Layout)
	encoded := make([]byte, 0, len(c.Buffer))
	for i, m := range c.Slots {
		slot := c.Layout.Slot(i)
		b := c.Buffer[slot.Offset : slot.Offset+slot.Stride()]
		h, err := abi.DecodeCoreHeader(b)
		require.NoErrorf(t, err, "%s", slot)
		if !m.Entered {
			require.Truef(t, h.IsZero(), "%s: the core never entered but its slot is not zero: %+v", slot, h)
			require.Equalf(t, []byte(make([]byte, len(b))), []byte(b), "%s: the core never entered but its slot is not zero: %+v", slot, h)
			encoded = append(encoded, b...)
			continue
		}
		want := abi.CoreHeader{
			EntryCycle:     m.EntryCycle,
			RecordCount:    uint32(len(m.Records)),
			DroppedCount:   m.Dropped,
			CoreType:       slot.CoreType,
			BlockID:        slot.BlockID,
			RecordCapacity: slot.Capacity,
		}
		require.Equalf(t, want, h, "%s: header", slot)
		encoded = h.Append(encoded)
		for k := uint32(0); k < slot.Capacity; k++ {
			off := abi.CoreHeaderSize + uint64(k)*abi.ProfileRecordSize
			r, err := abi.DecodeProfileRecord(b[off:])
			require.NoErrorf(t, err, "%s record %d", slot, k)
			if k < h.RecordCount {
				require.Equalf(t, m.Records[k], r, "%s record %d against what synth wrote", slot, k)
			}
			require.Falsef(t, k >= h.RecordCount && !r.IsZero(), "%s record %d past record_count %d is not zero: %+v", slot, k, h.RecordCount, r)
			encoded = r.Append(encoded)
		}
	}
	require.Equal(t, []byte(c.Buffer), []byte(encoded), "re-encoding the decoded slots does not reproduce the capture")
}

func TestTimeline(t *testing.T) { rapid.Check(t, propTimeline) }
func FuzzTimeline(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propTimeline)) }

// propTimeline: each core's records follow one another after its entry
// (end >= start, no overlap, in order), and, when no wait had to be cut
// short, every wait ends after all the triggers of its event.
func propTimeline(t *rapid.T) {
	s := plantest.Schedule(t, plantest.Limits{})
	c, err := synth.Run(s, synth.Options{Seed: rapid.Uint64().Draw(t, "seed")})
	bounded := err != nil
	if bounded {
		c = simulate(t, s, synth.Options{})
	}
	fired := map[plan.EventID]uint64{}
	for _, m := range c.Slots {
		prevEnd := m.EntryCycle
		for i, r := range m.Records {
			require.GreaterOrEqualf(t, r.EndCycle, r.StartCycle, "%s record %d [", m.Slot, i)
			require.Greaterf(t, r.StartCycle, prevEnd, "%s record %d [", m.Slot, i)
			prevEnd = r.EndCycle
			task := s.Tasks[r.TaskID]
			if !task.TriggerEvent.Valid() {
				continue
			}
			if r.DescID == abi.RuntimeStageTriggerEvent ||
				task.TaskType == abi.TaskTypeShmemPutMemSignal && r.DescID != abi.RuntimeStageWaitDependency {
				fired[task.TriggerEvent] = max(fired[task.TriggerEvent], r.EndCycle)
			}
		}
	}
	if bounded {
		return
	}
	for _, m := range c.Slots {
		for i, r := range m.Records {
			if r.DescID != abi.RuntimeStageWaitDependency {
				continue
			}
			e := s.Tasks[r.TaskID].DependentEvent
			require.Greaterf(t, r.EndCycle, fired[e], "%s record %d: task %d's wait ends at, before event %d fired at", m.Slot, i, r.TaskID, e)
		}
	}
}
