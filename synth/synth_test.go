package synth_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) *plan.Schedule {
	t.Helper()
	s, err := plan.Parse("s.yaml", []byte(src))
	require.NoError(t, err)
	return s
}

// chain: a MatMul on AIC/0 triggers event 1; SwiGLU on AIV/0 waits on it,
// then a put-with-signal on AIV/2 (the second AIV worker with stride 2)
// waits on event 2 and signals event 3, which RmsNorm back on AIV/0 waits on.
const chain = `
num_workers: 4
tasks:
  - {task_type: MatMul, trigger_event: 1}
  - {task_type: SwiGLU, dependent_event: 1, trigger_event: 2, owner_id: 7}
  - {task_type: ShmemPutMemSignal, dependent_event: 2, trigger_event: 3}
  - {task_type: RmsNorm, dependent_event: 3, graph_stage: 5, stage_task_index: 9}
  - {task_type: Terminate}
cube_task_indices: [0]
vector_task_indices: [1, 2, 3, 4]
`

// TestChain checks the records of a small schedule one by one: which
// slots, which descriptors, and that each wait ends after its trigger.
func TestChain(t *testing.T) {
	c, err := synth.Run(parse(t, chain), synth.Options{Seed: 3})
	require.NoError(t, err)
	type rec struct {
		slot     string
		desc     uint32
		task     uint32
		index    uint32
		owner    uint32
		startsAt string // a record this one starts after
	}
	const none = abi.InvalidOwnerID
	want := []rec{
		{"AIC/0", abi.TaskTypeBase + 103, 0, 0, none, ""},
		{"AIC/0", abi.RuntimeStageTriggerEvent, 0, 0, none, ""},
		{"AIV/0", abi.RuntimeStageWaitDependency, 1, 0, 7, "AIC/0#1"},
		{"AIV/0", abi.TaskTypeBase + 102, 1, 0, 7, ""},
		{"AIV/0", abi.RuntimeStageTriggerEvent, 1, 0, 7, ""},
		{"AIV/0", abi.RuntimeStageWaitDependency, 3, 9, none, "AIV/2#1"},
		{"AIV/0", abi.GraphStageBase + 5, 3, 9, none, ""},
		{"AIV/0", abi.RuntimeStageTriggerEvent, 3, 9, none, ""},
		{"AIV/2", abi.RuntimeStageWaitDependency, 2, 0, none, "AIV/0#2"},
		{"AIV/2", abi.TaskTypeBase + 105, 2, 0, none, ""},
		{"AIV/2", abi.RuntimeStageTerminateTask, 4, 0, none, ""},
		{"AIV/2", abi.RuntimeStageTriggerEvent, 4, 0, none, ""},
	}
	bySlot := map[string][]abi.ProfileRecord{}
	entered := map[string]bool{}
	for _, m := range c.Slots {
		if m.Entered {
			entered[m.Slot.String()] = true
		}
		if len(m.Records) > 0 {
			bySlot[m.Slot.String()] = m.Records
		}
	}
	// AIC 0..1 and AIV 0..3 enter; AIV/1 and AIV/3 are not workers.
	assert.Equalf(t, "6 true true false", fmt.Sprint(len(entered), entered["AIC/1"], entered["AIV/3"], entered["AIC/2"]), "entered: %v", entered)
	var got []rec
	for _, slot := range []string{"AIC/0", "AIV/0", "AIV/2"} {
		for _, r := range bySlot[slot] {
			got = append(got, rec{slot, r.DescID, r.TaskID, r.StageTaskIndex, r.OwnerID, ""})
		}
	}
	require.Len(t, got, len(want))
	require.Len(t, bySlot, 3)
	for i, w := range want {
		g := got[i]
		g.startsAt = w.startsAt
		assert.Equalf(t, w, g, "record %d", i)
		if w.startsAt == "" {
			continue
		}
		slot, k, _ := strings.Cut(w.startsAt, "#")
		trigger := bySlot[slot][k[0]-'0']
		self := bySlot[w.slot]
		for _, r := range self {
			assert.Falsef(t, r.TaskID == w.task && r.DescID == w.desc && r.EndCycle <= trigger.EndCycle, "record %d (task %d wait) ends at %d, before its trigger %s ends at %d", i, w.task, r.EndCycle, w.startsAt, trigger.EndCycle)
		}
	}
	// Compute durations follow the task type: a MatMul is far longer than a SwiGLU.
	mm, sw := bySlot["AIC/0"][0], bySlot["AIV/0"][1]
	assert.GreaterOrEqualf(t, mm.EndCycle-mm.StartCycle, 4*(sw.EndCycle-sw.StartCycle), "MatMul cycles, SwiGLU %d", sw.EndCycle-sw.StartCycle)
	for _, m := range c.Slots {
		assert.Falsef(t, m.Entered && (m.EntryCycle < synth.BaseEntryCycle || m.EntryCycle > synth.BaseEntryCycle+1e10+1e3), "%s entered at %d", m.Slot, m.EntryCycle)
	}
}

func TestDeterministic(t *testing.T) {
	s := parse(t, chain)
	a, _ := synth.Run(s, synth.Options{Seed: 11})
	b, _ := synth.Run(s, synth.Options{Seed: 11})
	d, _ := synth.Run(s, synth.Options{Seed: 12})
	assert.Equal(t, []byte(b.Buffer), []byte(a.Buffer), "the same seed gave different captures")
	assert.NotEqual(t, d.Buffer, a.Buffer, "seeds 11 and 12 gave the same capture")
}

func TestWaitsThatNeverEnd(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{{
		name: "no trigger",
		src: `num_workers: 2
tasks:
  - {task_type: MatMul, trigger_event: 1}
  - {task_type: SwiGLU, dependent_event: 2}
cube_task_indices: [0]
vector_task_indices: [1]
`,
		want: `s.yaml:4:42: tasks[1].dependent_event: waits on event 2, which no scheduled task of this rank triggers: the device hangs there unless a peer rank sets it (as a peer's ShmemPutMemSignal does, writing no trigger record)`,
	}, {
		name: "cycle",
		src: `num_workers: 2
tasks:
  - {task_type: MatMul, dependent_event: 2, trigger_event: 1}
  - {task_type: SwiGLU, dependent_event: 1, trigger_event: 2}
cube_task_indices: [0]
vector_task_indices: [1]
`,
		want: `s.yaml:3:42: tasks[0].dependent_event: deadlock: AIC/0 runs task 0, which waits on event 2 forever: its trigger waits behind it (task 1 on AIV/0) (2 cores blocked: AIC/0 task 0 waits on event 2; AIV/0 task 1 waits on event 1)`,
	}, {
		name: "trigger after the wait on the same core",
		src: `num_workers: 2
tasks:
  - {task_type: AddCustom, dependent_event: 4}
  - {task_type: AddCustom, trigger_event: 4}
vector_task_indices: [0, 1]
`,
		want: `s.yaml:3:45: tasks[0].dependent_event: deadlock: AIV/0 runs task 0, which waits on event 4 forever: its trigger waits behind it (task 1 on AIV/0)`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := parse(t, tc.src)
			_, err := synth.Run(s, synth.Options{})
			require.EqualErrorf(t, err, tc.want, "got  %v\nwant %s", err, tc.want)
			var pe *plan.Error
			assert.ErrorAs(t, err, &pe, "not a *plan.Error")
			// With a watchdog the device gets through, and the wait that
			// timed out spans exactly the timeout.
			c, err := synth.Run(s, synth.Options{WaitTimeout: 5000})
			require.NoError(t, err)
			timedOut := 0
			for _, m := range c.Slots {
				for _, r := range m.Records {
					if r.DescID == abi.RuntimeStageWaitDependency && r.EndCycle-r.StartCycle == 5000 {
						timedOut++
					}
				}
			}
			assert.NotEqual(t, 0, timedOut, "no wait record spans the timeout")
		})
	}
}

// TestIdleCores: idle workers' slots stay zero, their tasks never run, and
// the waits on their events time out.
func TestIdleCores(t *testing.T) {
	s := parse(t, chain)
	for seed := uint64(0); seed < 8; seed++ {
		c, err := synth.Run(s, synth.Options{Seed: seed, IdleCores: 1, WaitTimeout: 1234})
		require.NoError(t, err)
		idle := 0
		for i, m := range c.Slots {
			if !m.IdleWorker {
				continue
			}
			idle++
			sl := c.Layout.Slot(i)
			require.Falsef(t, m.Entered, "seed %d: idle %s entered or wrote", seed, m.Slot)
			require.Emptyf(t, m.Records, "seed %d: idle %s entered or wrote", seed, m.Slot)
			assert.Equalf(t, []byte(make([]byte, sl.Stride())), []byte(c.Buffer[sl.Offset:sl.Offset+sl.Stride()]), "seed %d: idle %s entered or wrote", seed, m.Slot)
		}
		assert.Equalf(t, 1, idle, "seed %d", seed)
	}
	_, err := synth.Run(s, synth.Options{IdleCores: 5})
	assert.ErrorContainsf(t, err, "cannot make 5 of 4 workers idle", "got %v", err)
	// Without a timeout, a wait on an idle core's event is a deadlock that
	// says so.
	for seed := uint64(0); ; seed++ {
		_, err := synth.Run(s, synth.Options{Seed: seed, IdleCores: 1})
		if err != nil && strings.Contains(err.Error(), "on idle cores") {
			break
		}
		require.NotEqualf(t, uint64(50), seed, "no seed made a trigger idle: %v", err)
	}
}

func TestCapacityScale(t *testing.T) {
	// 24 AIC workers with 20 MatMul each: 40 records, capacity 48.
	var b strings.Builder
	b.WriteString("num_workers: 48\ntasks: [{task_type: MatMul}]\ncube_task_indices: [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("0, ", 480), ", ") + "]\n")
	s := parse(t, b.String())
	for _, tc := range []struct {
		scale         float64
		capacity      uint32
		droppedPerAIC uint32
	}{{1, 48, 0}, {0.8, 32, 8}, {0.3, 0, 40}, {2.1, 96, 0}} {
		c, err := synth.Run(s, synth.Options{CapacityScale: tc.scale})
		require.NoError(t, err)
		assert.Equalf(t, tc.capacity, c.Layout.Capacities.AIC, "scale %v: AIC capacity", tc.scale)
		assert.Equalf(t, 24*uint64(tc.droppedPerAIC), c.Dropped(), "scale %v: dropped", tc.scale)
	}
	_, err := synth.Run(s, synth.Options{CapacityScale: -1})
	assert.Error(t, err, "negative scale accepted")
	_, err = synth.Run(s, synth.Options{CapacityScale: 1e9})
	assert.ErrorContains(t, err, "capacity scale", "a scale past the maximum capacity")
	_, err = synth.Run(s, synth.Options{MaxBufferBytes: 1000})
	assert.ErrorContains(t, err, "more than the limit of 1000", "buffer limit")
}

// TestPipeline: every AIV worker runs the whole vector queue, one compute
// record per task, numbered by its shard; no AIC core enters.
// An AIV pipeline of 6 workers at the default stride 2: AIV workers 0, 1
// and 2 run on AIV/0, AIV/2 and AIV/4, each the whole vector queue, with
// its worker index as the shard (stage_task_index); AIV/1, 3 and 5 enter
// and write nothing; no AIC core enters.
func TestPipeline(t *testing.T) {
	s := parse(t, `mode: aiv_pipeline
num_workers: 6
tasks: [{task_type: RmsNorm}, {task_type: SwiGLU}, {task_type: AddCustom, stage_task_index: 0}]
vector_task_indices: [0, 1, 2]
`)
	c, err := synth.Run(s, synth.Options{})
	require.NoError(t, err)
	workers := 0
	for _, m := range c.Slots {
		b := m.Slot.BlockID
		switch {
		case m.Slot.CoreType == abi.CoreTypeAIV && b < 6 && b%2 == 0:
			workers++
			require.Truef(t, m.Entered, "%s: entered %v, wrote", m.Slot, m.Entered)
			require.Lenf(t, m.Records, 3, "%s: entered %v, wrote", m.Slot, m.Entered)
			for i, r := range m.Records {
				wantIndex := b / 2
				if i == 2 {
					wantIndex = 0
				}
				assert.Equalf(t, uint32(i), r.TaskID, "%s record %d: %+v", m.Slot, i, r)
				assert.Equalf(t, wantIndex, r.StageTaskIndex, "%s record %d: %+v", m.Slot, i, r)
				assert.GreaterOrEqualf(t, r.DescID, uint32(abi.TaskTypeBase), "%s record %d: %+v", m.Slot, i, r)
			}
		case m.Slot.CoreType == abi.CoreTypeAIV && b < 6:
			assert.Truef(t, m.Entered, "%s: entered %v, wrote", m.Slot, m.Entered)
			assert.Emptyf(t, m.Records, "%s: entered %v, wrote", m.Slot, m.Entered)
		case m.Entered:
			assert.Fail(t, fmt.Sprintf("%s entered", m.Slot))
		}
	}
	assert.Equal(t, 3, workers)
}

// TestWaitTimeoutBounded: a watchdog so long that the cycle counter would
// wrap is refused, rather than writing waits that end before they start.
func TestWaitTimeoutBounded(t *testing.T) {
	s := parse(t, `num_workers: 2
tasks:
  - {task_type: MatMul, dependent_event: 2}
cube_task_indices: [0]
`)
	_, err := synth.Run(s, synth.Options{WaitTimeout: synth.MaxWaitTimeout})
	require.NoError(t, err, "WaitTimeout at the maximum")
	_, err = synth.Run(s, synth.Options{WaitTimeout: math.MaxUint64})
	require.ErrorContains(t, err, "wait timeout 18446744073709551615 cycles is more than the maximum", "WaitTimeout MaxUint64")
}
