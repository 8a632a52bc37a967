// Package benchgen synthesizes large, realistic captures for decode's
// benchmarks and for measuring the peak memory of `cycleabi decode`: every
// slot of a 24-cube-slot buffer (AIC and AIV) active and about half full,
// each core running a stream of tasks that write wait, compute and trigger
// records (task types, graph stages, owners), slots in start order except
// a few with neighbouring records swapped.
package benchgen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
)

// Spec describes a synthetic capture.
type Spec struct {
	// Records is the number of live records, spread evenly over the slots.
	Records int
	// Unsorted is how many slots have records out of start order.
	Unsorted int
	// Seed makes the capture reproducible.
	Seed uint64
	// Warnings makes every slot draw validate warnings: its records out of
	// start order, every 100th overlapping the next, and entry_cycle set to
	// the start of its middle record (the first half start before it).
	Warnings bool
	// Full sizes the capacities to the records (rounded up to a multiple
	// of 16) instead of twice them: the file is nearly all records, as a
	// reader of the whole file (validate, cat) sees it.
	Full bool
}

// MB32 is the ~32 MB, ~500k-record capture of the figures; MB320
// is ten times larger.
var (
	MB32  = Spec{Records: 500_000, Unsorted: 1, Seed: 1}
	MB320 = Spec{Records: 5_000_000, Unsorted: 1, Seed: 1}
)

const cubeSlots = abi.MinCubeSlots

// GraphStages is the number of graph stages the records use; Names names them.
const GraphStages = 8

// Layout is the buffer layout: capacities twice the records per slot
// (once with Full), rounded up to a multiple of 16.
func (s Spec) Layout() (abi.Layout, error) {
	slots := 0
	for _, r := range abi.Regions() {
		slots += int(r.SlotsPerCubeSlot) * cubeSlots
	}
	perSlot := (s.Records + slots - 1) / slots
	want := uint64(2 * perSlot)
	if s.Full {
		want = uint64(perSlot)
	}
	c, err := abi.RoundUpCapacity(want)
	if err != nil {
		return abi.Layout{}, err
	}
	return abi.NewLayout(cubeSlots, abi.SameCapacities(c))
}

// Names returns a names file's worth of names for a capture of s (the
// Stages and Tasks of a kernelnames.Names): every graph stage, and a task stage
// for every task.
func (s Spec) Names() (stages, tasks map[uint32]string) {
	stages, tasks = map[uint32]string{}, map[uint32]string{}
	names := []string{"Dispatch", "GateUp", "SwiGLU", "Down", "Combine", "AllToAll", "Norm", "Residual"}
	for i := range GraphStages {
		stages[abi.GraphStageBase+uint32(i)] = names[i]
	}
	for task := range uint32(s.Records/3 + 1) {
		tasks[task] = names[task%GraphStages]
	}
	return stages, tasks
}

// Write writes the capture to w, slot by slot (memory is one slot).
func Write(w io.Writer, s Spec) error {
	l, err := s.Layout()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x6d6b))
	perSlot := (s.Records + l.NumSlots() - 1) / l.NumSlots()
	left := s.Records
	var buf []byte
	task := uint32(0)
	for i := range l.NumSlots() {
		slot := l.Slot(i)
		stride := int(slot.Stride())
		if cap(buf) < stride {
			buf = make([]byte, stride)
		}
		b := buf[:stride]
		clear(b)
		entry := uint64(1_000_000 + rng.IntN(2000))
		if err := abi.InitSlot(b, entry, slot.CoreType, slot.BlockID, slot.Capacity); err != nil {
			return err
		}
		n := min(perSlot, left)
		left -= n
		writeCore(b, rng, slot, entry, n, &task)
		if s.Warnings && n > 0 {
			warnings(b, n)
		}
		if i < s.Unsorted || s.Warnings {
			swapNeighbours(b, n)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// writeCore appends n records of one core's task stream to a slot.
func writeCore(slot []byte, rng *rand.Rand, s abi.Slot, entry uint64, n int, task *uint32) {
	t := entry + uint64(rng.IntN(500))
	put := func(start, end uint64, desc, taskID, index, owner uint32) {
		r := abi.ProfileRecord{StartCycle: start, EndCycle: end, DescID: desc, TaskID: taskID, StageTaskIndex: index, OwnerID: owner}
		abi.WriteRecord(slot, &r)
	}
	for written := 0; written < n; {
		id := *task
		*task++
		owner := uint32(abi.InvalidOwnerID)
		if rng.IntN(2) == 0 {
			owner = uint32(rng.IntN(64)) // an expert
		}
		index := uint32(rng.IntN(256))
		if rng.IntN(3) > 0 {
			d := uint64(20 + rng.IntN(400))
			put(t, t+d, abi.RuntimeStageWaitDependency, id, index, owner)
			t += d + 2
			written++
		}
		if written < n {
			var desc uint32
			var d uint64
			if s.CoreType == abi.CoreTypeAIC {
				desc, d = abi.TaskTypeBase+uint32(abi.TaskTypeGroupedMatMul), uint64(1000+rng.IntN(4000))
			} else if rng.IntN(2) == 0 {
				desc, d = abi.GraphStageBase+uint32(rng.IntN(GraphStages)), uint64(100+rng.IntN(1000))
			} else {
				types := []abi.TaskType{abi.TaskTypeSwiGLU, abi.TaskTypeRmsNorm, abi.TaskTypeShmemPutMemSignal, abi.TaskTypeAddCustom}
				desc, d = abi.TaskTypeBase+uint32(types[rng.IntN(len(types))]), uint64(100+rng.IntN(1000))
			}
			put(t, t+d, desc, id, index, owner)
			t += d + 1
			written++
		}
		if written < n {
			d := uint64(5 + rng.IntN(20))
			put(t, t+d, abi.RuntimeStageTriggerEvent, id, index, owner)
			t += d + uint64(rng.IntN(50))
			written++
		}
	}
}

// swapNeighbours swaps every 50th record with the next: the slot is no
// longer in start order.
func swapNeighbours(slot []byte, n int) {
	rec := func(i int) []byte {
		off := abi.CoreHeaderSize + i*abi.ProfileRecordSize
		return slot[off : off+abi.ProfileRecordSize]
	}
	var tmp [abi.ProfileRecordSize]byte
	for i := 0; i+1 < n; i += 50 {
		copy(tmp[:], rec(i))
		copy(rec(i), rec(i+1))
		copy(rec(i+1), tmp[:])
	}
}

// warnings stretches every 100th record of a slot over the next and moves
// the slot's entry_cycle to the start of its middle record.
func warnings(slot []byte, n int) {
	at := func(i int) int { return abi.CoreHeaderSize + i*abi.ProfileRecordSize }
	for i := 10; i+1 < n; i += 100 {
		next := binary.LittleEndian.Uint64(slot[at(i+1)+abi.ProfileRecordEndCycleOffset:])
		binary.LittleEndian.PutUint64(slot[at(i)+abi.ProfileRecordEndCycleOffset:], next+1)
	}
	mid := binary.LittleEndian.Uint64(slot[at(n/2)+abi.ProfileRecordStartCycleOffset:])
	binary.LittleEndian.PutUint64(slot[abi.CoreHeaderEntryCycleOffset:], mid)
}

// Bytes returns the capture in memory.
func Bytes(s Spec) ([]byte, error) {
	l, err := s.Layout()
	if err != nil {
		return nil, err
	}
	w := &sliceWriter{b: make([]byte, 0, l.Size())}
	if err := Write(w, s); err != nil {
		return nil, err
	}
	return w.b, nil
}

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// WriteFile writes the capture to path, and returns the decode flags of its layout.
func WriteFile(path string, s Spec) (string, error) {
	l, err := s.Layout()
	if err != nil {
		return "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = Write(bw, s)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return plan.LayoutFlags(l.CubeSlots, l.Capacities), nil
}

// WriteSparse writes a capture in which one slot, AIV/0, holds records
// records in random start order (ties included), and every other slot is
// unused, and returns the decode flags of its layout: cube slots 24, AIC
// capacity 0, AIV capacity records rounded up to 16. The file is sparse:
// only AIV/0's header and records are written, the rest is a hole, so
// 16,777,216 records take 512 MiB of disk for a 24 GiB file. It is the
// worst case of decode's out-of-order sort (scripts/rss-sparse.sh).
func WriteSparse(path string, records int, seed uint64) (string, error) {
	if records <= 0 || uint64(records) > abi.MaxRecordsPerCore {
		return "", fmt.Errorf("records must be in 1..%d, got %d", uint64(abi.MaxRecordsPerCore), records)
	}
	capacity, err := abi.RoundUpCapacity(uint64(records))
	if err != nil {
		return "", err
	}
	l, err := abi.NewLayout(cubeSlots, abi.Capacities{AIC: 0, AIV: capacity})
	if err != nil {
		return "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	const entry = 1_000_000
	off := int64(l.SlotOffset(abi.CoreTypeAIV, 0))
	h := abi.CoreHeader{EntryCycle: entry, RecordCount: uint32(records), CoreType: abi.CoreTypeAIV, RecordCapacity: capacity}
	_, err = f.WriteAt(h.Append(nil), off)
	bw := bufio.NewWriterSize(io.NewOffsetWriter(f, off+abi.CoreHeaderSize), 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x5a5e))
	span := uint64(records) * 16
	var b [abi.ProfileRecordSize]byte
	for i := 0; i < records && err == nil; i++ {
		start := entry + rng.Uint64N(span)
		r := abi.ProfileRecord{StartCycle: start, EndCycle: start + 1 + rng.Uint64N(15),
			DescID: abi.TaskTypeBase + uint32(abi.TaskTypeMatMul), TaskID: uint32(i), OwnerID: abi.InvalidOwnerID}
		_, err = bw.Write(r.Append(b[:0]))
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Truncate(int64(l.Size()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return plan.LayoutFlags(l.CubeSlots, l.Capacities), nil
}
