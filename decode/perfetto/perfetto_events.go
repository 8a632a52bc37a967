package perfetto

// The Perfetto writer's packets: timestamps, interned names, one record's
// slice and its annotations, and the tracks that keep slices nested
// (perfetto.go has the format, its tracks and the sequence's first packets).

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"google.golang.org/protobuf/encoding/protowire"
)

// timestamp returns what a packet of s at ts writes as its timestamp,
// and makes ts the sequence's latest. A core's packets come in time
// order, so its deltas are never negative.
func (s *pfSeq) timestamp(ts uint64) uint64 {
	if !s.incremental {
		return ts
	}
	d := ts - s.last
	s.last = ts
	return d
}

// appendEventPacket appends a packet of s at ts holding the TrackEvent in
// r.event and the interned data in r.interned.
func (r *perfettoRenderer) appendEventPacket(b []byte, s *pfSeq, ts uint64) []byte {
	p := appendVarintField(r.packet[:0], fPacketTimestamp, s.timestamp(ts))
	p = appendVarintField(p, fPacketSequenceID, s.id)
	p = appendVarintField(p, fPacketSequenceFlags, seqNeedsIncrementalState)
	if len(r.interned) > 0 {
		p = appendBytesField(p, fPacketInternedData, r.interned)
	}
	p = appendBytesField(p, fPacketTrackEvent, r.event)
	r.packet = p
	return appendBytesField(b, fTracePacket, p)
}

// internName returns the input's interned id of the name in r.name; 0
// when the table is full (the name is then written in full).
func (r *perfettoRenderer) internName() uint64 {
	if iid, ok := r.names[string(r.name)]; ok {
		return iid
	}
	if len(r.names) >= maxInternedNames {
		return 0
	}
	iid := uint64(len(r.names) + 1)
	r.names[string(r.name)] = iid
	r.nameList = append(r.nameList, string(r.name))
	return iid
}

// useName returns iid, an event name's id, after adding its definition
// to r.interned if sequence s has not defined it yet; 0 stays 0.
func (r *perfettoRenderer) useName(s *pfSeq, iid uint64) uint64 {
	if iid != 0 && s.define(kindName, iid) {
		e := appendVarintField(r.entry[:0], fInternedIID, iid)
		e = appendStringField(e, fInternedName, r.nameList[iid-1])
		r.entry = e
		r.interned = appendBytesField(r.interned, fInternedEventNames, e)
	}
	return iid
}

// useStage is useName for a task_stage value.
func (r *perfettoRenderer) useStage(s *pfSeq, iid uint64) uint64 {
	if iid != 0 && s.define(kindStage, iid) {
		e := appendVarintField(r.entry[:0], fInternedStringIID, iid)
		e = appendStringField(e, fInternedStringStr, r.stageList[iid-1])
		r.entry = e
		r.interned = appendBytesField(r.interned, fInternedAnnotationStrs, e)
	}
	return iid
}

// useAnnotation is useName for a debug annotation name.
func (r *perfettoRenderer) useAnnotation(s *pfSeq, iid uint64) uint64 {
	if s.define(kindAnnotation, iid) {
		e := appendVarintField(r.entry[:0], fInternedIID, iid)
		e = appendStringField(e, fInternedName, r.annList[iid-1])
		r.entry = e
		r.interned = appendBytesField(r.interned, fInternedAnnotationNames, e)
	}
	return iid
}

// appendEventName appends the name in r.name as the name of an event of
// sequence s.
func (r *perfettoRenderer) appendEventName(ev []byte, s *pfSeq) []byte {
	if iid := r.useName(s, r.internName()); iid != 0 {
		return appendVarintField(ev, fEventNameIID, iid)
	}
	return appendBytesField(ev, fEventName, r.name)
}

// openEvent starts a packet of sequence s at ts, with the interned data
// in r.interned, and in it a TrackEvent of type typ on track (left out
// when it is the sequence's default); closeEvent ends both.
func (r *perfettoRenderer) openEvent(b []byte, s *pfSeq, ts uint64, typ byte, track uint64) (_ []byte, pkt, ev int) {
	b, pkt = openField(b, tagTracePacket)
	b = append(b, tagPacketTimestamp)
	b = appendVarint(b, s.timestamp(ts))
	b = append(b, tagPacketSequenceID)
	b = appendVarint(b, s.id)
	b = append(b, tagPacketSequenceFlags, seqNeedsIncrementalState)
	if len(r.interned) > 0 {
		b = appendBytesField(b, fPacketInternedData, r.interned)
	}
	b, ev = openField(b, tagPacketTrackEvent)
	b = append(b, tagEventType, typ)
	if track != s.track {
		b = append(b, tagEventTrackUUID)
		b = appendVarint(b, track)
	}
	return b, pkt, ev
}

func closeEvent(b []byte, pkt, ev int) []byte {
	return closeField(closeField(b, ev), pkt)
}

// annotationName returns the input's interned id of a debug annotation
// name. The names come from the program (argument names, metadata keys),
// so the table stays small.
func (r *perfettoRenderer) annotationName(name string) uint64 {
	if iid, ok := r.annNames[name]; ok {
		return iid
	}
	iid := uint64(len(r.annNames) + 1)
	r.annNames[name] = iid
	r.annList = append(r.annList, name)
	return iid
}

// maxDescCache bounds the desc_ids whose interned text is kept: a capture
// of random desc_ids must not grow memory with its size.
const maxDescCache = 4096

func (r *perfettoRenderer) desc(id uint32) *pfDesc {
	if d, ok := r.descs[id]; ok {
		return d
	}
	d := &pfDesc{name: validUTF8(r.in.Config.Names.StageName(id)), prefixed: abi.TaskStagePrefixed(id)}
	if ns, index := abi.LookupDesc(id); ns.Arg() != "" {
		d.argIID, d.argValue = r.annotationName(ns.Arg()), uint64(index)
	}
	if len(r.descs) < maxDescCache {
		r.descs[id] = d
	}
	return d
}

// record writes the ENDs due before the record starts, then its BEGIN.
func (r *perfettoRenderer) Record(b []byte, rec *decode.Record) ([]byte, error) {
	start, err := r.at(rec.StartCycle, rec)
	if err != nil {
		return b, err
	}
	end, err := r.at(rec.EndCycle, rec)
	if err != nil {
		return b, err
	}
	// The record nests in the first lane of its core whose innermost
	// open slice (after closing those that end by its start) contains
	// it. An END is written when its track next needs it, or at the end:
	// trace processor sorts packets by timestamp on import, and within
	// a track the ENDs still come before the next BEGIN.
	c := &r.cores[rec.Active]
	b = r.closeUntil(b, c, start)
	var lane *pfTrack
	for _, t := range c.lanes {
		if len(t.open) == 0 || end <= t.top() {
			lane = t
			break
		}
	}
	if lane == nil {
		if lane, b, err = r.newLane(b, c, rec); err != nil {
			return b, err
		}
	}

	seq := &c.seq
	if c.info != nil {
		// The core's first record: its sequence starts, and its
		// constant args go once, on an instant just before it (on the
		// core's track, the sequence's default).
		b = r.appendFirstPacket(b, seq)
		r.interned = r.interned[:0]
		ev := appendVarintField(r.event[:0], fEventType, eventTypeInstant)
		ev = appendVarintField(ev, fEventCategoryIIDs, 1)
		r.name = append(r.name[:0], coreInfoName...)
		ev = r.appendEventName(ev, seq)
		r.event = append(ev, c.info...)
		b = r.appendEventPacket(b, seq, start)
		c.info = nil
	}

	var out, in []uint64
	if r.flows != nil {
		out, in = r.flows(rec)
	}
	// Everything that may intern comes first: interned data goes in the
	// packet before the event.
	r.interned = r.interned[:0]
	d := r.desc(rec.DescID)
	stage, stageIndex := "", r.stageIndex(rec.TaskID)
	hasStage := stageIndex >= 0
	if hasStage {
		stage = r.stageNames[stageIndex]
	}
	nameIID := r.useName(seq, r.eventNameIID(rec, d, stage, hasStage))
	var stageIID uint64
	if hasStage {
		stageIID = r.useStage(seq, r.stageIID(stageIndex, stage))
	}
	if d.argIID != 0 {
		r.useAnnotation(seq, d.argIID)
	}
	r.useStage(seq, r.dirIID)

	b, pkt, ev := r.openEvent(b, seq, start, eventTypeSliceBegin, lane.uuid)
	b = append(b, tagEventCategoryIIDs, 1)
	if nameIID != 0 {
		b = append(b, tagEventNameIID)
		b = appendVarint(b, nameIID)
	} else {
		b = appendBytesField(b, fEventName, r.name)
	}
	b = appendUintAnnotation(b, annTaskID, uint64(rec.TaskID))
	b = appendUintAnnotation(b, annDescID, uint64(rec.DescID))
	b = appendUintAnnotation(b, annStageTaskIndex, uint64(rec.StageTaskIndex))
	b = appendUintAnnotation(b, annTaskNumber, rec.TaskNumber())
	b = appendUintAnnotation(b, annStartCycle, rec.StartCycle)
	b = appendUintAnnotation(b, annEndCycle, rec.EndCycle)
	switch {
	case stageIID != 0:
		b = appendStringIIDAnnotation(b, annTaskStage, stageIID)
	case hasStage:
		b = appendStringAnnotation(b, annTaskStage, stage)
	}
	if d.argIID != 0 {
		b = appendUintAnnotation(b, d.argIID, d.argValue)
	}
	if rec.OwnerID != abi.InvalidOwnerID {
		b = appendUintAnnotation(b, annOwnerID, uint64(rec.OwnerID))
	}
	if len(extraArgFields) > 0 {
		r.raw = rec.ProfileRecord.Append(r.raw[:0])
		for i, f := range extraArgFields {
			b = appendUintAnnotation(b, annExtra+uint64(i), f.Value(r.raw))
		}
	}
	b = append(b, r.invArgs...)
	for _, id := range out {
		b = appendFixed64Field(b, fEventFlowIDs, id)
	}
	b = closeEvent(b, pkt, ev)

	lane.open = append(lane.open, openSlice{end: end, in: in})
	return b, nil
}

// stageIID returns the input's interned id of a task_stage value, the
// stage of index i in tasks.stages; 0 when the table is full (the value
// is then written in full).
func (r *perfettoRenderer) stageIID(i int, stage string) uint64 {
	if iid := r.stageByIndex[i]; iid != 0 {
		return iid
	}
	iid := r.stringIID(stage)
	r.stageByIndex[i] = iid
	return iid
}

// stringIID returns the input's interned id of a string annotation value
// (a task_stage, the invocation's direction); 0 when the table is full.
func (r *perfettoRenderer) stringIID(str string) uint64 {
	iid, ok := r.stageIIDs[str]
	if !ok {
		if len(r.stageIIDs) >= maxInternedNames {
			return 0
		}
		iid = uint64(len(r.stageIIDs) + 1)
		r.stageIIDs[str] = iid
		r.stageList = append(r.stageList, str)
	}
	return iid
}

// eventNameIID returns the interned id of the record's event name, or 0
// with the name in r.name when it is written in full. Without detailed
// names, a name depends on the desc_id alone, or with a task-stage
// prefix on the task's stage too: those ids are kept with the desc, so
// that records do not build their name, nor hash more than the stage.
func (r *perfettoRenderer) eventNameIID(rec *decode.Record, d *pfDesc, stage string, hasStage bool) uint64 {
	if r.detailed {
		r.name = r.appendName(r.name[:0], rec, d, stage, hasStage)
		return r.internName()
	}
	if !hasStage || !d.prefixed {
		if d.nameIID == 0 {
			r.name = r.appendName(r.name[:0], rec, d, stage, hasStage)
			d.nameIID = r.internName()
		}
		return d.nameIID
	}
	if iid, ok := d.byStage[stage]; ok {
		return iid
	}
	r.name = r.appendName(r.name[:0], rec, d, stage, hasStage)
	iid := r.internName()
	if iid != 0 {
		if d.byStage == nil {
			d.byStage = map[string]uint64{}
		}
		d.byStage[stage] = iid
	}
	return iid
}

// appendName appends the record's event name, the JSON event's name
// unescaped: "<owner label><owner>_" when detailed, "<task stage>_" for
// a prefixed stage, the stage name, "_task<N>" when detailed.
func (r *perfettoRenderer) appendName(dst []byte, rec *decode.Record, d *pfDesc, stage string, hasStage bool) []byte {
	if r.detailed && rec.OwnerID != abi.InvalidOwnerID {
		dst = append(dst, r.owner...)
		dst = strconv.AppendUint(dst, uint64(rec.OwnerID), 10)
		dst = append(dst, '_')
	}
	if hasStage && d.prefixed {
		dst = appendValidUTF8(dst, stage)
		dst = append(dst, '_')
	}
	dst = append(dst, d.name...)
	if r.detailed {
		dst = append(dst, "_task"...)
		dst = strconv.AppendUint(dst, rec.TaskNumber(), 10)
	}
	return dst
}

// newLane makes an overlap track for a record that nests in none of its
// core's tracks, and writes its descriptor.
func (r *perfettoRenderer) newLane(b []byte, c *pfCore, rec *decode.Record) (*pfTrack, []byte, error) {
	if len(c.lanes) >= maxLanes {
		return nil, b, unrepresentable(r.in.Decoded, rec, fmt.Sprintf("it overlaps %d earlier records of its core without nesting in them: the perfetto format shows at most %d such at once (use --format json)",
			len(c.lanes), maxLanes))
	}
	t := &pfTrack{uuid: r.nextLane}
	r.nextLane++
	n := len(c.lanes)
	c.lanes = append(c.lanes, t)
	td := appendVarintField(nil, fTrackUUID, t.uuid)
	td = appendVarintField(td, fTrackParentUUID, c.lanes[0].uuid)
	td = appendStringField(td, fTrackName, c.name+" overlap "+strconv.Itoa(n))
	td = appendInt32Field(td, fTrackSiblingOrderRank, int32(n))
	return t, r.appendDescriptor(b, td), nil
}

// end writes the ENDs of every slice still open, then the input's
// metadata instant.
func (r *perfettoRenderer) End(b []byte) ([]byte, error) {
	for i := range r.cores {
		b = r.closeUntil(b, &r.cores[i], math.MaxUint64)
	}
	return r.appendMetaInstant(b), nil
}

func (t *pfTrack) top() uint64 { return t.open[len(t.open)-1].end }

// closeUntil writes the ENDs of core c's open slices that end by limit,
// in time order across its tracks: the core's sequence stays in time
// order (its timestamps are deltas). On each track the innermost slice
// ends first, so only the tracks' innermost are candidates.
func (r *perfettoRenderer) closeUntil(b []byte, c *pfCore, limit uint64) []byte {
	if len(c.lanes) == 1 {
		t := c.lanes[0]
		for len(t.open) > 0 && t.top() <= limit {
			b = r.closeTop(b, c, t)
		}
		return b
	}
	for {
		var first *pfTrack
		for _, t := range c.lanes {
			if len(t.open) > 0 && t.top() <= limit && (first == nil || t.top() < first.top()) {
				first = t
			}
		}
		if first == nil {
			return b
		}
		b = r.closeTop(b, c, first)
	}
}

// closeTop writes the END of t's innermost open slice (t is a track of c).
func (r *perfettoRenderer) closeTop(b []byte, c *pfCore, t *pfTrack) []byte {
	s := t.open[len(t.open)-1]
	t.open = t.open[:len(t.open)-1]
	r.interned = r.interned[:0]
	b, pkt, ev := r.openEvent(b, &c.seq, s.end, eventTypeSliceEnd, t.uuid)
	for _, id := range s.in {
		b = appendFixed64Field(b, fEventTerminatingFlowIDs, id)
	}
	return closeEvent(b, pkt, ev)
}

// Debug annotations: a DebugAnnotation message with an interned name.

func appendUintAnnotation(b []byte, nameIID, v uint64) []byte {
	if nameIID < 0x80 {
		// The common case, one byte per tag, iid and length.
		n := 3 + protowire.SizeVarint(v)
		b = append(b, tagEventDebugAnnotations, byte(n), tagAnnotationNameIID, byte(nameIID), tagAnnotationUint)
		return appendVarint(b, v)
	}
	b = protowire.AppendTag(b, fEventDebugAnnotations, protowire.BytesType)
	n := 1 + protowire.SizeVarint(nameIID) + 1 + protowire.SizeVarint(v)
	b = protowire.AppendVarint(b, uint64(n))
	b = appendVarintField(b, fAnnotationNameIID, nameIID)
	return appendVarintField(b, fAnnotationUint, v)
}

// appendStringIIDAnnotation appends a string annotation whose value is
// interned (string_value_iid).
func appendStringIIDAnnotation(b []byte, nameIID, valueIID uint64) []byte {
	n := protowire.SizeTag(fAnnotationNameIID) + protowire.SizeVarint(nameIID) +
		protowire.SizeTag(fAnnotationStringIID) + protowire.SizeVarint(valueIID)
	b = protowire.AppendTag(b, fEventDebugAnnotations, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	b = appendVarintField(b, fAnnotationNameIID, nameIID)
	return appendVarintField(b, fAnnotationStringIID, valueIID)
}

func appendIntAnnotation(b []byte, nameIID uint64, v int64) []byte {
	var a []byte
	a = appendVarintField(a, fAnnotationNameIID, nameIID)
	a = appendVarintField(a, fAnnotationInt, uint64(v))
	return appendBytesField(b, fEventDebugAnnotations, a)
}

func appendBoolAnnotation(b []byte, nameIID uint64, v bool) []byte {
	var a []byte
	a = appendVarintField(a, fAnnotationNameIID, nameIID)
	x := uint64(0)
	if v {
		x = 1
	}
	a = appendVarintField(a, fAnnotationBool, x)
	return appendBytesField(b, fEventDebugAnnotations, a)
}

func appendDoubleAnnotation(b []byte, nameIID uint64, v float64) []byte {
	var a []byte
	a = appendVarintField(a, fAnnotationNameIID, nameIID)
	a = appendDoubleField(a, fAnnotationDouble, v)
	return appendBytesField(b, fEventDebugAnnotations, a)
}

func appendStringAnnotation(b []byte, nameIID uint64, v string) []byte {
	if nameIID < 0x80 && len(v) < 0x80-5 {
		// The common case, one byte per tag, iid and length.
		b = append(b, tagEventDebugAnnotations, byte(4+len(v)), tagAnnotationNameIID, byte(nameIID), tagAnnotationString, byte(len(v)))
		return append(b, v...)
	}
	b = protowire.AppendTag(b, fEventDebugAnnotations, protowire.BytesType)
	n := 1 + protowire.SizeVarint(nameIID) + 1 + protowire.SizeBytes(len(v))
	b = protowire.AppendVarint(b, uint64(n))
	b = appendVarintField(b, fAnnotationNameIID, nameIID)
	return appendStringField(b, fAnnotationString, v)
}

// validUTF8 returns s with each byte that is not valid UTF-8 replaced by
// U+FFFD, as the JSON writer (and encoding/json) writes it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendValidUTF8(nil, s))
}

func appendValidUTF8(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// stageIndex returns the index in the names file's distinct task stage
// names of task id's stage; -1 when it has none.
func (r *perfettoRenderer) stageIndex(id uint32) int {
	if r.tasks == nil {
		return -1
	}
	return r.tasks.Index(id)
}
