package analyze

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/megakernel/cycleabi/decode"
)

// Timeline is each core's time in equal bins over the rank's makespan,
// for an overview chart (one row per core, colored by kind): the cycles
// of each kind of record that fall in each bin, and the task type with
// the most compute in it.
type Timeline struct {
	// StartCycle is the rank's StartCycle; bin i covers
	// [StartCycle + i×BinCycles, StartCycle + (i+1)×BinCycles).
	StartCycle uint64 `json:"start_cycle"`
	BinCycles  uint64 `json:"bin_cycles"`
	Bins       int    `json:"bins"`
	// TaskTypes are the names TimelineBin.TaskType indexes.
	TaskTypes []string       `json:"task_types"`
	Cores     []CoreTimeline `json:"cores"`
}

// CoreTimeline is one core's row: the cores with records, in the order
// of Rank.Cores.
type CoreTimeline struct {
	Core string        `json:"core"`
	Bins []TimelineBin `json:"bins"`
}

// TimelineBin is what one core did in one bin, in cycles (records that
// overlap count twice; idle is what the bin's length leaves).
type TimelineBin struct {
	Compute uint64 `json:"compute"`
	Wait    uint64 `json:"wait"`
	Trigger uint64 `json:"trigger"`
	Other   uint64 `json:"other"`
	// TaskType indexes Timeline.TaskTypes: the task type with the most
	// compute cycles in the bin, -1 without compute. Four task types are
	// tracked per bin; when more meet in one bin, one whose share is
	// below a quarter may be missed.
	TaskType int `json:"task_type"`
}

// typeSketch counts the compute cycles of the task types met in one bin
// while a timeline is binned (a heavy-hitters sketch of four); it is not
// kept in the bin, which a report may hold for a while.
type typeSketch [4]typeCycles

type typeCycles struct {
	typ    int32 // index + 1; 0 is empty
	cycles uint64
}

// MaxTimelineBins bounds Timeline's bins per core.
const MaxTimelineBins = 1 << 16

// NewTimeline walks d again and bins its records over r's makespan (r is
// d's analysis with the same options). Memory is O(cores × bins): 40
// bytes a bin kept, and 64 more while the records are binned.
func NewTimeline(d *decode.Decoded, r *Rank, o Options, bins int) (*Timeline, error) {
	if bins < 1 || bins > MaxTimelineBins {
		return nil, fmt.Errorf("timeline bins %d: want 1 to %d", bins, MaxTimelineBins)
	}
	t := &Timeline{StartCycle: r.StartCycle, Bins: bins}
	t.BinCycles = max(1, r.MakespanCycles/uint64(bins))
	if t.BinCycles*uint64(bins) < r.MakespanCycles {
		t.BinCycles++
	}
	names := namer{names: o.Names, deps: o.Deps}
	row := make([]int, len(d.Summary.Active))
	for i, s := range d.Summary.Active {
		row[i] = len(t.Cores)
		t.Cores = append(t.Cores, CoreTimeline{Core: s.Slot.String(), Bins: make([]TimelineBin, bins)})
	}
	sketches := make([]typeSketch, len(t.Cores)*bins)
	typeIndex := map[string]int32{}
	descType := map[uint32]int32{} // desc_ids whose type does not depend on the task
	end := t.binStart(uint64(bins))
	err := d.Records(func(rec decode.Record) bool {
		lo, hi := max(rec.StartCycle, t.StartCycle), min(rec.EndCycle, end)
		if hi <= lo {
			return true
		}
		kind := names.kind(rec.DescID)
		var typ int32
		if kind == KindCompute {
			var ok bool
			if typ, ok = descType[rec.DescID]; !ok {
				name := names.taskType(&rec.ProfileRecord)
				if typ, ok = typeIndex[name]; !ok {
					typ = int32(len(t.TaskTypes)) + 1
					typeIndex[name] = typ
					t.TaskTypes = append(t.TaskTypes, name)
				}
				if names.typeByDesc(rec.DescID) {
					descType[rec.DescID] = typ
				}
			}
		}
		r := row[rec.Active]
		bs, sk := t.Cores[r].Bins, sketches[r*bins:(r+1)*bins]
		for b := (lo - t.StartCycle) / t.BinCycles; lo < hi; b++ {
			binEnd := min(hi, t.binStart(b+1))
			n := binEnd - lo
			bin := &bs[b]
			switch kind {
			case KindCompute:
				bin.Compute = satAdd(bin.Compute, n)
				sk[b].add(typ, n)
			case KindWait:
				bin.Wait = satAdd(bin.Wait, n)
			case KindTrigger:
				bin.Trigger = satAdd(bin.Trigger, n)
			default:
				bin.Other = satAdd(bin.Other, n)
			}
			lo = binEnd
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for i := range t.Cores {
		for j := range t.Cores[i].Bins {
			b := &t.Cores[i].Bins[j]
			b.TaskType = -1
			var most uint64
			for _, c := range sketches[i*bins+j] {
				if c.typ != 0 && c.cycles > most {
					b.TaskType, most = int(c.typ-1), c.cycles
				}
			}
		}
	}
	return t, nil
}

// binStart is the first cycle of bin b (saturating at 2^64-1).
func (t *Timeline) binStart(b uint64) uint64 {
	hi, lo := bits.Mul64(b, t.BinCycles)
	if hi != 0 {
		return math.MaxUint64
	}
	return satAdd(t.StartCycle, lo)
}

// add counts n compute cycles of type typ (index + 1).
func (s *typeSketch) add(typ int32, n uint64) {
	low := 0
	for i := range s {
		c := &s[i]
		if c.typ == typ || c.typ == 0 {
			c.typ, c.cycles = typ, satAdd(c.cycles, n)
			return
		}
		if c.cycles < s[low].cycles {
			low = i
		}
	}
	// Full: the new type takes the place of the smallest, keeping its
	// count as an upper bound (a heavy-hitters sketch).
	s[low] = typeCycles{typ: typ, cycles: satAdd(s[low].cycles, n)}
}
