package perfetto

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The Perfetto trace format's field numbers and enum values that
// Write writes. They are the contract with Perfetto: each is as
// declared in the Perfetto repository's protos (paths below, under
// protos/perfetto/), which are proto2, so repeated scalars are written
// unpacked, one tag per value, as protozero reads them.
// decode/perfetto/internal/perfettopb holds the same declarations in a .proto the
// tests decode the output with.
const (
	// trace/trace.proto, message Trace.
	fTracePacket protowire.Number = 1 // repeated TracePacket packet

	// trace/trace_packet.proto, message TracePacket.
	fPacketTimestamp           protowire.Number = 8  // uint64 timestamp
	fPacketTimestampClockID    protowire.Number = 58 // uint32 timestamp_clock_id
	fPacketSequenceID          protowire.Number = 10 // uint32 trusted_packet_sequence_id
	fPacketTrackEvent          protowire.Number = 11 // TrackEvent track_event
	fPacketInternedData        protowire.Number = 12 // InternedData interned_data
	fPacketSequenceFlags       protowire.Number = 13 // uint32 sequence_flags
	fPacketChromeEvents        protowire.Number = 5  // ChromeEventBundle chrome_events
	fPacketClockSnapshot       protowire.Number = 6  // ClockSnapshot clock_snapshot
	fPacketDefaults            protowire.Number = 59 // TracePacketDefaults trace_packet_defaults
	fPacketTrackDescriptor     protowire.Number = 60 // TrackDescriptor track_descriptor
	fPacketFirstPacketOnSeq    protowire.Number = 87 // bool first_packet_on_sequence
	seqIncrementalStateCleared                  = 1  // SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrementalState                    = 2  // SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE

	// trace/trace_packet_defaults.proto, message TracePacketDefaults.
	fDefaultsTimestampClockID protowire.Number = 58 // uint32 timestamp_clock_id
	fDefaultsTrackEvent       protowire.Number = 11 // TrackEventDefaults track_event_defaults
	// track_event/track_event.proto, message TrackEventDefaults.
	fTrackEventDefaultsTrackUUID protowire.Number = 11 // uint64 track_uuid
	// trace/clock_snapshot.proto, messages ClockSnapshot and its Clock.
	fClockSnapshotClocks   protowire.Number = 1  // repeated Clock clocks
	fClockID               protowire.Number = 1  // Clock: uint32 clock_id
	fClockTimestamp        protowire.Number = 2  // uint64 timestamp
	fClockIsIncremental    protowire.Number = 3  // bool is_incremental
	clockSequenceIncrement                  = 64 // the first sequence-scoped clock id ([64, 127])
	// common/builtin_clock.proto, enum BuiltinClock.
	clockBoottime = 6 // BUILTIN_CLOCK_BOOTTIME

	// trace/track_event/track_event.proto, message TrackEvent.
	fEventCategoryIIDs       protowire.Number = 3  // repeated uint64 category_iids
	fEventDebugAnnotations   protowire.Number = 4  // repeated DebugAnnotation debug_annotations
	fEventType               protowire.Number = 9  // Type type
	fEventNameIID            protowire.Number = 10 // uint64 name_iid (oneof name_field)
	fEventTrackUUID          protowire.Number = 11 // uint64 track_uuid
	fEventName               protowire.Number = 23 // string name (oneof name_field)
	fEventFlowIDs            protowire.Number = 47 // repeated fixed64 flow_ids
	fEventTerminatingFlowIDs protowire.Number = 48 // repeated fixed64 terminating_flow_ids
	eventTypeSliceBegin                       = 1  // Type.TYPE_SLICE_BEGIN
	eventTypeSliceEnd                         = 2  // Type.TYPE_SLICE_END
	eventTypeInstant                          = 3  // Type.TYPE_INSTANT
	fInternedIID             protowire.Number = 1  // EventCategory, EventName, DebugAnnotationName: uint64 iid
	fInternedName            protowire.Number = 2  // EventCategory, EventName, DebugAnnotationName: string name
	fAnnotationNameIID       protowire.Number = 1  // debug_annotation.proto, DebugAnnotation: uint64 name_iid
	fAnnotationBool          protowire.Number = 2  // bool bool_value
	fAnnotationUint          protowire.Number = 3  // uint64 uint_value
	fAnnotationInt           protowire.Number = 4  // int64 int_value
	fAnnotationDouble        protowire.Number = 5  // double double_value
	fAnnotationString        protowire.Number = 6  // string string_value
	fAnnotationStringIID     protowire.Number = 17 // uint64 string_value_iid (InternedData.debug_annotation_string_values)
	fInternedEventCategories protowire.Number = 1  // interned_data/interned_data.proto, InternedData: repeated EventCategory event_categories
	fInternedEventNames      protowire.Number = 2  // repeated EventName event_names
	fInternedAnnotationNames protowire.Number = 3  // repeated DebugAnnotationName debug_annotation_names
	fInternedAnnotationStrs  protowire.Number = 29 // repeated InternedString debug_annotation_string_values
	fInternedStringIID       protowire.Number = 1  // profiling/profile_common.proto, InternedString: uint64 iid
	fInternedStringStr       protowire.Number = 2  // bytes str
	fTrackUUID               protowire.Number = 1  // track_event/track_descriptor.proto, TrackDescriptor: uint64 uuid
	fTrackName               protowire.Number = 2  // string name (oneof static_or_dynamic_name)
	fTrackProcess            protowire.Number = 3  // ProcessDescriptor process
	fTrackParentUUID         protowire.Number = 5  // uint64 parent_uuid
	fTrackChildOrdering      protowire.Number = 11 // ChildTracksOrdering child_ordering
	fTrackSiblingOrderRank   protowire.Number = 12 // int32 sibling_order_rank
	childOrderingExplicit                     = 3  // ChildTracksOrdering.EXPLICIT
	fProcessPID              protowire.Number = 1  // track_event/process_descriptor.proto, ProcessDescriptor: int32 pid
	fProcessName             protowire.Number = 6  // string process_name
	fBundleMetadata          protowire.Number = 2  // trace/chrome/chrome_trace_event.proto, ChromeEventBundle: repeated ChromeMetadata metadata
	fChromeMetadataName      protowire.Number = 1  // ChromeMetadata: string name
	fChromeMetadataJSON      protowire.Number = 5  // string json_value (oneof value)
)

// One-byte tags of the fields written per event (field numbers below 16).
const (
	tagTracePacket           = byte(fTracePacket)<<3 | byte(protowire.BytesType)
	tagPacketTimestamp       = byte(fPacketTimestamp)<<3 | byte(protowire.VarintType)
	tagPacketSequenceID      = byte(fPacketSequenceID)<<3 | byte(protowire.VarintType)
	tagPacketSequenceFlags   = byte(fPacketSequenceFlags)<<3 | byte(protowire.VarintType)
	tagPacketTrackEvent      = byte(fPacketTrackEvent)<<3 | byte(protowire.BytesType)
	tagEventType             = byte(fEventType)<<3 | byte(protowire.VarintType)
	tagEventTrackUUID        = byte(fEventTrackUUID)<<3 | byte(protowire.VarintType)
	tagEventCategoryIIDs     = byte(fEventCategoryIIDs)<<3 | byte(protowire.VarintType)
	tagEventNameIID          = byte(fEventNameIID)<<3 | byte(protowire.VarintType)
	tagEventDebugAnnotations = byte(fEventDebugAnnotations)<<3 | byte(protowire.BytesType)
	tagAnnotationNameIID     = byte(fAnnotationNameIID)<<3 | byte(protowire.VarintType)
	tagAnnotationUint        = byte(fAnnotationUint)<<3 | byte(protowire.VarintType)
	tagAnnotationString      = byte(fAnnotationString)<<3 | byte(protowire.BytesType)
)

// appendVarint appends v as a protobuf varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// openField appends a length-delimited field's one-byte tag and a
// one-byte length to fill in; closeField fills it in once the field's
// contents follow, moving them when the length needs more bytes.
func openField(b []byte, tag byte) ([]byte, int) {
	b = append(b, tag, 0)
	return b, len(b)
}

func closeField(b []byte, at int) []byte {
	n := len(b) - at
	if n < 0x80 {
		b[at-1] = byte(n)
		return b
	}
	k := protowire.SizeVarint(uint64(n))
	for range k - 1 {
		b = append(b, 0)
	}
	copy(b[at+k-1:], b[at:at+n])
	protowire.AppendVarint(b[:at-1], uint64(n))
	return b
}

// maxTraceNs is the largest timestamp Perfetto keeps: trace processor
// holds timestamps as int64 nanoseconds.
const maxTraceNs = math.MaxInt64

func appendVarintField(b []byte, n protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytesField(b []byte, n protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendStringField(b []byte, n protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func appendFixed64Field(b []byte, n protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, n, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func appendDoubleField(b []byte, n protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, n, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

// appendInt32Field appends an int32 the protobuf way: a negative value is
// its 64-bit two's complement.
func appendInt32Field(b []byte, n protowire.Number, v int32) []byte {
	return appendVarintField(b, n, uint64(int64(v)))
}
