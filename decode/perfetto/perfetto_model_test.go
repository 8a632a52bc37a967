package perfetto

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	pb "github.com/megakernel/cycleabi/decode/perfetto/internal/perfettopb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A pfModel is a Perfetto trace as trace processor would import it,
// rebuilt from types generated from Perfetto's protos (package
// perfettopb), not from the writer's encoder. Building it checks the
// rules a Perfetto trace must follow; the tests then compare it with the
// JSON trace.
type pfModel struct {
	tracks   map[uint64]*pfModelTrack
	slices   []*pfModelSlice // in BEGIN order
	instants []*pfModelSlice
	metadata map[string]string // ChromeEventBundle metadata, name -> json_value
	events   []*pfModelEvent   // in packet order until replayed
	// flowStarts and flowEnds map a flow id to the slice whose BEGIN
	// starts it and the slice whose END terminates it.
	flowStarts, flowEnds map[uint64]*pfModelSlice
}

type pfModelTrack struct {
	desc   *pb.TrackDescriptor
	parent *pfModelTrack
	seq    uint32
	open   []*pfModelSlice
}

type pfModelSlice struct {
	track      *pfModelTrack
	name, cat  string
	start, end uint64
	args       map[string]string
	parent     *pfModelSlice
	packet     int    // index of the BEGIN packet
	seq        uint32 // its packet sequence
	input      int    // the input that wrote it (assignInputs)
}

// pfModelEvent is a TrackEvent as read from its packet, its names and
// args resolved against its sequence's interned data at that point.
type pfModelEvent struct {
	packet             int
	ts                 uint64
	track              *pfModelTrack
	typ                pb.TrackEvent_Type
	slice              *pfModelSlice // BEGIN and INSTANT
	flows, terminating []uint64
}

// sequenceState is a packet sequence's incremental state.
type sequenceState struct {
	valid      bool
	clockID    uint32 // default timestamp clock
	track      uint64 // default track (TrackEventDefaults), 0 for none
	clocks     map[uint32]*seqClock
	names      map[uint64]string
	categories map[uint64]string
	annNames   map[uint64]string
	strs       map[uint64]string // debug annotation string values
}

// parsePerfettoTrace decodes and checks a trace: no field outside the
// transcribed protos, repeated scalars unpacked (as protozero reads
// them), each sequence starting with a packet that clears its
// incremental state, every packet that uses interned data saying so and
// every iid resolving on its sequence (and never redefined), timestamps
// resolved to BOOTTIME as trace processor resolves them (sequence clocks
// from their snapshot, incremental ones never going back), events
// without a track on their sequence's default track, tracks declared
// before use with declared parents; then, with the
// events sorted by timestamp as trace processor sorts them, every END
// closing a slice, slices nesting on every track, and every flow id
// started once by a BEGIN and terminated once, later, by an END.
func parsePerfettoTrace(b []byte) (*pfModel, error) {
	if err := checkUnpacked(b); err != nil {
		return nil, err
	}
	var tr pb.Trace
	if err := proto.Unmarshal(b, &tr); err != nil {
		return nil, fmt.Errorf("not a Trace: %v", err)
	}
	if err := noUnknownFields(tr.ProtoReflect(), "Trace"); err != nil {
		return nil, err
	}
	m := &pfModel{tracks: map[uint64]*pfModelTrack{}, metadata: map[string]string{},
		flowStarts: map[uint64]*pfModelSlice{}, flowEnds: map[uint64]*pfModelSlice{}}
	seqs := map[uint32]*sequenceState{}
	for i, p := range tr.GetPacket() {
		if err := m.packet(i, p, seqs); err != nil {
			return nil, fmt.Errorf("packet %d: %v", i, err)
		}
	}
	if err := m.replay(); err != nil {
		return nil, err
	}
	for _, t := range m.tracks {
		if len(t.open) > 0 {
			return nil, fmt.Errorf("track %q: %d slices never end", t.desc.GetName(), len(t.open))
		}
	}
	for _, sl := range m.slices {
		if p := sl.parent; p != nil && (sl.start < p.start || sl.end > p.end) {
			return nil, fmt.Errorf("slice %q [%d, %d] does not nest in %q [%d, %d] on track %q", sl.name, sl.start, sl.end, p.name, p.start, p.end, sl.track.desc.GetName())
		}
	}
	for id := range m.flowStarts {
		if m.flowEnds[id] == nil {
			return nil, fmt.Errorf("flow %d starts and never ends", id)
		}
	}
	return m, nil
}

// seqClock is a sequence-scoped clock (ids 64 to 127) as trace
// processor's ClockTracker keeps it: its one snapshot against BOOTTIME
// and, when incremental, the latest absolute time, which each timestamp
// on it advances by its value.
type seqClock struct {
	incremental       bool
	snapSeq, snapBoot uint64
	last              uint64
}

// bootTime returns the BOOTTIME timestamp of a packet's timestamp ts on
// sequence s's clock id. An incremental clock must not go back: the
// writer keeps each sequence in time order (trace processor would add a
// negative delta, but a 10-byte one).
func (s *sequenceState) bootTime(id uint32, ts uint64) (uint64, error) {
	switch {
	case id == uint32(pb.BuiltinClock_BUILTIN_CLOCK_BOOTTIME):
		return ts, nil
	case id < 64 || id > 127:
		return 0, fmt.Errorf("timestamp on clock %d, want BOOTTIME or a sequence clock", id)
	}
	c := s.clocks[id]
	if c == nil {
		return 0, fmt.Errorf("timestamp on sequence clock %d before its snapshot", id)
	}
	at := ts
	if c.incremental {
		if ts > math.MaxInt64-c.last {
			return 0, fmt.Errorf("delta %d on clock %d from %d: negative or past int64", ts, id, c.last)
		}
		c.last += ts
		at = c.last
	}
	if at < c.snapSeq {
		return 0, fmt.Errorf("clock %d at %d, before its snapshot at %d", id, at, c.snapSeq)
	}
	return at - c.snapSeq + c.snapBoot, nil
}

func (m *pfModel) packet(i int, p *pb.TracePacket, seqs map[uint32]*sequenceState) error {
	if p.GetChromeEvents() != nil {
		if p.GetTimestampClockId() != uint32(pb.BuiltinClock_BUILTIN_CLOCK_BOOTTIME) {
			return fmt.Errorf("metadata timestamp on clock %d, want BOOTTIME", p.GetTimestampClockId())
		}
		for _, md := range p.GetChromeEvents().GetMetadata() {
			m.metadata[md.GetName()] = md.GetJsonValue()
		}
		return nil
	}
	if p.OptionalTrustedPacketSequenceId == nil {
		return fmt.Errorf("no trusted_packet_sequence_id")
	}
	id := p.GetTrustedPacketSequenceId()
	s := seqs[id]
	if s == nil {
		s = &sequenceState{}
		seqs[id] = s
		if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) == 0 || !p.GetFirstPacketOnSequence() {
			return fmt.Errorf("first packet of sequence %d does not clear the incremental state", id)
		}
	}
	if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) != 0 {
		*s = sequenceState{valid: true, clocks: s.clocks, names: map[uint64]string{}, categories: map[uint64]string{}, annNames: map[uint64]string{}, strs: map[uint64]string{}}
	}
	if d := p.GetTracePacketDefaults(); d != nil {
		s.clockID = d.GetTimestampClockId()
		s.track = d.GetTrackEventDefaults().GetTrackUuid()
	}
	if in := p.GetInternedData(); in != nil {
		if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE|pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) == 0 {
			return fmt.Errorf("interned data on a packet outside the incremental state")
		}
		for _, e := range in.GetEventNames() {
			if err := intern(s.names, e.GetIid(), e.GetName()); err != nil {
				return fmt.Errorf("event name: %v", err)
			}
		}
		for _, e := range in.GetEventCategories() {
			if err := intern(s.categories, e.GetIid(), e.GetName()); err != nil {
				return fmt.Errorf("category: %v", err)
			}
		}
		for _, e := range in.GetDebugAnnotationNames() {
			if err := intern(s.annNames, e.GetIid(), e.GetName()); err != nil {
				return fmt.Errorf("annotation name: %v", err)
			}
		}
		for _, e := range in.GetDebugAnnotationStringValues() {
			if err := intern(s.strs, e.GetIid(), string(e.GetStr())); err != nil {
				return fmt.Errorf("annotation string value: %v", err)
			}
		}
	}
	if cs := p.GetClockSnapshot(); cs != nil {
		// A snapshot of BOOTTIME and one sequence clock; trace processor
		// reads nothing else of its packet but the state above.
		var boot *uint64
		var seqClocks []*pb.ClockSnapshot_Clock
		for _, c := range cs.GetClocks() {
			switch id := c.GetClockId(); {
			case id == uint32(pb.BuiltinClock_BUILTIN_CLOCK_BOOTTIME) && !c.GetIsIncremental() && boot == nil:
				boot = c.Timestamp
			case id >= 64 && id <= 127:
				seqClocks = append(seqClocks, c)
			default:
				return fmt.Errorf("clock snapshot: clock %d", id)
			}
		}
		if boot == nil || len(seqClocks) != 1 || seqClocks[0].GetUnitMultiplierNs() > 1 || p.Timestamp != nil {
			return fmt.Errorf("clock snapshot: want BOOTTIME and one sequence clock in ns, no packet timestamp")
		}
		c := seqClocks[0]
		if s.clocks == nil {
			s.clocks = map[uint32]*seqClock{}
		}
		if s.clocks[c.GetClockId()] != nil {
			return fmt.Errorf("clock %d snapshotted twice on sequence %d", c.GetClockId(), id)
		}
		s.clocks[c.GetClockId()] = &seqClock{incremental: c.GetIsIncremental(), snapSeq: c.GetTimestamp(), snapBoot: *boot, last: c.GetTimestamp()}
		return nil
	}
	if td := p.GetTrackDescriptor(); td != nil {
		if p.Timestamp != nil || p.GetInternedData() != nil {
			return fmt.Errorf("track descriptor with a timestamp or interned data")
		}
		uuid := td.GetUuid()
		if uuid == 0 || m.tracks[uuid] != nil {
			return fmt.Errorf("track uuid %d is 0 or declared twice", uuid)
		}
		t := &pfModelTrack{desc: td, seq: id}
		if td.ParentUuid != nil {
			if t.parent = m.tracks[td.GetParentUuid()]; t.parent == nil {
				return fmt.Errorf("track %q: parent %d not declared before it", td.GetName(), td.GetParentUuid())
			}
		}
		m.tracks[uuid] = t
		return nil
	}
	ev := p.GetTrackEvent()
	if ev == nil {
		return nil
	}
	if !s.valid || p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE) == 0 {
		return fmt.Errorf("track event without SEQ_NEEDS_INCREMENTAL_STATE")
	}
	clock := s.clockID
	if p.TimestampClockId != nil {
		clock = p.GetTimestampClockId()
	}
	if p.Timestamp == nil {
		return fmt.Errorf("event without a timestamp")
	}
	ts, err := s.bootTime(clock, p.GetTimestamp())
	if err != nil {
		return err
	}
	if ts > math.MaxInt64 {
		return fmt.Errorf("timestamp %d past int64", ts)
	}
	uuid := s.track
	if ev.TrackUuid != nil {
		uuid = ev.GetTrackUuid()
	}
	t := m.tracks[uuid]
	if t == nil {
		return fmt.Errorf("event on undeclared track %d", uuid)
	}
	e := &pfModelEvent{packet: i, ts: ts, track: t, typ: ev.GetType(), flows: ev.GetFlowIds(), terminating: ev.GetTerminatingFlowIds()}
	switch ev.GetType() {
	case pb.TrackEvent_TYPE_SLICE_BEGIN, pb.TrackEvent_TYPE_INSTANT:
		sl := &pfModelSlice{track: t, start: ts, end: ts, args: map[string]string{}, packet: i, seq: id}
		var err error
		if sl.name, err = eventName(ev, s); err != nil {
			return err
		}
		if len(ev.GetCategoryIids()) != 1 || len(ev.GetCategories()) != 0 {
			return fmt.Errorf("want one interned category")
		}
		if sl.cat = s.categories[ev.GetCategoryIids()[0]]; sl.cat == "" {
			return fmt.Errorf("category iid %d does not resolve", ev.GetCategoryIids()[0])
		}
		for _, a := range ev.GetDebugAnnotations() {
			name, ok := s.annNames[a.GetNameIid()]
			if !ok || a.NameField == nil {
				return fmt.Errorf("annotation name iid %d does not resolve", a.GetNameIid())
			}
			if _, dup := sl.args[name]; dup {
				return fmt.Errorf("annotation %q twice", name)
			}
			v, err := annotationValue(a, s)
			if err != nil {
				return fmt.Errorf("annotation %q: %v", name, err)
			}
			sl.args[name] = v
		}
		if ev.GetType() == pb.TrackEvent_TYPE_INSTANT && len(e.flows)+len(e.terminating) > 0 {
			return fmt.Errorf("flows on an instant")
		}
		if ev.GetType() == pb.TrackEvent_TYPE_SLICE_BEGIN && len(e.terminating) > 0 {
			return fmt.Errorf("terminating flows on a BEGIN")
		}
		e.slice = sl
	case pb.TrackEvent_TYPE_SLICE_END:
		if ev.NameField != nil || len(ev.GetDebugAnnotations()) > 0 || len(ev.GetCategoryIids()) > 0 || len(e.flows) > 0 {
			return fmt.Errorf("END with a name, category, args or starting flows")
		}
	default:
		return fmt.Errorf("event type %v", ev.GetType())
	}
	m.events = append(m.events, e)
	return nil
}

// replay sorts the events by timestamp, ties in packet order, as trace
// processor's sorter does, and builds the slices: a BEGIN opens a slice
// on its track, an END closes the innermost one, an instant nests under
// the open ones; flow ids start at a BEGIN and end at an END that the
// sort puts after it.
func (m *pfModel) replay() error {
	slices.SortStableFunc(m.events, func(a, b *pfModelEvent) int { return cmp.Compare(a.ts, b.ts) })
	for _, e := range m.events {
		t := e.track
		switch e.typ {
		case pb.TrackEvent_TYPE_INSTANT:
			m.instants = append(m.instants, e.slice)
		case pb.TrackEvent_TYPE_SLICE_BEGIN:
			sl := e.slice
			if n := len(t.open); n > 0 {
				sl.parent = t.open[n-1]
			}
			for _, f := range e.flows {
				if m.flowStarts[f] != nil {
					return fmt.Errorf("flow %d started twice", f)
				}
				m.flowStarts[f] = sl
			}
			t.open = append(t.open, sl)
			m.slices = append(m.slices, sl)
		case pb.TrackEvent_TYPE_SLICE_END:
			n := len(t.open)
			if n == 0 {
				return fmt.Errorf("packet %d: END on track %q with no open slice", e.packet, t.desc.GetName())
			}
			sl := t.open[n-1]
			t.open = t.open[:n-1]
			sl.end = e.ts
			for _, f := range e.terminating {
				if m.flowStarts[f] == nil || m.flowEnds[f] != nil {
					return fmt.Errorf("flow %d terminated before it starts, or twice", f)
				}
				m.flowEnds[f] = sl
			}
		}
	}
	// Slices in BEGIN packet order, as the writer wrote the records.
	slices.SortFunc(m.slices, func(a, b *pfModelSlice) int { return cmp.Compare(a.packet, b.packet) })
	return nil
}

func intern(table map[uint64]string, iid uint64, name string) error {
	if iid == 0 {
		return fmt.Errorf("iid 0 for %q", name)
	}
	if prev, ok := table[iid]; ok && prev != name {
		return fmt.Errorf("iid %d redefined from %q to %q", iid, prev, name)
	}
	table[iid] = name
	return nil
}

func eventName(ev *pb.TrackEvent, s *sequenceState) (string, error) {
	if _, inline := ev.NameField.(*pb.TrackEvent_Name); inline {
		return ev.GetName(), nil
	}
	name, ok := s.names[ev.GetNameIid()]
	if !ok {
		return "", fmt.Errorf("event name iid %d does not resolve", ev.GetNameIid())
	}
	return name, nil
}

// annotationValue renders a value the way the JSON writer does, an
// interned string resolved against the sequence's state.
func annotationValue(a *pb.DebugAnnotation, s *sequenceState) (string, error) {
	switch v := a.Value.(type) {
	case *pb.DebugAnnotation_UintValue:
		return strconv.FormatUint(v.UintValue, 10), nil
	case *pb.DebugAnnotation_IntValue:
		return strconv.FormatInt(v.IntValue, 10), nil
	case *pb.DebugAnnotation_StringValue:
		return v.StringValue, nil
	case *pb.DebugAnnotation_StringValueIid:
		str, ok := s.strs[v.StringValueIid]
		if !ok {
			return "", fmt.Errorf("string value iid %d does not resolve", v.StringValueIid)
		}
		return str, nil
	case *pb.DebugAnnotation_BoolValue:
		return strconv.FormatBool(v.BoolValue), nil
	case *pb.DebugAnnotation_DoubleValue:
		return strconv.FormatFloat(v.DoubleValue, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("unexpected %T", a.Value)
}

// noUnknownFields fails on any field the transcribed protos do not
// declare: a wrong field number in the writer shows up here.
func noUnknownFields(m protoreflect.Message, path string) error {
	if u := m.GetUnknown(); len(u) > 0 {
		n, _, _ := protowire.ConsumeTag(u)
		return fmt.Errorf("%s: unknown field %d", path, n)
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		p := path + "." + string(fd.Name())
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				if err = noUnknownFields(v.List().Get(i).Message(), p); err != nil {
					return false
				}
			}
		default:
			err = noUnknownFields(v.Message(), p)
		}
		return err == nil
	})
	return err
}

// checkUnpacked walks Trace.packet.track_event on the wire: proto2
// repeated scalars must be unpacked (category_iids as varints, flow ids
// as fixed64s), which protobuf-go would accept either way but
// protozero, Perfetto's decoder, reads one value per tag.
func checkUnpacked(b []byte) error {
	return walkFields(b, func(n protowire.Number, typ protowire.Type, v []byte) error {
		if n != 1 || typ != protowire.BytesType {
			return fmt.Errorf("Trace field %d type %d", n, typ)
		}
		return walkFields(v, func(n protowire.Number, typ protowire.Type, v []byte) error {
			if n != 11 {
				return nil
			}
			return walkFields(v, func(n protowire.Number, typ protowire.Type, _ []byte) error {
				want := map[protowire.Number]protowire.Type{3: protowire.VarintType, 47: protowire.Fixed64Type, 48: protowire.Fixed64Type}
				if w, ok := want[n]; ok && typ != w {
					return fmt.Errorf("TrackEvent field %d has wire type %d, want %d (unpacked)", n, typ, w)
				}
				return nil
			})
		})
	})
}

func walkFields(b []byte, f func(protowire.Number, protowire.Type, []byte) error) error {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return protowire.ParseError(l)
		}
		m := protowire.ConsumeFieldValue(n, typ, b[l:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		var v []byte
		if typ == protowire.BytesType {
			v, _ = protowire.ConsumeBytes(b[l:])
		}
		if err := f(n, typ, v); err != nil {
			return err
		}
		b = b[l+m:]
	}
	return nil
}

// core returns the core track a slice is on (an overlap track's parent).
func (s *pfModelSlice) core() *pfModelTrack {
	if strings.Contains(s.track.desc.GetName(), " overlap ") {
		return s.track.parent
	}
	return s.track
}
