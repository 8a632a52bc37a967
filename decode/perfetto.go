package decode

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"google.golang.org/protobuf/encoding/protowire"
)

// flowLookup gives the dependency arrows that touch a record, by id: out
// are the arrows it starts (a producer), in those it ends (a wait);
// fan-in and fan-out are several ids. Every id is unique within the trace
// and appears once in some record's out and once in some record's in,
// and the producer starts before its wait ends. The slices are not
// changed after they are returned.
type flowLookup func(rec *Record) (out, in []uint64)

// WritePerfetto writes the inputs as one native Perfetto trace: a
// protobuf Trace, a stream of TracePackets written packet by packet from
// the same record walk, placements (invocations, AbsoluteTime) and
// dependency arrows as WriteTrace's JSON, inputs rendered concurrently
// and written in order, so memory does not grow with the trace.
//
// Each input has a trusted packet sequence of its own (id 1 + its
// index), on BOOTTIME, for its track descriptors and metadata instant,
// and each of its cores with records one more (ids after every input's
// own, input by input, cores in Summary.Active order) for its slices:
// that sequence's defaults make the core's track the default track and
// clock 64 the clock, sequence-scoped and incremental (a ClockSnapshot
// puts it at BOOTTIME 0), so slices on the core's track carry no track
// and each timestamp is the delta from the sequence's previous one. Every
// sequence's first packet clears the incremental state and interns the
// category and the fixed argument names; every later event packet needs
// that state. Interned ids are numbered per input and defined on each
// sequence by the packet that first uses them there. A slice's END is
// written when its core next needs it (before the core's next BEGIN that
// starts at or after it) or at the end of the input, the ENDs of a core's
// tracks in time order, so that each core's sequence is in time order;
// trace processor sorts packets by timestamp on import.
//
// Tracks form a tree per rank: a process track (pid = rank, named
// "<kernel> rank R device D" as the JSON's process), under it a
// "megaKernelCycleTrace" track holding one instant per input with its
// metadata, and a track per region (AIC, AIV) holding a track per core
// with records (AIC/3); children are ordered explicitly (child_ordering
// EXPLICIT, sibling_order_rank): the metadata track, then AIC, AIV, and
// cores by block id. The invocations of a rank share its
// tracks; each slice's args then end with invocation_id, step and
// direction (those known).
//
// A record is a TYPE_SLICE_BEGIN/TYPE_SLICE_END pair on its core's track
// at integer nanoseconds round((cycle + shift − anchor) × 1000 / MHz)
// (the JSON's placement), each end rounded once from its own cycle (so
// back-to-back records stay back to back), named as in the JSON
// (interned) in category MegaKernelInternal. Its args are the JSON
// event's, as debug annotations with interned names, except the five
// that are the same for every record of a core (rank, device_id,
// core_type, block_id, core_entry_cycle): those are written once per
// input, on a "core_info" instant just before the core's first slice. A
// record that overlaps an earlier one of its core without nesting inside
// it goes on a child track of the core ("AIC/3 overlap 1") so that slices
// nest on every track.
//
// When a record starts before its time 0, every timestamp of the trace
// is shifted by the same amount so that none is negative
// (timestampOffsetNs in the metadata). A timestamp past 2^63−1 ns, or a
// rank past the largest pid, is an error.
//
// An input with Deps gets the arrows of Decoded.Flows (FlowMode,
// MaxFlows; ids as in the JSON): flow_ids on the producer's BEGIN and
// terminating_flow_ids on the wait's END. An arrow whose producer starts
// at the very nanosecond its wait ends has no order Perfetto could keep,
// and is counted in FlowStats.Unbound instead. The megaKernelCycleTrace
// object of WriteTrace is written last, as ChromeEventBundle metadata
// (json_value), which trace processor keeps in its metadata table as
// "cr-megaKernelCycleTrace".
func WritePerfetto(w io.Writer, inputs []Input, o WriteOptions) error {
	return writePerfetto(w, inputs, o, nil)
}

// writePerfetto is WritePerfetto with, for tests, arrows given per input
// (nil, or a nil entry: from Deps).
func writePerfetto(w io.Writer, inputs []Input, o WriteOptions, flows []flowLookup) error {
	if err := checkInputs(inputs); err != nil {
		return err
	}
	placements, err := place(inputs, &o)
	if err != nil {
		return err
	}
	reportOverlaps(placements, &o)
	f, err := newPerfettoFormat(inputs, placements)
	if err != nil {
		return err
	}
	for i := range inputs {
		inputs[i].Decoded.Warnings.Shifted, inputs[i].Decoded.Warnings.ShiftCycles = f.offset > 0, 0
	}
	for i := range inputs {
		switch {
		case i < len(flows) && flows[i] != nil:
			f.flows[i] = flows[i]
		case inputs[i].Config.Deps != nil:
			if f.flows[i], f.stats[i], err = f.arrows(&inputs[i], i); err != nil {
				return err
			}
		}
	}
	return writeTrace(w, inputs, o, f)
}

// perfettoCategory is every slice's category, as the JSON's "cat".
const perfettoCategory = "MegaKernelInternal"

// coreInfoName names the instant that carries a core's constant args.
const coreInfoName = "core_info"

// Bounds that keep the writer's memory independent of the capture's size.
// maxInternedNames is a variable for the tests of the full tables.
var (
	// maxInternedNames bounds the event names, and apart from them the
	// task_stage values, interned per input; later new ones (detailed
	// names make one per task) are written in full.
	maxInternedNames = 1 << 16
)

const (
	// maxLanes bounds the tracks of one core: records overlapping
	// without nesting beyond that many at once are refused.
	maxLanes = 1024
)

type perfettoFormat struct {
	places []placement
	// offset is added to every timestamp so that none is negative.
	offset uint64
	// ranks holds each input's rank tracks (shared by its invocations).
	ranks []*pfRank
	// flows and stats are each input's arrows and what they came to.
	flows []flowLookup
	stats []FlowStats
	// coreSeqs[i] is the sequence id of input i's first core with
	// records (Summary.Active[0]); the others follow it.
	coreSeqs []uint64
}

// pfRank is the tracks of one rank, written by one of its inputs.
type pfRank struct {
	owner     int // the input that writes the descriptors
	proc      uint64
	meta      uint64
	regions   []abi.CoreType
	regionIDs map[abi.CoreType]uint64
	slots     []abi.Slot // cores with records, in track order
	cores     map[abi.Slot]uint64
}

func newPerfettoFormat(inputs []Input, places []placement) (*perfettoFormat, error) {
	f := &perfettoFormat{places: places, ranks: make([]*pfRank, len(inputs)),
		flows: make([]flowLookup, len(inputs)), stats: make([]FlowStats, len(inputs)),
		coreSeqs: make([]uint64, len(inputs))}
	byRank := map[uint32]*pfRank{}
	next := uint64(1)
	seq := uint64(len(inputs)) + 1
	for i := range inputs {
		in := &inputs[i]
		cfg, sum, pl := &in.Config, in.Decoded.Summary, &places[i]
		f.coreSeqs[i] = seq
		seq += uint64(len(sum.Active))
		if seq-1 > math.MaxUint32 {
			return nil, fmt.Errorf("%s: more than 2^32-1 cores with records in one trace: the perfetto format cannot number their sequences", in.Decoded.Capture.Name)
		}
		if cfg.Rank > math.MaxInt32 {
			return nil, fmt.Errorf("%s: rank %d exceeds %d, the largest pid a Perfetto process descriptor holds", in.Decoded.Capture.Name, cfg.Rank, math.MaxInt32)
		}
		if sum.Records > 0 {
			first, carry := bits.Add64(sum.Earliest, pl.shift, 0)
			if carry == 0 && first < pl.anchor {
				c := newNsClock(cfg.FrequencyMHz)
				ns, ok := c.ns(pl.anchor - first)
				if !ok {
					return nil, fmt.Errorf("%s: a record starts %d cycles before time 0, more than 2^63-1 ns at %v MHz: the perfetto format cannot hold it (use --format json)", in.Decoded.Capture.Name, pl.anchor-first, cfg.FrequencyMHz)
				}
				f.offset = max(f.offset, ns)
			}
		}
		rk := byRank[cfg.Rank]
		if rk == nil {
			rk = &pfRank{owner: i, regionIDs: map[abi.CoreType]uint64{}, cores: map[abi.Slot]uint64{}}
			byRank[cfg.Rank] = rk
		}
		f.ranks[i] = rk
		if !pl.meta {
			continue
		}
		// The input that writes the rank's metadata: its slots, or with
		// invocations those of every invocation of the rank.
		rk.owner = i
		rk.slots = pl.slots
		if cfg.Invocation == nil {
			rk.slots = make([]abi.Slot, 0, len(sum.Active))
			for _, a := range sum.Active {
				rk.slots = append(rk.slots, a.Slot)
			}
			slices.SortFunc(rk.slots, func(x, y abi.Slot) int {
				return cmp.Or(cmp.Compare(x.CoreType, y.CoreType), cmp.Compare(x.BlockID, y.BlockID))
			})
		}
		rk.proc, rk.meta = next, next+1
		next += 2
		for _, t := range abi.CoreTypes() {
			for _, s := range rk.slots {
				if s.CoreType == t {
					rk.regions = append(rk.regions, t)
					rk.regionIDs[t] = next
					next++
					break
				}
			}
		}
		for _, s := range rk.slots {
			rk.cores[s] = next
			next++
		}
	}
	return f, nil
}

// arrows returns input i's arrows from its Deps, as the JSON writer draws
// them (Decoded.FlowIDs), less those whose producer does not start before
// its wait ends: trace processor could not tell which end is the start.
func (f *perfettoFormat) arrows(in *Input, i int) (flowLookup, FlowStats, error) {
	cfg, pl := &in.Config, &f.places[i]
	clock := newNsClock(cfg.FrequencyMHz)
	ts := func(cycle uint64) (uint64, bool) {
		c, carry := bits.Add64(cycle, pl.shift, 0)
		t, ok := clock.at(c, pl.anchor, f.offset)
		return t, ok && carry == 0
	}
	lookup, st, err := in.Decoded.FlowIDs(cfg.Deps, cfg.FlowMode, cfg.MaxFlows, uint64(i)<<32, func(fl Flow) bool {
		s, ok1 := ts(fl.From.StartCycle)
		e, ok2 := ts(fl.To.EndCycle)
		return ok1 && ok2 && s < e
	})
	return lookup, st, err
}

func (f *perfettoFormat) head([]Input) []byte { return nil }

// tail is the trace's metadata: a ChromeEventBundle holding the
// megaKernelCycleTrace object, on no sequence, written once every input
// is (its warnings count what the walks saw). Its clock is stated: trace
// processor reads a Chrome bundle's timestamp without one as MONOTONIC.
func (f *perfettoFormat) tail(inputs []Input, flows []FlowStats) []byte {
	var md []byte
	md = appendStringField(md, fChromeMetadataName, "megaKernelCycleTrace")
	md = appendBytesField(md, fChromeMetadataJSON, appendMeta(nil, inputs, flows, f.places))
	bundle := appendBytesField(nil, fBundleMetadata, md)
	var pkt []byte
	pkt = appendVarintField(pkt, fPacketTimestamp, f.offset)
	pkt = appendVarintField(pkt, fPacketTimestampClockID, clockBoottime)
	pkt = appendBytesField(pkt, fPacketChromeEvents, bundle)
	return appendBytesField(nil, fTracePacket, pkt)
}

func (f *perfettoFormat) renderer(i int, in *Input) eventRenderer {
	return newPerfettoRenderer(f, i, in)
}

// openSlice is a record whose END is not written yet.
type openSlice struct {
	end uint64   // END timestamp
	in  []uint64 // flows ending at it
}

// pfTrack is a track that slices go on: a core's track or one of its
// overlap tracks. Its open slices nest, innermost last.
type pfTrack struct {
	uuid uint64
	open []openSlice
}

// pfSeq is a trusted packet sequence: its id, its timestamps, and the
// interned ids it has defined (by kind: event names, task_stage values,
// annotation names). The ids are numbered per input; a sequence defines
// each one it uses in the packet of its first use.
type pfSeq struct {
	id uint64
	// incremental: timestamps are deltas from the sequence's previous
	// one (last) on its clock 64; else absolute BOOTTIME.
	incremental bool
	last        uint64
	track       uint64 // TrackEventDefaults.track_uuid, 0 for none
	defined     [3][]uint64
}

// Kinds of interned ids, as pfSeq.defined indexes them.
const (
	kindName = iota
	kindStage
	kindAnnotation
)

// define reports whether iid of kind is new to the sequence, and marks it
// defined.
func (s *pfSeq) define(kind int, iid uint64) bool {
	w, bit := iid>>6, uint64(1)<<(iid&63)
	set := s.defined[kind]
	if w < uint64(len(set)) && set[w]&bit != 0 {
		return false
	}
	for uint64(len(set)) <= w {
		set = append(set, 0)
	}
	set[w] |= bit
	s.defined[kind] = set
	return true
}

// pfCore is a core with records: its track, its overlap tracks, and its
// packet sequence.
type pfCore struct {
	name  string
	lanes []*pfTrack // lanes[0] is the core's own track
	seq   pfSeq
	// info holds the core's constant debug annotations, encoded: rank,
	// device_id, core_type, block_id and core_entry_cycle, written once
	// on the core's "core_info" instant; nil once written.
	info []byte
}

// pfDesc is what a desc_id contributes to a slice.
type pfDesc struct {
	name     string
	prefixed bool
	nameIID  uint64 // the interned name when it is the desc's alone, else 0
	// byStage holds the interned names of a prefixed desc by task stage.
	byStage  map[string]uint64
	argIID   uint64 // interned name of task_type/graph_stage, 0 for none
	argValue uint64
}

// Debug annotation names interned by the first packet of every sequence,
// in this order (iid = index + 1), then the names of the record fields
// recordArgs does not show (argPlan's extras, from annExtra on): a field
// the schema adds is a slice's annotation, as it is a JSON arg.
var fixedAnnotationNames = append([]string{
	"rank", "device_id", "core_type", "block_id", "task_id", "desc_id", "stage_task_index",
	"task_number", "start_cycle", "end_cycle", "core_entry_cycle", "task_stage", "owner_id",
	"invocation_id", "step", "direction",
}, extraArgNames()...)

// extraArgNames are the names of argPlan's extras, in wire order.
func extraArgNames() []string {
	var names []string
	for _, st := range argPlan[len(recordArgs):] {
		names = append(names, st.field.Name)
	}
	return names
}

const (
	annRank = iota + 1
	annDeviceID
	annCoreType
	annBlockID
	annTaskID
	annDescID
	annStageTaskIndex
	annTaskNumber
	annStartCycle
	annEndCycle
	annCoreEntryCycle
	annTaskStage
	annOwnerID
	annInvocationID
	annStep
	annDirection
	annExtra // the first of argPlan's extras
)

type perfettoRenderer struct {
	f      *perfettoFormat
	in     *Input
	index  int
	main   pfSeq // the input's own sequence: descriptors, metadata
	clock  nsClock
	anchor uint64
	shift  uint64
	rank   *pfRank

	cores    []pfCore   // by Summary.Active index
	nextLane uint64     // uuid of the next overlap track
	flows    flowLookup // nil: no arrows
	invArgs  []byte     // the invocation's annotations, for every slice
	raw      []byte     // a record's encoding, for the annotations of argPlan's extras
	dirIID   uint64     // the interned string in invArgs (direction), 0 for none

	// Interned ids, numbered per input, and their strings by iid − 1:
	// event names, debug annotation names, task_stage values.
	names     map[string]uint64
	nameList  []string
	annNames  map[string]uint64
	annList   []string
	stageList []string
	// stageIIDs are the interned task_stage values; stageByIndex caches
	// them by the stage's index in tasks.stages (0: not yet).
	stageIIDs    map[string]uint64
	stageByIndex []uint64
	descs        map[uint32]*pfDesc
	tasks        taskStages
	// stageNames are tasks.stages' names made valid UTF-8 (as a YAML
	// names file's already are), by index.
	stageNames []string
	detailed   bool
	owner      string

	// Scratch buffers, reused per packet.
	event, packet, interned, name, entry []byte
}

func newPerfettoRenderer(f *perfettoFormat, i int, in *Input) *perfettoRenderer {
	cfg, pl := &in.Config, &f.places[i]
	r := &perfettoRenderer{
		f: f, in: in, index: i, main: pfSeq{id: uint64(i) + 1}, clock: newNsClock(cfg.FrequencyMHz),
		anchor: pl.anchor, shift: pl.shift, rank: f.ranks[i], flows: f.flows[i],
		names: map[string]uint64{}, annNames: map[string]uint64{}, descs: map[uint32]*pfDesc{},
		stageIIDs: map[string]uint64{},
		detailed:  cfg.DetailedNames, owner: validUTF8(cfg.OwnerLabel),
		nextLane: uint64(i+1) << 40,
	}
	if cfg.Names != nil {
		r.tasks = newTaskStages(&cfg.Names.Tasks)
		r.stageByIndex = make([]uint64, len(r.tasks.stages))
		for _, st := range r.tasks.stages {
			r.stageNames = append(r.stageNames, validUTF8(st.name))
		}
	}
	for i, name := range fixedAnnotationNames {
		r.annNames[name] = uint64(i + 1)
	}
	r.annList = slices.Clone(fixedAnnotationNames)
	if inv := cfg.Invocation; inv != nil {
		r.invArgs = appendIntAnnotation(r.invArgs, annInvocationID, inv.ID)
		if inv.Step != nil {
			r.invArgs = appendIntAnnotation(r.invArgs, annStep, *inv.Step)
		}
		if inv.Direction != "" {
			// Interned: it is on every slice.
			dir := validUTF8(inv.Direction)
			if r.dirIID = r.stringIID(dir); r.dirIID != 0 {
				r.invArgs = appendStringIIDAnnotation(r.invArgs, annDirection, r.dirIID)
			} else {
				r.invArgs = appendStringAnnotation(r.invArgs, annDirection, dir)
			}
		}
	}
	return r
}

func (r *perfettoRenderer) timeAnchor() uint64 { return r.anchor }

func (r *perfettoRenderer) flowStats() FlowStats { return r.f.stats[r.index] }

// Unrepresentable is a record of a valid capture that an output format
// cannot hold (another format can): the input is invalid for that
// format. It is printed as a capture problem is:
//
//	far.bin: AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than ...
type Unrepresentable struct {
	// File names the capture, Slot the record's slot ("AIC/0"), Record
	// its index in the slot and Off its file offset.
	File   string
	Slot   string
	Record int
	Off    int64
	// Msg says why the format cannot hold it and what to use instead.
	Msg string
}

func (e *Unrepresentable) Error() string {
	return fmt.Sprintf("%s: %s record %d @%#x: %s", e.File, e.Slot, e.Record, e.Off, e.Msg)
}

func unrepresentable(d *Decoded, rec *Record, msg string) *Unrepresentable {
	return &Unrepresentable{File: d.Capture.Name, Slot: d.Slot(rec).String(), Record: int(rec.Index), Off: d.FileOffset(rec), Msg: msg}
}

// at is the timestamp of cycle, or an error naming the record.
func (r *perfettoRenderer) at(cycle uint64, rec *Record) (uint64, error) {
	c, carry := bits.Add64(cycle, r.shift, 0)
	ts, ok := r.clock.at(c, r.anchor, r.f.offset)
	if !ok || carry != 0 {
		return 0, unrepresentable(r.in.Decoded, rec, fmt.Sprintf("cycle %d is more than 2^63-1 ns from time 0 (cycle %d) at %v MHz: the perfetto format cannot hold it (use --format json)",
			cycle, r.anchor, r.in.Config.FrequencyMHz))
	}
	return ts, nil
}

// begin writes the sequence's first packet and, from the input that
// writes its rank's metadata, the rank's track descriptors.
func (r *perfettoRenderer) begin(b []byte) []byte {
	cfg, sum := &r.in.Config, r.in.Decoded.Summary

	b = r.appendFirstPacket(b, &r.main)

	rk := r.rank
	r.cores = make([]pfCore, len(sum.Active))
	for i, a := range sum.Active {
		c := &r.cores[i]
		c.name = a.Slot.String()
		c.lanes = []*pfTrack{{uuid: rk.cores[a.Slot]}}
		c.seq = pfSeq{id: r.f.coreSeqs[r.index] + uint64(i), incremental: true, track: rk.cores[a.Slot]}
		c.info = appendUintAnnotation(c.info, annRank, uint64(cfg.Rank))
		c.info = appendUintAnnotation(c.info, annDeviceID, uint64(cfg.DeviceID))
		c.info = appendStringAnnotation(c.info, annCoreType, a.Slot.CoreType.String())
		c.info = appendUintAnnotation(c.info, annBlockID, uint64(a.Slot.BlockID))
		c.info = appendUintAnnotation(c.info, annCoreEntryCycle, a.EntryCycle)
	}
	if rk.owner != r.index {
		return b
	}

	// The rank's tracks: the process, the metadata track, the regions,
	// the cores.
	procName := validUTF8(fmt.Sprintf("%s rank %d device %d", cfg.KernelName, cfg.Rank, cfg.DeviceID))
	var proc []byte
	proc = appendInt32Field(proc, fProcessPID, int32(cfg.Rank))
	proc = appendStringField(proc, fProcessName, procName)
	var td []byte
	td = appendVarintField(td, fTrackUUID, rk.proc)
	td = appendStringField(td, fTrackName, procName)
	td = appendBytesField(td, fTrackProcess, proc)
	td = appendVarintField(td, fTrackChildOrdering, childOrderingExplicit)
	b = r.appendDescriptor(b, td)
	// The metadata track first (rank 0), then the regions by core type
	// (AIC 1, AIV 2).
	td = appendVarintField(td[:0], fTrackUUID, rk.meta)
	td = appendVarintField(td, fTrackParentUUID, rk.proc)
	td = appendStringField(td, fTrackName, "megaKernelCycleTrace")
	td = appendInt32Field(td, fTrackSiblingOrderRank, 0)
	b = r.appendDescriptor(b, td)
	for _, t := range rk.regions {
		td = appendVarintField(td[:0], fTrackUUID, rk.regionIDs[t])
		td = appendVarintField(td, fTrackParentUUID, rk.proc)
		td = appendStringField(td, fTrackName, t.String())
		td = appendVarintField(td, fTrackChildOrdering, childOrderingExplicit)
		td = appendInt32Field(td, fTrackSiblingOrderRank, int32(min(uint64(t), math.MaxInt32)))
		b = r.appendDescriptor(b, td)
	}
	for _, s := range rk.slots {
		td = appendVarintField(td[:0], fTrackUUID, rk.cores[s])
		td = appendVarintField(td, fTrackParentUUID, rk.regionIDs[s.CoreType])
		td = appendStringField(td, fTrackName, s.String())
		td = appendVarintField(td, fTrackChildOrdering, childOrderingExplicit)
		td = appendInt32Field(td, fTrackSiblingOrderRank, int32(min(uint64(s.BlockID), math.MaxInt32)))
		b = r.appendDescriptor(b, td)
	}
	return b
}

// appendFirstPacket writes the first packet of sequence s: incremental
// state cleared, the category and the fixed argument names interned, and
// the sequence's defaults. The input's own sequence takes BOOTTIME
// timestamps; a core's takes clock 64, incremental (each timestamp the
// delta from the sequence's previous one), stated by a ClockSnapshot that
// puts it at BOOTTIME 0, and its core's track as the default.
func (r *perfettoRenderer) appendFirstPacket(b []byte, s *pfSeq) []byte {
	for i := range fixedAnnotationNames {
		s.define(kindAnnotation, uint64(i+1))
	}
	p := appendVarintField(r.packet[:0], fPacketSequenceID, s.id)
	p = appendVarintField(p, fPacketSequenceFlags, seqIncrementalStateCleared)
	p = appendVarintField(p, fPacketFirstPacketOnSeq, 1)
	d := r.entry[:0]
	if !s.incremental {
		d = appendVarintField(d, fDefaultsTimestampClockID, clockBoottime)
	} else {
		d = appendVarintField(d, fDefaultsTimestampClockID, clockSequenceIncrement)
		d = protowire.AppendTag(d, fDefaultsTrackEvent, protowire.BytesType)
		d = protowire.AppendVarint(d, uint64(protowire.SizeTag(fTrackEventDefaultsTrackUUID)+protowire.SizeVarint(s.track)))
		d = appendVarintField(d, fTrackEventDefaultsTrackUUID, s.track)
	}
	r.entry = d
	p = appendBytesField(p, fPacketDefaults, d)
	p = appendBytesField(p, fPacketInternedData, firstInterned)
	if s.incremental {
		p = appendBytesField(p, fPacketClockSnapshot, incrementalClockSnapshot)
		s.last = 0
	}
	r.packet = p
	return appendBytesField(b, fTracePacket, p)
}

// firstInterned is the interned data of every sequence's first packet:
// the category (iid 1) and fixedAnnotationNames (iid = index + 1).
var firstInterned = func() []byte {
	cat := appendVarintField(nil, fInternedIID, 1)
	cat = appendStringField(cat, fInternedName, perfettoCategory)
	in := appendBytesField(nil, fInternedEventCategories, cat)
	for i, name := range fixedAnnotationNames {
		e := appendVarintField(nil, fInternedIID, uint64(i+1))
		e = appendStringField(e, fInternedName, name)
		in = appendBytesField(in, fInternedAnnotationNames, e)
	}
	return in
}()

// incrementalClockSnapshot is a core sequence's ClockSnapshot: its clock
// 64, incremental, at BOOTTIME 0.
var incrementalClockSnapshot = func() []byte {
	boot := appendVarintField(nil, fClockID, clockBoottime)
	boot = appendVarintField(boot, fClockTimestamp, 0)
	inc := appendVarintField(nil, fClockID, clockSequenceIncrement)
	inc = appendVarintField(inc, fClockTimestamp, 0)
	inc = appendVarintField(inc, fClockIsIncremental, 1)
	return appendBytesField(appendBytesField(nil, fClockSnapshotClocks, boot), fClockSnapshotClocks, inc)
}()

// appendMetaInstant writes the input's megaKernelCycleTrace facts as the
// debug annotations of an instant on its rank's metadata track, at the
// input's earliest time (its time 0, or its first record if earlier).
// It comes after the records: the warnings count what the walk saw.
func (r *perfettoRenderer) appendMetaInstant(b []byte) []byte {
	cfg, sum := &r.in.Config, r.in.Decoded.Summary
	first := sum.Anchor
	if sum.Records > 0 {
		first = min(first, sum.Earliest)
	}
	ts, ok := r.clock.at(first+r.shift, r.anchor, r.f.offset)
	if !ok {
		ts = r.f.offset // the anchor of AbsoluteTime, before every record
	}
	r.interned = r.interned[:0]
	ev := r.event[:0]
	ev = appendVarintField(ev, fEventType, eventTypeInstant)
	ev = appendVarintField(ev, fEventTrackUUID, r.rank.meta)
	ev = appendVarintField(ev, fEventCategoryIIDs, 1)
	r.name = append(r.name[:0], "megaKernelCycleTrace"...)
	ev = r.appendEventName(ev, &r.main)
	ann := func(name string) uint64 { return r.useAnnotation(&r.main, r.annotationName(name)) }
	u := func(name string, v uint64) { ev = appendUintAnnotation(ev, ann(name), v) }
	s := func(name, v string) { ev = appendStringAnnotation(ev, ann(name), validUTF8(v)) }
	u("schemaVersion", SchemaVersion)
	u("rank", uint64(cfg.Rank))
	u("deviceId", uint64(cfg.DeviceID))
	s("socName", cfg.SoCName)
	ev = appendDoubleAnnotation(ev, ann("cycleFrequencyMHz"), cfg.FrequencyMHz)
	u("anchorCycle", sum.Anchor)
	for _, t := range abi.CoreTypes() {
		u("recordCapacityPerCore."+t.String(), uint64(sum.Layout.Capacities.For(t)))
	}
	u("maxRecordCapacityPerCore", abi.MaxRecordsPerCore)
	u("recordCount", sum.Records)
	u("droppedRecordCount", sum.Dropped)
	u("profileBufferBytes", sum.Layout.Size())
	ev = appendBoolAnnotation(ev, ann("detailedTaskNames"), cfg.DetailedNames)
	s("kernelName", cfg.KernelName)
	s("ownerLabel", cfg.OwnerLabel)
	warnings := r.in.Decoded.Warnings.Lines()
	if w := r.f.places[r.index].overlap; w != "" {
		warnings = append(warnings, w)
	}
	if cfg.Deps != nil {
		st := r.flowStats()
		u("dependencyArrows", st.Arrows)
		u("waitsWithoutProducer", st.WaitsWithoutProducer)
		if w := FlowWarning(st); w != "" {
			warnings = append(warnings, w)
		}
	}
	if len(warnings) > 0 {
		s("warnings", strings.Join(warnings, "; "))
	}
	r.useStage(&r.main, r.dirIID)
	ev = append(ev, r.invArgs...)
	u("abiVersion", abi.Version)
	s("abiFingerprint", abi.FingerprintHex)
	if res := r.in.Decoded.Layout; res != nil {
		u("cubeSlots", uint64(res.Layout.CubeSlots))
		s("layoutSource", string(res.Source))
		s("cubeSlotsSource", string(res.CubeSlotsFrom.Source))
		s("layoutFound", res.How)
	}
	u("timestampOffsetNs", r.f.offset)
	r.event = ev
	return r.appendEventPacket(b, &r.main, ts)
}

func (r *perfettoRenderer) appendDescriptor(b, td []byte) []byte {
	p := appendVarintField(r.packet[:0], fPacketSequenceID, r.main.id)
	p = appendBytesField(p, fPacketTrackDescriptor, td)
	r.packet = p
	return appendBytesField(b, fTracePacket, p)
}

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
func (r *perfettoRenderer) record(b []byte, rec *Record) ([]byte, error) {
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
	stage, stageIndex := "", r.tasks.index(rec.TaskID)
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
	if argPlanExtra {
		r.raw = rec.ProfileRecord.Append(r.raw[:0])
		for i, st := range argPlan[len(recordArgs):] {
			b = appendUintAnnotation(b, annExtra+uint64(i), st.field.Value(r.raw))
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
func (r *perfettoRenderer) eventNameIID(rec *Record, d *pfDesc, stage string, hasStage bool) uint64 {
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
func (r *perfettoRenderer) appendName(dst []byte, rec *Record, d *pfDesc, stage string, hasStage bool) []byte {
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
func (r *perfettoRenderer) newLane(b []byte, c *pfCore, rec *Record) (*pfTrack, []byte, error) {
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
func (r *perfettoRenderer) end(b []byte) ([]byte, error) {
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
