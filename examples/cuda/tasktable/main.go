// Command tasktable writes the per-block task table that examples/cuda's
// persistent kernel runs: for a schedule that cycleabi plans, what each
// block of the kernel does, in order, and the records it writes.
//
//	go run ./examples/cuda/tasktable examples/moe_layer.yaml > table.txt
//
// The table follows the simulator (package synth, seed 0) core by core:
// the cores that enter the kernel become the kernel's blocks (AIC slots
// first, then AIV, in buffer order), and each record the simulator writes
// becomes one operation of its block: a wait on an event counter (a
// WaitDependency record), the task's compute (its compute record), or a
// trigger of an event counter (a TriggerEvent record; a ShmemPutMemSignal
// task signals its event from its compute record instead, and writes no
// trigger record). An event fires when every trigger the schedule gives
// it has happened. So the kernel writes the records the simulator writes,
// in the same order, with real times: what the live reader checks field
// by field, and what validate --plan holds to the plan.
//
// The table is text, one item per line (examples/cuda/README.md):
//
//	cycleabi-cuda-tasktable 1
//	layout CUBE_SLOTS AIC_CAPACITY AIV_CAPACITY BUFFER_BYTES
//	events N                 then N lines: event ID TRIGGERS
//	blocks N                 then per block:
//	block CORE_TYPE BLOCK_ID OPS
//	op KIND EVENT WORK_NS DESC_ID TASK_ID STAGE_TASK_INDEX OWNER_ID
//
// KIND is 0 wait, 1 compute, 2 trigger, 3 compute then signal; EVENT is
// the dense index of the event in the events list (-1 for none); WORK_NS
// is the compute's length: the simulator's compute cycles times
// -ns-per-cycle.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
)

// Operation kinds, as the kernel reads them.
const (
	opWait    = 0
	opCompute = 1
	opTrigger = 2
	opSignal  = 3
)

type op struct {
	kind   int
	event  int
	workNS uint64
	rec    abi.ProfileRecord
}

func main() {
	nsPerCycle := flag.Uint64("ns-per-cycle", 8, "compute length in ns per simulated cycle")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: tasktable [-ns-per-cycle N] SCHEDULE > table.txt")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *nsPerCycle); err != nil {
		fmt.Fprintln(os.Stderr, "tasktable:", err)
		os.Exit(1)
	}
}

// run writes the task table of the schedule at path to out.
func run(out io.Writer, path string, nsPerCycle uint64) error {
	s, err := plan.ParseFile(path)
	if err != nil {
		return err
	}
	c, err := synth.Run(s, synth.Options{})
	if err != nil {
		return err
	}
	// Events get dense indices in the order the table first triggers them.
	eventIndex := map[plan.EventID]int{}
	var events []plan.EventID
	triggers := map[int]int{}
	index := func(e plan.EventID) int {
		if !e.Valid() {
			return -1
		}
		i, ok := eventIndex[e]
		if !ok {
			i = len(events)
			eventIndex[e] = i
			events = append(events, e)
		}
		return i
	}
	type block struct {
		slot abi.Slot
		ops  []op
	}
	var blocks []block
	for _, m := range c.Slots {
		if !m.Entered {
			continue
		}
		b := block{slot: m.Slot}
		for _, r := range m.Records {
			t := &s.Tasks[r.TaskID]
			o := op{rec: r, event: -1}
			switch r.DescID {
			case abi.RuntimeStageWaitDependency:
				o.kind, o.event = opWait, index(t.DependentEvent)
			case abi.RuntimeStageTriggerEvent:
				o.kind, o.event = opTrigger, index(t.TriggerEvent)
			default:
				o.kind = opCompute
				o.workNS = (r.EndCycle - r.StartCycle) * nsPerCycle
				if t.TaskType == abi.TaskTypeShmemPutMemSignal && t.TriggerEvent.Valid() {
					o.kind, o.event = opSignal, index(t.TriggerEvent)
				}
			}
			if (o.kind == opTrigger || o.kind == opSignal) && o.event >= 0 {
				triggers[o.event]++
			}
			b.ops = append(b.ops, o)
		}
		blocks = append(blocks, b)
	}
	if c.Dropped() != 0 {
		return fmt.Errorf("%s: the planned buffer drops %d records", path, c.Dropped())
	}

	w := bufio.NewWriter(out)
	l := c.Layout
	fmt.Fprintln(w, "cycleabi-cuda-tasktable 1")
	fmt.Fprintf(w, "layout %d %d %d %d\n", l.CubeSlots, l.Capacities.AIC, l.Capacities.AIV, l.Size())
	fmt.Fprintf(w, "events %d\n", len(events))
	for i, e := range events {
		fmt.Fprintf(w, "event %d %d\n", uint32(e), triggers[i])
	}
	fmt.Fprintf(w, "blocks %d\n", len(blocks))
	for _, b := range blocks {
		fmt.Fprintf(w, "block %d %d %d\n", uint32(b.slot.CoreType), b.slot.BlockID, len(b.ops))
		for _, o := range b.ops {
			r := o.rec
			fmt.Fprintf(w, "op %d %d %d %d %d %d %d\n", o.kind, o.event, o.workNS, r.DescID, r.TaskID, r.StageTaskIndex, r.OwnerID)
		}
	}
	return w.Flush()
}
