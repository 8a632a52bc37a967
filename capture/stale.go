package capture

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// StaleFactor is how far outside the launch a core's span must lie to be
// stale: its distance from the other cores' span exceeds StaleFactor
// times the larger of that span and its own.
const StaleFactor = 4

// Stale is an active slot whose span lies far outside the span of the
// launch (the most cores whose spans lie together): most likely an
// earlier launch's slot in a buffer not zeroed between launches.
type Stale struct {
	Slot ActiveSlot
	// End is the slot's last record's end_cycle (its entry_cycle when
	// that is later).
	End uint64
	// Lo and Hi are the launch's span: its cores' smallest entry_cycle
	// and largest end; Cores how many cores it has.
	Lo, Hi uint64
	Cores  int
}

// Where says where s lies: "1635000000 cycles before the span of the
// other 4 cores (2000000000..2000125021)".
func (s Stale) Where() string {
	where := fmt.Sprintf("%d cycles before", s.Lo-s.End)
	if s.Slot.EntryCycle > s.Hi {
		where = fmt.Sprintf("%d cycles after", s.Slot.EntryCycle-s.Hi)
	}
	return fmt.Sprintf("%s the span of the other %d cores (%d..%d)", where, s.Cores, s.Lo, s.Hi)
}

// StaleCause is the likely cause of a stale slot, and the rule that
// prevents it.
const StaleCause = "likely an earlier launch's slot (a buffer not zeroed between launches); zero the profiling buffer before every launch"

// Message says what s is and its likely cause, in the commands' words.
func (s Stale) Message() string {
	return fmt.Sprintf("%s entered at cycle %d, %s: %s", s.Slot.Slot, s.Slot.EntryCycle, s.Where(), StaleCause)
}

// StaleSlots returns the active slots of sum (scanned from c) whose span
// (entry_cycle to the last record's end_cycle) lies far outside the
// launch's: the active slots are grouped by their spans in entry order, a
// slot starting a new group when the gap before it exceeds StaleFactor
// times both the group's span so far and its own; the group of the most
// cores (the latest of equals) is the launch, and the slots of the other
// groups are stale. Slots with entry_cycle 0 are left out (validate's
// entry-cycle-zero says so). It reads one record per active slot.
func (c *Capture) StaleSlots(sum *Summary) ([]Stale, error) {
	type span struct {
		a        ActiveSlot
		lo, hi   uint64
		group    int
		capacity uint32
	}
	var spans []span
	rec := make([]byte, abi.ProfileRecordSize)
	for _, a := range sum.Active {
		if a.EntryCycle == 0 || a.Count == 0 {
			continue
		}
		n := min(uint64(a.Count), uint64(a.Slot.Capacity))
		if n == 0 {
			continue
		}
		off := a.Slot.Offset + abi.CoreHeaderSize + (n-1)*abi.ProfileRecordSize
		if _, err := c.ReadAt(rec, int64(off)); err != nil {
			return nil, fmt.Errorf("%s: reading the last record of %s: %w", c.Name, a.Slot, err)
		}
		end := binary.LittleEndian.Uint64(rec[abi.ProfileRecordEndCycleOffset:])
		spans = append(spans, span{a: a, lo: a.EntryCycle, hi: max(a.EntryCycle, end)})
	}
	if len(spans) < 2 {
		return nil, nil
	}
	slices.SortStableFunc(spans, func(x, y span) int {
		if x.lo != y.lo {
			if x.lo < y.lo {
				return -1
			}
			return 1
		}
		return 0
	})
	type group struct {
		lo, hi uint64
		n      int
	}
	groups := []group{{spans[0].lo, spans[0].hi, 1}}
	for i := 1; i < len(spans); i++ {
		s, g := &spans[i], &groups[len(groups)-1]
		if s.lo > g.hi {
			gap := s.lo - g.hi
			if w := max(g.hi-g.lo, s.hi-s.lo, 1); gap/StaleFactor > w {
				groups = append(groups, group{s.lo, s.hi, 1})
				s.group = len(groups) - 1
				continue
			}
		}
		g.hi, g.n = max(g.hi, s.hi), g.n+1
		s.group = len(groups) - 1
	}
	if len(groups) == 1 {
		return nil, nil
	}
	launch := 0
	for i, g := range groups {
		if g.n >= groups[launch].n {
			launch = i
		}
	}
	l := groups[launch]
	var out []Stale
	for _, s := range spans {
		if s.group != launch {
			out = append(out, Stale{Slot: s.a, End: s.hi, Lo: l.lo, Hi: l.hi, Cores: l.n})
		}
	}
	slices.SortFunc(out, func(x, y Stale) int {
		if x.Slot.Slot.Offset < y.Slot.Slot.Offset {
			return -1
		}
		return 1
	})
	return out, nil
}
