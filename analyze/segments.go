package analyze

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"slices"

	"github.com/megakernel/cycleabi/internal/jsonread"
)

// Segments are the critical path's segments in time order. A path has up
// to two segments per record it crosses, so they are held packed (16
// bytes a segment: its start, task and an index into the distinct
// combinations of core, kind, task type and stage) and each is built when
// asked for, by At. A path read back from JSON is packed as it is read
// (see segmentPacker).
type Segments struct {
	packed []packedSeg
	forms  []segForm
	// end is the last segment's end: a segment ends where the next
	// starts (they tile the path).
	end       uint64
	rankStart uint64
	mhz       float64
	// odd holds, for a path read from JSON, the segments whose end, start
	// µs or duration is not what the packed form derives (the next
	// segment's start; µs from the rank's start cycle and frequency), by
	// index: none for a report analyze wrote, so a path read back takes
	// 16 bytes a segment too, and whatever a file holds reads back as it
	// was written.
	odd map[int]oddSeg
}

// oddSeg is what the packed form does not derive of a segment read.
type oddSeg struct {
	end                 uint64
	startUs, durationUs float64
}

type packedSeg struct {
	start uint64
	task  uint32
	form  uint32 // index into Segments.forms
}

// segForm is what segments share: most of a path's segments are one of a
// few forms (a core's compute of one task type and stage, its waits, its
// gaps).
type segForm struct {
	core, kind, taskType, stage string
	hasTask                     bool
}

// Len is the number of segments.
func (s *Segments) Len() int { return len(s.packed) }

// At returns segment i (0 <= i < Len()), in time order. Its TaskID points
// into the path: it is not to be written through.
func (s *Segments) At(i int) Segment {
	p := &s.packed[i]
	f := &s.forms[p.form]
	seg := Segment{Core: f.core, Kind: f.kind, TaskType: f.taskType, Stage: f.stage,
		StartCycle: p.start, EndCycle: s.segEnd(i)}
	if f.hasTask {
		seg.TaskID = &p.task
	}
	if o, ok := s.odd[i]; ok {
		seg.StartUs, seg.DurationUs = o.startUs, o.durationUs
	} else {
		seg.StartUs, seg.DurationUs = s.us(seg.StartCycle, seg.EndCycle)
	}
	return seg
}

// us is a segment's start after the rank's start and its duration, in
// µs.
func (s *Segments) us(start, end uint64) (startUs, durationUs float64) {
	if start < s.rankStart {
		startUs = -float64(s.rankStart-start) / s.mhz
	} else {
		startUs = float64(start-s.rankStart) / s.mhz
	}
	return startUs, float64(end-start) / s.mhz
}

func (s *Segments) segEnd(i int) uint64 {
	if s.odd != nil {
		if o, ok := s.odd[i]; ok {
			return o.end
		}
	}
	if i+1 < len(s.packed) {
		return s.packed[i+1].start
	}
	return s.end
}

// cycles is the length of segment i.
func (s *Segments) cycles(i int) uint64 { return s.segEnd(i) - s.packed[i].start }

// Longest returns the indexes of the n longest segments (n <= 0: all),
// the longest first, ties in time order.
func (s *Segments) Longest(n int) []int {
	order := make([]int32, s.Len())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(s.cycles(int(y)), s.cycles(int(x))) })
	if n > 0 && len(order) > n {
		order = order[:n]
	}
	out := make([]int, len(order))
	for i, v := range order {
		out[i] = int(v)
	}
	return out
}

// MarshalJSON writes the segments as a JSON array (null for none held, as
// a nil slice is written).
func (s Segments) MarshalJSON() ([]byte, error) {
	if s.packed == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range s.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		seg := s.At(i)
		j, err := json.Marshal(&seg)
		if err != nil {
			return nil, err
		}
		b.Write(j)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the segments of a path written by MarshalJSON (for
// a report decoded with encoding/json; ReadReport reads them as it
// streams) with the reader ReadReport reads them with.
func (s *Segments) UnmarshalJSON(b []byte) error {
	r := jsonread.NewBytes("critical_path.segments", b)
	r.Columns, r.NonFinite = true, true
	d := &reportReader{r: r, name: "critical_path.segments"}
	*s = Segments{}
	if err := d.segments(s); err != nil {
		return d.place(err)
	}
	return nil
}

// segmentPacker packs the segments of a path as they are read: each is
// held once the next one's start is known (its end is that start unless
// odd).
type segmentPacker struct {
	s       *Segments
	formOf  map[segForm]uint32
	prev    Segment
	prevID  uint32
	hasPrev bool
}

func newSegmentPacker(s *Segments, rankStart uint64, mhz float64) *segmentPacker {
	*s = Segments{packed: []packedSeg{}, rankStart: rankStart, mhz: mhz}
	return &segmentPacker{s: s, formOf: map[segForm]uint32{}}
}

// add takes the next segment in the file's order.
func (p *segmentPacker) add(seg *Segment) {
	if p.hasPrev {
		p.put(seg.StartCycle)
	}
	p.prev, p.hasPrev = *seg, true
	if seg.TaskID != nil {
		p.prevID = *seg.TaskID
	}
}

// done packs the last segment.
func (p *segmentPacker) done() {
	if p.hasPrev {
		p.put(p.prev.EndCycle)
		p.s.end = p.prev.EndCycle
	}
}

// put packs the held segment, which the packed form ends at end.
func (p *segmentPacker) put(end uint64) {
	g := &p.prev
	f := segForm{core: g.Core, kind: g.Kind, taskType: g.TaskType, stage: g.Stage, hasTask: g.TaskID != nil}
	form, ok := p.formOf[f]
	if !ok {
		form = uint32(len(p.s.forms))
		p.formOf[f] = form
		p.s.forms = append(p.s.forms, f)
	}
	ps := packedSeg{start: g.StartCycle, form: form}
	if f.hasTask {
		ps.task = p.prevID
	}
	i := len(p.s.packed)
	p.s.packed = append(p.s.packed, ps)
	su, du := p.s.us(g.StartCycle, g.EndCycle)
	if g.EndCycle != end || math.Float64bits(su) != math.Float64bits(g.StartUs) || math.Float64bits(du) != math.Float64bits(g.DurationUs) {
		if p.s.odd == nil {
			p.s.odd = map[int]oddSeg{}
		}
		p.s.odd[i] = oddSeg{end: g.EndCycle, startUs: g.StartUs, durationUs: g.DurationUs}
	}
}
