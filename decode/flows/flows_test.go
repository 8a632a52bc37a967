package flows

import (
	"sort"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/plan/plantest"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// mustDecode decodes a capture held in memory.
func mustDecode(name string, buf []byte, o capture.Request) (*decode.Decoded, error) {
	c, err := capture.FromBytes(name, buf)
	if err != nil {
		return nil, err
	}
	return decode.Decode(c, o)
}

// TestScheduleMismatch: task ids beyond the table and waits of tasks
// without a dependent_event are an error naming the first records.
func TestScheduleMismatch(t *testing.T) {
	s := &plan.Schedule{File: "s.yaml", NumWorkers: 2, Tasks: []plan.Task{plan.NewTask(abi.TaskTypeMatMul), plan.NewTask(abi.TaskTypeMatMul)},
		CubeTaskIndices: []uint32{0, 1}}
	s.Tasks[1].DependentEvent, s.Tasks[0].TriggerEvent = 0, 0
	c, err := synth.Run(s, synth.Options{})
	require.NoError(t, err)
	d, err := mustDecode("c.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
	require.NoError(t, err)
	_, err = NewDependencies(d, s)
	require.NoError(t, err, "matching schedule")
	short := *s
	short.Tasks = s.Tasks[:1]
	_, err = NewDependencies(d, &short)
	var m *ScheduleMismatch
	require.ErrorAsf(t, err, &m, "short schedule: %v", err)
	require.Equalf(t, 3, m.Count, "short schedule: %v", err)
	require.Containsf(t, err.Error(), "task_id 1 is beyond the schedule's 1 tasks", "short schedule: %v", err)
	require.Containsf(t, err.Error(), "AIC/0 record", "short schedule: %v", err)
	noDep := *s
	noDep.Tasks = []plan.Task{s.Tasks[0], plan.NewTask(abi.TaskTypeMatMul)}
	_, err = NewDependencies(d, &noDep)
	require.ErrorAsf(t, err, &m, "schedule without the dependency: %v", err)
	require.Equalf(t, 1, m.Count, "schedule without the dependency: %v", err)
	require.Containsf(t, err.Error(), "a wait record of task 1, which has no dependent_event", "schedule without the dependency: %v", err)
}

// TestSortByEnd: the natural merge sort orders by end cycle and keeps the
// appended order among equal ends, as a stable sort does.
func TestSortByEnd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		ps := make([]decode.RecordRef, n)
		end := uint64(0)
		for i := range ps {
			if rapid.IntRange(0, 9).Draw(t, "restart") == 0 {
				end = rapid.Uint64Range(0, 50).Draw(t, "end")
			} else {
				end += rapid.Uint64Range(0, 3).Draw(t, "step")
			}
			ps[i] = decode.RecordRef{Index: uint32(i), EndCycle: end}
		}
		want := append([]decode.RecordRef(nil), ps...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].EndCycle < want[j].EndCycle })
		sortByEnd(ps)
		for i := range ps {
			require.Equalf(t, want[i], ps[i], "at %d", i)
		}
	})
}

// TestFlowIDs: the per-record lookup holds every arrow of Each once at
// its producer and once at its wait.
func TestFlowIDs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := plantest.Schedule(t, plantest.Limits{})
		c, err := synth.Run(s, synth.Options{Seed: rapid.Uint64().Draw(t, "seed"), WaitTimeout: synth.DefaultWaitTimeout})
		require.NoError(t, err)
		if c.Records() == 0 {
			return
		}
		d, err := mustDecode("random.bin", c.Buffer, capture.Request{CubeSlots: c.Layout.CubeSlots, Capacities: &c.Layout.Capacities})
		require.NoError(t, err)
		deps, err := NewDependencies(d, s)
		require.NoError(t, err)
		mode := rapid.SampledFrom([]Mode{Releasing, All}).Draw(t, "mode")
		// A writer that cannot draw every third arrow, or draws all.
		var bind func(Flow) bool
		if rapid.Bool().Draw(t, "bind") {
			bind = func(f Flow) bool { return f.ID%3 != 0 }
		}
		want := map[uint64][2]decode.RecordRef{}
		dropped := uint64(0)
		_, err = Each(d, deps, mode, 0, func(f Flow) bool {
			if bind != nil && f.ID%3 == 0 {
				dropped++
				return true
			}
			want[7<<32+f.ID] = [2]decode.RecordRef{f.From, f.To}
			return true
		})
		require.NoError(t, err)
		lookup, st, err := IDs(d, deps, mode, 0, 7<<32, bind)
		require.NoErrorf(t, err, "FlowIDs, %+v for %d arrows unbound", st, len(want))
		require.Equalf(t, uint64(len(want)), st.Arrows, "FlowIDs, %+v for %d arrows unbound", st, len(want))
		require.Equalf(t, dropped, st.Unbound, "FlowIDs, %+v for %d arrows unbound", st, len(want))
		seenOut, seenIn := map[uint64]bool{}, map[uint64]bool{}
		require.NoError(t, d.Records(func(r decode.Record) bool {
			out, in := lookup(&r)
			for _, id := range out {
				w, ok := want[id]
				require.Truef(t, ok, "record %+v starts arrow %d, not an arrow", r.Ref(), id)
				require.Equalf(t, w[0], r.Ref(), "record starts arrow %d", id)
				require.Falsef(t, seenOut[id], "record %+v starts arrow %d twice", r.Ref(), id)
				seenOut[id] = true
			}
			for _, id := range in {
				w, ok := want[id]
				require.Truef(t, ok, "record %+v ends arrow %d, not an arrow", r.Ref(), id)
				require.Equalf(t, w[1], r.Ref(), "record ends arrow %d", id)
				require.Falsef(t, seenIn[id], "record %+v ends arrow %d twice", r.Ref(), id)
				seenIn[id] = true
			}
			return true
		}))
		require.Len(t, seenOut, len(want))
		require.Len(t, seenIn, len(want))
	})
}
