// Package synth simulates a MegaKernel writing its profiling buffer: each
// core enters the kernel, writes its header, runs its task queue in order
// and appends a wait, compute and trigger record per task through the same
// writer rules as the device (abi.InitSlot, abi.WriteRecord: a record is
// counted when the slot has room, else counted as dropped).
//
// The simulation follows the device writer of gen/cpp/cycleabi_abi.h and the planner's
// worker assignment (plan.Assign):
//
//   - Event-driven: AIC cores 0..num_workers/2-1 and AIV cores
//     0..num_workers-1 enter the kernel. AIC worker w is AIC core w; AIV
//     worker w is AIV core w*vector_worker_stride (the other AIV cores enter
//     and write a header but no records).
//   - AIV pipeline: AIV cores 0..num_workers-1 enter and each runs the whole
//     vector queue, one compute record per task; no AIC core enters.
//
// Records: a compute record's desc_id is the task's plan.Task.ComputeDesc:
// abi.RuntimeStageTerminateTask for a Terminate task, its profile_desc_id
// when it has one (a kernel family's stage id, such as MegaMoe's GMM1,
// 0x10002), abi.GraphStageBase + graph_stage when it has one, else
// abi.TaskTypeBase + task_type; waits are
// abi.RuntimeStageWaitDependency and triggers abi.RuntimeStageTriggerEvent.
// Every record of a task carries its task id, owner_id and
// stage_task_index; a task without stage_task_index gets its index among
// the tasks with the same compute descriptor, in task-id order (in an AIV
// pipeline, the worker's shard number).
//
// Timing: entry cycles start near BaseEntryCycle, slightly staggered per
// core; compute durations depend on the task type with jitter from the seed.
// An event fires when every scheduled task that triggers it has triggered
// it (at the last trigger's end); a task that waits on it starts its
// compute a few cycles after that. Each core draws from its own random
// stream, so a capture is the same for a seed whatever order the
// simulation visits cores in.
//
// A wait that can never end (an event no scheduled task triggers, a cycle
// of waits, or a trigger on an idle core) is an error naming the task,
// unless Options.WaitTimeout is set: then the waiting core gives up after
// that many cycles, as a runtime with a watchdog would, and its wait record
// spans the timeout.
package synth

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// DefaultMaxBufferBytes is the largest buffer Run allocates unless
// Options.MaxBufferBytes says otherwise.
const DefaultMaxBufferBytes = 1 << 30

// DefaultWaitTimeout is a watchdog of 1 ms at 50 MHz, for callers that want
// bounded waits without choosing a value.
const DefaultWaitTimeout = 50_000

// MaxWaitTimeout is the largest Options.WaitTimeout (about 86 s at 50 MHz):
// a core's clock advances by at most that much per task, so cycle counts
// stay far from wrapping around a u64 (which would write records that end
// before they start).
const MaxWaitTimeout = 1 << 32

// Options control a simulation. The zero value simulates the planned buffer
// with seed 0.
type Options struct {
	// Seed selects the timings and which cores are idle.
	Seed uint64
	// Capacities, when not nil, replace the planned record capacities
	// (each must pass abi.CheckCapacity).
	Capacities *abi.Capacities
	// CapacityScale, when not 0, scales the planned capacities and rounds
	// the result down to abi.RecordCapacityAlignment: 0.8 gives a buffer
	// too small for the busiest workers, which then drop records.
	CapacityScale float64
	// IdleCores workers, chosen by the seed, never enter the kernel: their
	// slots stay zero and their tasks never run.
	IdleCores int
	// WaitTimeout, when not 0, bounds a wait that can never end (see the
	// package doc); when 0 such a wait is an error. At most MaxWaitTimeout.
	WaitTimeout uint64
	// MaxBufferBytes bounds the buffer; 0 means DefaultMaxBufferBytes.
	MaxBufferBytes uint64
	// Faults make the kernel hang as a faulty one would (see Faults); the
	// zero value injects none.
	Faults Faults
}

// Capture is a simulated profiling buffer and what was written into it.
type Capture struct {
	// Plan is the planner's result for the schedule.
	Plan plan.Result
	// Layout is the buffer's layout (the planned one unless Options
	// changed the capacities).
	Layout abi.Layout
	// Buffer is the profiling buffer, Layout.Size() bytes.
	Buffer []byte
	// Slots is the manifest: one entry per slot, in buffer order.
	Slots []SlotManifest
}

// SlotManifest is what one simulated core did to its slot.
type SlotManifest struct {
	Slot abi.Slot
	// Entered is true when the core entered the kernel (wrote its header).
	Entered bool
	// Worker is true when the core runs a task queue; IdleWorker when it
	// would have but was made idle.
	Worker, IdleWorker bool
	EntryCycle         uint64
	// Records are the records written (the live ones), in order.
	Records []abi.ProfileRecord
	// Dropped counts the records that did not fit.
	Dropped uint32
	// Stopped is true when the core stopped inside its task StoppedIn
	// (Faults.StopInTask); Blocked when it waits forever on the event
	// BlockedOn for its task NextTask (only under Faults: without them
	// such a wait is an error or times out).
	Stopped, Blocked bool
	NextTask         uint32
	BlockedOn        plan.EventID
}

// Dropped returns the records dropped over all slots.
func (c *Capture) Dropped() uint64 {
	var n uint64
	for i := range c.Slots {
		n += uint64(c.Slots[i].Dropped)
	}
	return n
}

// Records returns the records written over all slots.
func (c *Capture) Records() uint64 {
	var n uint64
	for i := range c.Slots {
		n += uint64(len(c.Slots[i].Records))
	}
	return n
}

// Run plans s and simulates the device writing its buffer.
func Run(s *plan.Schedule, opts Options) (*Capture, error) {
	// Without a wait timeout, a wait that no scheduled task triggers
	// would never end: plan.Check refuses it, naming the task.
	check := plan.Check
	if opts.WaitTimeout != 0 || opts.Faults.any() {
		check = plan.Plan
	}
	r, err := check(s)
	if err != nil {
		return nil, err
	}
	if opts.WaitTimeout > MaxWaitTimeout {
		return nil, fmt.Errorf("wait timeout %d cycles is more than the maximum %d", opts.WaitTimeout, uint64(MaxWaitTimeout))
	}
	if err := opts.Faults.check(s, r, opts.WaitTimeout); err != nil {
		return nil, err
	}
	caps, err := capacities(r, opts)
	if err != nil {
		return nil, err
	}
	layout, err := abi.NewLayout(r.CubeSlotCount, caps)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxBufferBytes
	if limit == 0 {
		limit = DefaultMaxBufferBytes
	}
	if layout.Size() > limit {
		return nil, fmt.Errorf("%s: the buffer would be %d bytes, more than the limit of %d", s.File, layout.Size(), limit)
	}

	sim := &simulator{s: s, r: r, opts: opts, assign: plan.Assign(s, r)}
	c := &Capture{Plan: r, Layout: layout, Buffer: make([]byte, layout.Size())}
	c.Slots = make([]SlotManifest, layout.NumSlots())
	for i := range c.Slots {
		c.Slots[i].Slot = layout.Slot(i)
	}
	sim.c = c
	if err := sim.enter(); err != nil {
		return nil, err
	}
	if err := sim.run(); err != nil {
		return nil, err
	}
	if sim.err != nil {
		return nil, sim.err
	}
	return c, nil
}

// capacities applies Options to the planned capacities.
func capacities(r plan.Result, opts Options) (abi.Capacities, error) {
	caps := r.Capacities()
	if opts.Capacities != nil {
		caps = *opts.Capacities
	}
	if opts.CapacityScale != 0 {
		if opts.CapacityScale < 0 || math.IsNaN(opts.CapacityScale) || math.IsInf(opts.CapacityScale, 0) {
			return caps, fmt.Errorf("capacity scale must be a positive number, got %v", opts.CapacityScale)
		}
		scale := func(c uint32) uint64 {
			v := math.Floor(float64(c) * opts.CapacityScale / abi.RecordCapacityAlignment)
			return uint64(min(v, 1<<40)) * abi.RecordCapacityAlignment
		}
		var scaled abi.Capacities
		for _, reg := range abi.Regions() {
			v := scale(caps.For(reg.CoreType))
			if err := abi.CheckCapacity(v); err != nil {
				return caps, fmt.Errorf("capacity scale %v: %w", opts.CapacityScale, err)
			}
			scaled.Set(reg.CoreType, uint32(v))
		}
		caps = scaled
	}
	return caps, nil
}

// core is one simulated core that entered the kernel.
type core struct {
	slot    *SlotManifest
	bytes   []byte
	rng     *rand.Rand
	queue   []uint32 // task ids still to run
	worker  uint32   // worker index (the AIV pipeline's shard)
	clock   uint64   // cycle at which the core is free for its next record
	blocked bool
	stopped bool // stopped inside queue[0] for good (Faults.StopInTask)
}

type simulator struct {
	s      *plan.Schedule
	r      plan.Result
	opts   Options
	assign plan.Assignment
	c      *Capture
	cores  []*core

	stageIndex []uint32 // per task id, when the schedule does not give one
	events     map[plan.EventID]*event
	err        error // the first failure to write a record
}

// event is a device event: it fires once all its scheduled triggers have.
type event struct {
	pending uint64   // scheduled triggers not yet done
	fired   bool     // pending reached 0
	at      uint64   // the latest trigger's end
	waiters []*core  // cores blocked on it
	tasks   []uint32 // tasks that trigger it, for errors
}

// rngFor returns the random stream of one core: a function of the seed and
// the core alone.
func (sim *simulator) rngFor(slot abi.Slot) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s", slot)
	return rand.New(rand.NewPCG(sim.opts.Seed, h.Sum64()))
}

// enter decides which cores enter the kernel and writes their headers.
func (sim *simulator) enter() error {
	r, layout := sim.r, sim.c.Layout
	type worker struct {
		slot   int
		worker uint32
	}
	var workers []worker
	entered := map[int]bool{}
	// The index in buffer order of each region's first slot.
	regionStart := map[abi.CoreType]int{}
	start := 0
	for _, reg := range abi.Regions() {
		regionStart[reg.CoreType] = start
		start += int(layout.SlotCount(reg.CoreType))
	}
	slotIndex := func(t abi.CoreType, block uint32) int { return regionStart[t] + int(block) }
	// The first num_workers vector (AIV) cores (and, event-driven,
	// num_workers/2 cube (AIC) cores) enter the kernel; AIV worker w runs
	// on AIV/(w*stride). The cores of a region the schedule model does not
	// know never enter.
	cube, vector := plan.CubeCores, plan.VectorCores
	n := uint32(r.NumWorkers)
	if r.Mode != plan.AIVPipeline {
		for b := uint32(0); b < n/2; b++ {
			entered[slotIndex(cube, b)] = true
		}
	}
	for b := uint32(0); b < n; b++ {
		entered[slotIndex(vector, b)] = true
	}
	for w := uint32(0); w < r.Region(cube).Workers; w++ {
		workers = append(workers, worker{slotIndex(cube, w), w})
	}
	stride := uint32(sim.s.Stride())
	for w := uint32(0); w < r.Region(vector).Workers; w++ {
		workers = append(workers, worker{slotIndex(vector, w*stride), w})
	}

	if sim.opts.IdleCores < 0 || sim.opts.IdleCores > len(workers) {
		return fmt.Errorf("%s: cannot make %d of %d workers idle", sim.s.File, sim.opts.IdleCores, len(workers))
	}
	pick := rand.New(rand.NewPCG(sim.opts.Seed, 0x1d1e))
	for _, k := range pick.Perm(len(workers))[:sim.opts.IdleCores] {
		entered[workers[k].slot] = false
		sim.c.Slots[workers[k].slot].IdleWorker = true
	}

	// The kernel launch reaches the cores a few cycles apart; the cores of
	// cube slot b start together (AIC core b and its two AIV cores 2b,
	// 2b+1: block id / slots per cube slot).
	perCube := map[abi.CoreType]uint64{}
	for _, reg := range abi.Regions() {
		perCube[reg.CoreType] = uint64(reg.SlotsPerCubeSlot)
	}
	base := BaseEntryCycle + rand.New(rand.NewPCG(sim.opts.Seed, 0xba5e)).Uint64N(10_000_000_000)
	cores := make(map[int]*core)
	for i := range sim.c.Slots {
		if !entered[i] {
			continue
		}
		m := &sim.c.Slots[i]
		rng := sim.rngFor(m.Slot)
		group := uint64(m.Slot.BlockID) / perCube[m.Slot.CoreType]
		m.Entered = true
		m.EntryCycle = base + 4*group + rng.Uint64N(4)
		st := m.Slot.Stride()
		b := sim.c.Buffer[m.Slot.Offset : m.Slot.Offset+st]
		if err := abi.InitSlot(b, m.EntryCycle, m.Slot.CoreType, m.Slot.BlockID, m.Slot.Capacity); err != nil {
			return fmt.Errorf("%s: %w", m.Slot, err)
		}
		c := &core{slot: m, bytes: b, rng: rng, clock: m.EntryCycle + between(rng, dispatchCycles[0], dispatchCycles[1])}
		cores[i] = c
	}
	for _, w := range workers {
		c := cores[w.slot]
		if c == nil {
			continue // idle
		}
		c.slot.Worker = true
		c.worker = w.worker
		c.queue = sim.assign.Queue(c.slot.Slot.CoreType, w.worker)
		sim.cores = append(sim.cores, c)
	}
	return nil
}

// run executes every worker's queue, resolving events across workers.
func (sim *simulator) run() error {
	sim.prepare()
	runnable := slices.Clone(sim.cores)
	for {
		for len(runnable) > 0 {
			c := runnable[0]
			runnable = runnable[1:]
			runnable = append(runnable, sim.advance(c)...)
		}
		stuck := sim.stuck()
		if len(stuck) == 0 {
			sim.markStopped()
			return nil
		}
		if sim.opts.Faults.any() {
			sim.markStopped()
			return nil // the kernel hangs: the blocked cores stay blocked
		}
		if sim.opts.WaitTimeout == 0 {
			return sim.deadlock(stuck)
		}
		// The watchdog of the core that has waited longest goes off first.
		c := slices.MinFunc(stuck, func(a, b *core) int { return cmp.Compare(a.clock, b.clock) })
		sim.unblock(c)
		id := c.queue[0]
		t := &sim.s.Tasks[id]
		sim.write(c, c.clock, c.clock+sim.opts.WaitTimeout, abi.RuntimeStageWaitDependency, id, t, c.worker)
		c.clock += sim.opts.WaitTimeout + between(c.rng, gapCycles[0], gapCycles[1])
		runnable = append(runnable, sim.finishTask(c)...)
		runnable = append(runnable, sim.advance(c)...)
	}
}

// prepare numbers tasks within their stages and counts each event's
// scheduled triggers.
func (sim *simulator) prepare() {
	s := sim.s
	sim.stageIndex = make([]uint32, len(s.Tasks))
	next := map[uint32]uint32{}
	for id := range s.Tasks {
		d := s.Tasks[id].ComputeDesc()
		sim.stageIndex[id] = next[d]
		next[d]++
	}
	sim.events = map[plan.EventID]*event{}
	if sim.r.Mode == plan.AIVPipeline {
		return
	}
	for _, queue := range [][]uint32{s.CubeTaskIndices, s.VectorTaskIndices} {
		for _, id := range queue {
			if e := s.Tasks[id].TriggerEvent; e.Valid() {
				ev := sim.event(e)
				ev.pending++
				ev.tasks = append(ev.tasks, id)
			}
		}
	}
	for _, e := range sim.opts.Faults.StarveEvents {
		sim.event(e).pending++ // a trigger the schedule does not have
	}
}

func (sim *simulator) event(e plan.EventID) *event {
	ev := sim.events[e]
	if ev == nil {
		ev = &event{}
		sim.events[e] = ev
	}
	return ev
}

// advance runs c's queue until it ends or blocks on an event that has not
// fired; it returns the cores that c's triggers unblocked.
func (sim *simulator) advance(c *core) []*core {
	var woken []*core
	for len(c.queue) > 0 {
		id := c.queue[0]
		t := &sim.s.Tasks[id]
		if sim.r.Mode == plan.EventDriven && t.DependentEvent.Valid() {
			ev := sim.event(t.DependentEvent)
			if !ev.fired {
				c.blocked = true
				ev.waiters = append(ev.waiters, c)
				return woken
			}
			end := max(c.clock, ev.at) + between(c.rng, wakeCycles[0], wakeCycles[1])
			sim.write(c, c.clock, end, abi.RuntimeStageWaitDependency, id, t, c.worker)
			c.clock = end + between(c.rng, gapCycles[0], gapCycles[1])
		}
		if sim.opts.Faults.stopsIn(id, sim.r.Mode, c.worker) {
			c.stopped = true // inside the task: its compute is never published
			return woken
		}
		woken = append(woken, sim.finishTask(c)...)
	}
	return woken
}

// finishTask writes the compute and trigger records of c's next task (its
// wait is done) and pops it; it returns the cores the trigger unblocked.
func (sim *simulator) finishTask(c *core) []*core {
	id := c.queue[0]
	c.queue = c.queue[1:]
	t := &sim.s.Tasks[id]
	start := c.clock
	end := start + jitter(c.rng, computeCycles(sim.s.KernelFamily, t.TaskType))
	sim.write(c, start, end, t.ComputeDesc(), id, t, c.worker)
	c.clock = end + between(c.rng, gapCycles[0], gapCycles[1])
	if sim.r.Mode == plan.AIVPipeline {
		return nil
	}
	if slices.Contains(sim.opts.Faults.SkipTrigger, id) {
		return nil // the trigger is never sent; the core goes on
	}
	fireAt := end // a put-with-signal signals the event itself
	if t.TaskType != abi.TaskTypeShmemPutMemSignal {
		tstart := c.clock
		fireAt = tstart + between(c.rng, triggerCycles[0], triggerCycles[1])
		sim.write(c, tstart, fireAt, abi.RuntimeStageTriggerEvent, id, t, c.worker)
		c.clock = fireAt + between(c.rng, gapCycles[0], gapCycles[1])
	}
	if !t.TriggerEvent.Valid() {
		return nil
	}
	ev := sim.event(t.TriggerEvent)
	ev.at = max(ev.at, fireAt)
	if ev.pending > 0 {
		ev.pending--
	}
	if ev.pending > 0 || ev.fired {
		return nil
	}
	ev.fired = true
	woken := ev.waiters
	ev.waiters = nil
	for _, w := range woken {
		w.blocked = false
	}
	return woken
}

// unblock takes c off the waiter list of the event it is blocked on.
func (sim *simulator) unblock(c *core) {
	ev := sim.events[sim.s.Tasks[c.queue[0]].DependentEvent]
	ev.waiters = slices.DeleteFunc(ev.waiters, func(w *core) bool { return w == c })
	c.blocked = false
}

// write appends one record to c's slot as the device does.
func (sim *simulator) write(c *core, start, end uint64, desc, id uint32, t *plan.Task, worker uint32) {
	rec := abi.ProfileRecord{
		StartCycle:     start,
		EndCycle:       end,
		DescID:         desc,
		TaskID:         id,
		StageTaskIndex: t.StageTaskIndex,
		OwnerID:        t.OwnerID,
	}
	if rec.StageTaskIndex == plan.AutoStageTaskIndex {
		if sim.r.Mode == plan.AIVPipeline {
			rec.StageTaskIndex = worker // each worker is one shard of the stage
		} else {
			rec.StageTaskIndex = sim.stageIndex[id]
		}
	}
	written, err := abi.WriteRecord(c.bytes, &rec)
	if err != nil {
		// InitSlot sized the slot, so this is a bug here, not in the input.
		if sim.err == nil {
			sim.err = fmt.Errorf("%s: %w", c.slot.Slot, err)
		}
		return
	}
	if written {
		c.slot.Records = append(c.slot.Records, rec)
	} else {
		c.slot.Dropped++
	}
}

// stuck returns the cores blocked on events, in slot order.
func (sim *simulator) stuck() []*core {
	var out []*core
	for _, c := range sim.cores {
		if c.blocked {
			out = append(out, c)
		}
	}
	return out
}

// DeadlockError reports cores that wait forever.
type DeadlockError struct {
	// First is the error about the first blocked core's task, with its
	// position in the schedule.
	First *plan.Error
	// Blocked describes every blocked core ("AIV/4 task 17 waits on event 3").
	Blocked []string
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString(e.First.Error())
	if len(e.Blocked) > 1 {
		fmt.Fprintf(&b, " (%d cores blocked: %s)", len(e.Blocked), strings.Join(e.Blocked, "; "))
	}
	return b.String()
}

// Unwrap returns the positioned error about the first blocked core.
func (e *DeadlockError) Unwrap() error { return e.First }

func (sim *simulator) deadlock(stuck []*core) error {
	e := &DeadlockError{}
	for i, c := range stuck {
		id := c.queue[0]
		ev := sim.s.Tasks[id].DependentEvent
		why := sim.whyNotFired(ev)
		if i == 0 {
			e.First = sim.s.ErrorAt(fmt.Sprintf("tasks[%d].dependent_event", id),
				"deadlock: %s runs task %d, which waits on event %d forever: %s", c.slot.Slot, id, ev, why)
		}
		if i < 8 {
			e.Blocked = append(e.Blocked, fmt.Sprintf("%s task %d waits on event %d", c.slot.Slot, id, ev))
		}
	}
	return e
}

func (sim *simulator) whyNotFired(e plan.EventID) string {
	ev := sim.events[e]
	if ev == nil || len(ev.tasks) == 0 {
		return "no scheduled task triggers it"
	}
	var pending []string
	for _, c := range sim.cores {
		for _, id := range c.queue {
			if sim.s.Tasks[id].TriggerEvent == e {
				pending = append(pending, fmt.Sprintf("task %d on %s", id, c.slot.Slot))
				break
			}
		}
	}
	if len(pending) == 0 {
		return fmt.Sprintf("%d of its %d triggers are on idle cores", ev.pending, len(ev.tasks))
	}
	return "its trigger waits behind it (" + strings.Join(pending[:min(len(pending), 4)], ", ") + ")"
}
