package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const schedulePath = "../../moe_layer.yaml"

// table is a task table read back from its text, by this test's own parser.
type table struct {
	layout   [4]uint64
	eventIDs []uint32
	triggers []int
	blocks   []tblock
}

type tblock struct {
	coreType, blockID uint32
	ops               []top
}

type top struct {
	kind, event                int
	work                       uint64
	desc, task, index, ownerID uint32
}

func parse(t *testing.T, text string) table {
	t.Helper()
	var tb table
	sc := bufio.NewScanner(strings.NewReader(text))
	line := func(format string, args ...any) {
		t.Helper()
		require.Truef(t, sc.Scan(), "the table ends early, want %q", format)
		_, err := fmt.Sscanf(sc.Text(), format, args...)
		require.NoErrorf(t, err, "line %q (want %q)", sc.Text(), format)
	}
	var version, n int
	line("cycleabi-cuda-tasktable %d", &version)
	line("layout %d %d %d %d", &tb.layout[0], &tb.layout[1], &tb.layout[2], &tb.layout[3])
	line("events %d", &n)
	for i := 0; i < n; i++ {
		var id uint32
		var tr int
		line("event %d %d", &id, &tr)
		tb.eventIDs = append(tb.eventIDs, id)
		tb.triggers = append(tb.triggers, tr)
	}
	line("blocks %d", &n)
	for i := 0; i < n; i++ {
		var b tblock
		var ops int
		line("block %d %d %d", &b.coreType, &b.blockID, &ops)
		for j := 0; j < ops; j++ {
			var o top
			line("op %d %d %d %d %d %d %d", &o.kind, &o.event, &o.work, &o.desc, &o.task, &o.index, &o.ownerID)
			b.ops = append(b.ops, o)
		}
		tb.blocks = append(tb.blocks, b)
	}
	more := sc.Scan()
	require.Falsef(t, more, "text after the last block: %q", sc.Text())
	return tb
}

// TestMoELayerTable holds the table of examples/moe_layer.yaml to what the
// kernel needs, checked against the schedule itself: the planned layout
// (cycleabi plan: 24 cube slots, capacity 80, 188,928 bytes); 72 blocks,
// the 24 AIC then the 48 AIV cores, each in block order; every task run
// once, on one block, as its wait (when it has a dependent event), its
// compute (signalling its event when it is a ShmemPutMemSignal) and its
// trigger (otherwise); every event's trigger count the number of tasks
// that trigger it; and the table, run the way the kernel runs it (a block
// waits until its event has all its triggers), finishes: the kernel cannot
// hang on it.
func TestMoELayerTable(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, schedulePath, 8))
	tb := parse(t, out.String())
	s, err := plan.ParseFile(schedulePath)
	require.NoError(t, err)
	assert.Equal(t, [4]uint64{24, 80, 80, 188928}, tb.layout, "layout")
	require.Len(t, tb.blocks, 72)
	for i, b := range tb.blocks {
		want := [2]uint32{uint32(abi.CoreTypeAIC), uint32(i)}
		if i >= 24 {
			want = [2]uint32{uint32(abi.CoreTypeAIV), uint32(i - 24)}
		}
		assert.Equalf(t, want, [2]uint32{b.coreType, b.blockID}, "block %d: core type/block id", i)
	}

	// Every task once, in its three steps.
	eventOf := func(i int) plan.EventID {
		if i < 0 {
			return plan.NoEvent
		}
		return plan.EventID(tb.eventIDs[i])
	}
	type step struct{ kind, event int }
	steps := map[uint32][]step{}
	records := 0
	for _, b := range tb.blocks {
		for _, o := range b.ops {
			steps[o.task] = append(steps[o.task], step{o.kind, o.event})
			records++
			require.GreaterOrEqualf(t, int(o.index), 0, "op %+v names no task of the schedule", o)
			require.Lessf(t, o.task, uint32(len(s.Tasks)), "op %+v names no task of the schedule", o)
		}
	}
	assert.Equal(t, 2984, records)
	for id := range s.Tasks {
		task := &s.Tasks[id]
		var want []step
		if task.DependentEvent.Valid() {
			want = append(want, step{opWait, -2})
		}
		if task.TaskType == abi.TaskTypeShmemPutMemSignal {
			want = append(want, step{opSignal, -2})
		} else {
			want = append(want, step{opCompute, -1}, step{opTrigger, -2})
		}
		got := steps[uint32(id)]
		if !assert.Lenf(t, got, len(want), "task %d: steps, want kinds %v", id, want) {
			continue
		}
		for i := range got {
			ev := want[i].event
			switch {
			case want[i].kind == opWait:
				ev = -2
				assert.Equalf(t, task.DependentEvent, eventOf(got[i].event), "task %d waits on event", id)
			case ev == -2:
				assert.Equalf(t, task.TriggerEvent, eventOf(got[i].event), "task %d triggers event", id)
			}
			assert.Equalf(t, want[i].kind, got[i].kind, "task %d step %d: %+v", id, i, got[i])
			if ev == -1 {
				assert.Equalf(t, -1, got[i].event, "task %d step %d: %+v", id, i, got[i])
			}

		}
	}
	for i, id := range tb.eventIDs {
		n := 0
		for _, task := range s.Tasks {
			if task.TriggerEvent == plan.EventID(id) {
				n++
			}
		}
		assert.Equalf(t, n, tb.triggers[i], "event %d", id)
	}

	// Run it as the kernel does, one step of every unblocked block a round.
	counts := make([]int, len(tb.triggers))
	pc := make([]int, len(tb.blocks))
	for left := records; left > 0; {
		progress := false
		for b := range tb.blocks {
			if pc[b] == len(tb.blocks[b].ops) {
				continue
			}
			o := tb.blocks[b].ops[pc[b]]
			if o.kind == opWait && counts[o.event] < tb.triggers[o.event] {
				continue
			}
			if (o.kind == opTrigger || o.kind == opSignal) && o.event >= 0 {
				counts[o.event]++
			}
			pc[b]++
			left--
			progress = true
		}
		require.Truef(t, progress, "the table deadlocks with %d operations left", left)
	}
}
