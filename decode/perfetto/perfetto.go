// Package perfetto writes decoded captures as one native Perfetto trace
// (protobuf TracePackets, see Write), through the pipeline of
// decode/render, from the same record walk and placement as the JSON
// (decode/chromejson), which it does not link.
package perfetto

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/flows"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/decode/render"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/tracemeta"
	"google.golang.org/protobuf/encoding/protowire"
)

// flowLookup gives the dependency arrows that touch a record, by id: out
// are the arrows it starts (a producer), in those it ends (a wait);
// fan-in and fan-out are several ids. Every id is unique within the trace
// and appears once in some record's out and once in some record's in,
// and the producer starts before its wait ends. The slices are not
// changed after they are returned.
type flowLookup func(rec *decode.Record) (out, in []uint64)

// Write writes the inputs as one native Perfetto trace: a
// protobuf Trace, a stream of TracePackets written packet by packet from
// the same record walk, placements (invocations, AbsoluteTime) and
// dependency arrows as chromejson.Write's JSON, inputs rendered concurrently
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
// An input with Deps gets the arrows of flows.Each (FlowMode,
// MaxFlows; ids as in the JSON): flow_ids on the producer's BEGIN and
// terminating_flow_ids on the wait's END. An arrow whose producer starts
// at the very nanosecond its wait ends has no order Perfetto could keep,
// and is counted in flows.Stats.Unbound instead. The megaKernelCycleTrace
// object (render.AppendMeta) is written last, as ChromeEventBundle metadata
// (json_value), which trace processor keeps in its metadata table as
// "cr-megaKernelCycleTrace".
func Write(w io.Writer, inputs []render.Input, o render.WriteOptions) error {
	return writePerfetto(w, inputs, o, nil)
}

// writePerfetto is Write with, for tests, arrows given per input
// (nil, or a nil entry: from Deps).
func writePerfetto(w io.Writer, inputs []render.Input, o render.WriteOptions, flows []flowLookup) error {
	placements, err := render.Prepare(inputs, &o)
	if err != nil {
		return err
	}
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
	return render.Write(w, inputs, o, f)
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
	places []render.Placement
	// offset is added to every timestamp so that none is negative.
	offset uint64
	// ranks holds each input's rank tracks (shared by its invocations).
	ranks []*pfRank
	// flows and stats are each input's arrows and what they came to.
	flows []flowLookup
	stats []flows.Stats
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

func newPerfettoFormat(inputs []render.Input, places []render.Placement) (*perfettoFormat, error) {
	f := &perfettoFormat{places: places, ranks: make([]*pfRank, len(inputs)),
		flows: make([]flowLookup, len(inputs)), stats: make([]flows.Stats, len(inputs)),
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
			first, carry := bits.Add64(sum.Earliest, pl.Shift(), 0)
			if carry == 0 && first < pl.Anchor() {
				c := newNsClock(cfg.FrequencyMHz)
				ns, ok := c.ns(pl.Anchor() - first)
				if !ok {
					return nil, fmt.Errorf("%s: a record starts %d cycles before time 0, more than 2^63-1 ns at %v MHz: the perfetto format cannot hold it (use --format json)", in.Decoded.Capture.Name, pl.Anchor()-first, cfg.FrequencyMHz)
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
		if !pl.Meta() {
			continue
		}
		// The input that writes the rank's metadata: its slots, or with
		// invocations those of every invocation of the rank.
		rk.owner = i
		rk.slots = pl.Slots()
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
// them (flows.IDs), less those whose producer does not start before
// its wait ends: trace processor could not tell which end is the start.
func (f *perfettoFormat) arrows(in *render.Input, i int) (flowLookup, flows.Stats, error) {
	cfg, pl := &in.Config, &f.places[i]
	clock := newNsClock(cfg.FrequencyMHz)
	ts := func(cycle uint64) (uint64, bool) {
		c, carry := bits.Add64(cycle, pl.Shift(), 0)
		t, ok := clock.at(c, pl.Anchor(), f.offset)
		return t, ok && carry == 0
	}
	lookup, st, err := flows.IDs(in.Decoded, cfg.Deps, cfg.FlowMode, cfg.MaxFlows, uint64(i)<<32, func(fl flows.Flow) bool {
		s, ok1 := ts(fl.From.StartCycle)
		e, ok2 := ts(fl.To.EndCycle)
		return ok1 && ok2 && s < e
	})
	return lookup, st, err
}

func (f *perfettoFormat) Head([]render.Input) []byte { return nil }

// tail is the trace's metadata: a ChromeEventBundle holding the
// megaKernelCycleTrace object, on no sequence, written once every input
// is (its warnings count what the walks saw). Its clock is stated: trace
// processor reads a Chrome bundle's timestamp without one as MONOTONIC.
func (f *perfettoFormat) Tail(inputs []render.Input, arrows []flows.Stats) []byte {
	var md []byte
	md = appendStringField(md, fChromeMetadataName, "megaKernelCycleTrace")
	md = appendBytesField(md, fChromeMetadataJSON, render.AppendMeta(nil, inputs, arrows, f.places))
	bundle := appendBytesField(nil, fBundleMetadata, md)
	var pkt []byte
	pkt = appendVarintField(pkt, fPacketTimestamp, f.offset)
	pkt = appendVarintField(pkt, fPacketTimestampClockID, clockBoottime)
	pkt = appendBytesField(pkt, fPacketChromeEvents, bundle)
	return appendBytesField(nil, fTracePacket, pkt)
}

func (f *perfettoFormat) Renderer(i int, in *render.Input) render.EventRenderer {
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
// the JSON's named args do not show (render.ExtraArgFields, from annExtra on): a field
// the schema adds is a slice's annotation, as it is a JSON arg.
var fixedAnnotationNames = append([]string{
	"rank", "device_id", "core_type", "block_id", "task_id", "desc_id", "stage_task_index",
	"task_number", "start_cycle", "end_cycle", "core_entry_cycle", "task_stage", "owner_id",
	"invocation_id", "step", "direction",
}, extraArgNames()...)

// extraArgNames are the names of render.ExtraArgFields, in wire order.
func extraArgNames() []string {
	var names []string
	for _, f := range extraArgFields {
		names = append(names, f.Name)
	}
	return names
}

// extraArgFields are the record fields the JSON's args show after the
// named ones (render.ExtraArgFields).
var extraArgFields = render.ExtraArgFields()

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
	annExtra // the first of extraArgFields
)

type perfettoRenderer struct {
	f      *perfettoFormat
	in     *render.Input
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
	raw      []byte     // a record's encoding, for the annotations of extraArgFields
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
	tasks        *kernelnames.TaskNames
	// stageNames are tasks.stages' names made valid UTF-8 (as a YAML
	// names file's already are), by index.
	stageNames []string
	detailed   bool
	owner      string

	// Scratch buffers, reused per packet.
	event, packet, interned, name, entry []byte
}

func newPerfettoRenderer(f *perfettoFormat, i int, in *render.Input) *perfettoRenderer {
	cfg, pl := &in.Config, &f.places[i]
	r := &perfettoRenderer{
		f: f, in: in, index: i, main: pfSeq{id: uint64(i) + 1}, clock: newNsClock(cfg.FrequencyMHz),
		anchor: pl.Anchor(), shift: pl.Shift(), rank: f.ranks[i], flows: f.flows[i],
		names: map[string]uint64{}, annNames: map[string]uint64{}, descs: map[uint32]*pfDesc{},
		stageIIDs: map[string]uint64{},
		detailed:  cfg.DetailedNames, owner: validUTF8(cfg.OwnerLabel),
		nextLane: uint64(i+1) << 40,
	}
	if cfg.Names != nil {
		r.tasks = &cfg.Names.Tasks
		r.stageByIndex = make([]uint64, len(r.tasks.Distinct()))
		for _, name := range r.tasks.Distinct() {
			r.stageNames = append(r.stageNames, validUTF8(name))
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

func (r *perfettoRenderer) TimeAnchor() uint64 { return r.anchor }

func (r *perfettoRenderer) FlowStats() flows.Stats { return r.f.stats[r.index] }

// Unrepresentable is a record of a valid capture that an output format
// cannot hold (another format can): the input is invalid for that
// format. It is printed as a capture problem is:
//
//	far.bin: AIC/0 record 0 @0x40: cycle 18446744073709551615 is more than ...
type Unrepresentable struct {
	// File names the capture, Slot the record's slot ("AIC/0"), decode.Record
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

func unrepresentable(d *decode.Decoded, rec *decode.Record, msg string) *Unrepresentable {
	return &Unrepresentable{File: d.Capture.Name, Slot: d.Slot(rec).String(), Record: int(rec.Index), Off: d.FileOffset(rec), Msg: msg}
}

// at is the timestamp of cycle, or an error naming the record.
func (r *perfettoRenderer) at(cycle uint64, rec *decode.Record) (uint64, error) {
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
func (r *perfettoRenderer) Begin(b []byte) []byte {
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
	u("schemaVersion", tracemeta.SchemaVersion)
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
	if w := r.f.places[r.index].Overlap(); w != "" {
		warnings = append(warnings, w)
	}
	if cfg.Deps != nil {
		st := r.FlowStats()
		u("dependencyArrows", st.Arrows)
		u("waitsWithoutProducer", st.WaitsWithoutProducer)
		if w := flows.Warning(st); w != "" {
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
