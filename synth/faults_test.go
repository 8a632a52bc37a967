package synth_test

import (
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slotOf returns the manifest of the slot named name ("AIV/0").
func slotOf(t *testing.T, c *synth.Capture, name string) *synth.SlotManifest {
	t.Helper()
	for i := range c.Slots {
		if c.Slots[i].Slot.String() == name {
			return &c.Slots[i]
		}
	}
	require.FailNow(t, fmt.Sprintf("no slot %s", name))
	return nil
}

func descs(m *synth.SlotManifest) []uint32 {
	var out []uint32
	for _, r := range m.Records {
		out = append(out, r.DescID)
	}
	return out
}

// TestFaults runs each fault on the chain schedule and checks what the
// hung device leaves: the records that finished, and where each core
// stopped.
func TestFaults(t *testing.T) {
	const wait, trig = abi.RuntimeStageWaitDependency, abi.RuntimeStageTriggerEvent
	cases := []struct {
		name   string
		f      synth.Faults
		slot   string   // a core to look at
		descs  []uint32 // its records
		stop   bool     // it stopped inside its next task
		next   uint32
		on     plan.EventID // the event it waits on forever, when not stopped
		others int          // the other cores left waiting
	}{
		// SwiGLU (task 1) on AIV/0: its wait ends, its compute never does.
		{"stop", synth.Faults{StopInTask: []uint32{1}}, "AIV/0", []uint32{wait}, true, 1, 0, 1},
		// MatMul (task 0) never triggers event 1: SwiGLU waits forever.
		{"skip", synth.Faults{SkipTrigger: []uint32{0}}, "AIV/0", nil, false, 1, 1, 1},
		// Event 3 needs a trigger more than the put sends.
		{"starve", synth.Faults{StarveEvents: []plan.EventID{3}}, "AIV/0",
			[]uint32{wait, abi.TaskTypeBase + 102, trig}, false, 3, 3, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := synth.Run(parse(t, chain), synth.Options{Seed: 3, Faults: tc.f})
			require.NoError(t, err)
			m := slotOf(t, c, tc.slot)
			assert.Truef(t, equal(descs(m), tc.descs), "%s records, want %#x", tc.slot, tc.descs)
			assert.Equalf(t, tc.stop, m.Stopped, "%s stopped", tc.slot)
			assert.Equalf(t, !tc.stop, m.Blocked, "%s blocked", tc.slot)
			assert.Equalf(t, tc.next, m.NextTask, "%s next task", tc.slot)
			if !tc.stop {
				assert.Equalf(t, tc.on, m.BlockedOn, "%s blocked on", tc.slot)
			}
			others := 0
			for i := range c.Slots {
				if o := &c.Slots[i]; o != m && (o.Blocked || o.Stopped) {
					others++
				}
			}
			assert.Equal(t, tc.others, others)
		})
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHangCycle: a cycle of waits is an error, and with Hang the capture
// of the deadlocked kernel.
func TestHangCycle(t *testing.T) {
	const cycle = `
num_workers: 4
tasks:
  - {task_type: MatMul, dependent_event: 2, trigger_event: 1}
  - {task_type: SwiGLU, dependent_event: 1, trigger_event: 2}
cube_task_indices: [0]
vector_task_indices: [1]
`
	_, err := synth.Run(parse(t, cycle), synth.Options{})
	require.ErrorContains(t, err, "deadlock")
	c, err := synth.Run(parse(t, cycle), synth.Options{Faults: synth.Faults{Hang: true}})
	require.NoError(t, err)
	assert.Zero(t, c.Records(), "records")
	assert.Truef(t, slotOf(t, c, "AIC/0").Blocked, "AIC/0 %+v: want it blocked", slotOf(t, c, "AIC/0"))
	assert.Truef(t, slotOf(t, c, "AIV/0").Blocked, "AIV/0 %+v: want it blocked", slotOf(t, c, "AIV/0"))
}

// TestFaultsRefused: faults that name nothing the schedule runs, or that
// a watchdog would undo.
func TestFaultsRefused(t *testing.T) {
	for _, tc := range []struct {
		o    synth.Options
		want string
	}{
		{synth.Options{Faults: synth.Faults{StopInTask: []uint32{9}}}, "no queue holds it"},
		{synth.Options{Faults: synth.Faults{SkipTrigger: []uint32{2}}}, "ShmemPutMemSignal"},
		{synth.Options{Faults: synth.Faults{SkipTrigger: []uint32{3}}}, "triggers no event"},
		{synth.Options{Faults: synth.Faults{StarveEvents: []plan.EventID{7}}}, "no scheduled task waits on it"},
		{synth.Options{WaitTimeout: 100, Faults: synth.Faults{Hang: true}}, "one or the other"},
	} {
		_, err := synth.Run(parse(t, chain), tc.o)
		assert.ErrorContainsf(t, err, tc.want, "%+v: err = %v, want %q", tc.o, err, tc.want)
	}
}
