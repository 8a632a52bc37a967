package validate

import (
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
)

// idleWorkers reports, with a host plan that says where its workers run,
// every core the plan gives tasks that wrote no record (and dropped none):
// a worker that never ran, or whose records were lost. One finding per
// such core, at its header.
func (v *validator) idleWorkers(sum *capture.Summary) error {
	p := v.o.Layout.Plan
	if p == nil || p.WorkerOn == nil {
		return nil
	}
	type core struct {
		t     abi.CoreType
		block uint32
	}
	active := make(map[core]bool, len(sum.Active))
	for _, a := range sum.Active {
		active[core{a.Slot.CoreType, a.Slot.BlockID}] = true
	}
	hb := make([]byte, abi.CoreHeaderSize)
	for i := range v.layout.NumSlots() {
		s := v.layout.Slot(i)
		worker, tasks := p.WorkerOn(s.CoreType, s.BlockID)
		if tasks == 0 || active[core{s.CoreType, s.BlockID}] {
			continue
		}
		if _, err := v.c.ReadAt(hb, int64(s.Offset)); err != nil {
			return fmt.Errorf("%s: reading the header of %s: %w", v.c.Name, s, err)
		}
		h, err := abi.DecodeCoreHeader(hb)
		if err != nil {
			return fmt.Errorf("%s: the header of %s: %w", v.c.Name, s, err)
		}
		if h.DroppedCount > 0 {
			continue // it wrote, into no room: dropped-records says so
		}
		value := "an unused slot (all-zero header: the core never entered)"
		if h != (abi.CoreHeader{}) {
			value = fmt.Sprintf("record_count=0 (the core entered at cycle %d and wrote nothing)", h.EntryCycle)
		}
		v.warn(CodeIdleWorker, v.c.FileOffset(int64(s.Offset)), s.String(), -1, value,
			fmt.Sprintf("the records of %s worker %d's %s (host plan %s)", s.CoreType, worker, plural(uint64(tasks), "task"), p.Name))
	}
	return nil
}
