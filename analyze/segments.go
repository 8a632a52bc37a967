package analyze

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
)

// Segments are the critical path's segments in time order. A path has up
// to two segments per record it crosses, so they are held packed (16
// bytes a segment: its start, task and an index into the distinct
// combinations of core, kind, task type and stage) and each is built when
// asked for, by At. A path read back from JSON holds them as read.
type Segments struct {
	packed []packedSeg
	forms  []segForm
	// end is the last segment's end: a segment ends where the next
	// starts (they tile the path).
	end       uint64
	rankStart uint64
	mhz       float64
	// read are the segments of a path read from JSON (nil for "null").
	read []Segment
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
func (s *Segments) Len() int {
	if s.read != nil {
		return len(s.read)
	}
	return len(s.packed)
}

// At returns segment i (0 <= i < Len()), in time order. Its TaskID points
// into the path: it is not to be written through.
func (s *Segments) At(i int) Segment {
	if s.read != nil {
		return s.read[i]
	}
	p := &s.packed[i]
	f := &s.forms[p.form]
	seg := Segment{Core: f.core, Kind: f.kind, TaskType: f.taskType, Stage: f.stage,
		StartCycle: p.start, EndCycle: s.segEnd(i)}
	if f.hasTask {
		seg.TaskID = &p.task
	}
	if seg.StartCycle < s.rankStart {
		seg.StartUs = -float64(s.rankStart-seg.StartCycle) / s.mhz
	} else {
		seg.StartUs = float64(seg.StartCycle-s.rankStart) / s.mhz
	}
	seg.DurationUs = float64(seg.Cycles()) / s.mhz
	return seg
}

func (s *Segments) segEnd(i int) uint64 {
	if i+1 < len(s.packed) {
		return s.packed[i+1].start
	}
	return s.end
}

// cycles is the length of segment i.
func (s *Segments) cycles(i int) uint64 {
	if s.read != nil {
		return s.read[i].Cycles()
	}
	return s.segEnd(i) - s.packed[i].start
}

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
	if s.read == nil && s.packed == nil {
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

// UnmarshalJSON reads the segments of a path written by MarshalJSON.
func (s *Segments) UnmarshalJSON(b []byte) error {
	var read []Segment
	if err := json.Unmarshal(b, &read); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return &segmentsError{raw: bytes.Clone(b), err: typ}
		}
		return err
	}
	*s = Segments{read: read}
	return nil
}

// segmentsError is a value of the wrong type among a path's segments:
// its offset is into raw, the segments' text, which ReadReport places in
// the report.
type segmentsError struct {
	raw []byte
	err *json.UnmarshalTypeError
}

func (e *segmentsError) Error() string { return "critical_path.segments: " + e.err.Error() }
