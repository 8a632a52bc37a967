package cppgen

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// The device recorder: the hooks a device build defines (a barrier, the
// system counter, a trap, the core type, the cube slot count), the AscendC
// preset that defines them all, the one function that writes and publishes
// a record (shared by AppendRecord and the Recorder), and the Recorder
// class itself, shaped like the hand-written recorder of hyper-parallel's
// runtime (ops/runtime/cycle_trace_recorder.h) so that it can replace it.

// hook is one configuration macro of the header and the line of the
// prologue's table that documents it.
type hook struct {
	name, doc, def string
}

// hooks are the macros that change what the Recorder does on a device;
// each defaults to what suits a host compiler.
func (g *gen) hooks() []hook {
	return []hook{
		{"CYCLEABI_BARRIER()", "a full barrier around the store of record_count.", "nothing"},
		{"CYCLEABI_PUBLISH_STORE(p, n)", "stores record_count n at p, after the record.", "*(p) = (n)"},
		{"CYCLEABI_NOW_BARRIER()", "runs before the clock read (Recorder::Now).", "CYCLEABI_BARRIER()"},
		{"CYCLEABI_NOW()", "reads the system counter (Recorder::Now).", "0"},
		{"CYCLEABI_TRAP()", "stops the kernel (Recorder::Init on a bad layout).", "nothing"},
		{"CYCLEABI_CORE_TYPE", "the core type Recorder writes as: " + g.coreTypeValues() + ".", "none"},
		{"CYCLEABI_CUBE_SLOTS", "the buffer's cube slot count, for Recorder.", constName(g.lay.MinCubeSlots.Name)},
	}
}

// coreTypeValues lists the core types for CYCLEABI_CORE_TYPE: "1 AIC, 2 AIV".
func (g *gen) coreTypeValues() string {
	var vs []string
	for _, v := range g.lay.CoreTypes.Values {
		vs = append(vs, fmt.Sprintf("%d %s", v.Value, v.Name))
	}
	return strings.Join(vs, ", ")
}

// coreTypeNamed is the core type value called name, or nil.
func (g *gen) coreTypeNamed(name string) *schema.EnumValue {
	for _, v := range g.lay.CoreTypes.Values {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// notACoreType is the smallest value that names no core type: Recorder's
// core type when CYCLEABI_CORE_TYPE is not defined, so that using it stops
// at BasicRecorder's static_assert with a message that says what to define.
func (g *gen) notACoreType() uint32 {
	used := map[uint32]bool{}
	for _, v := range g.lay.CoreTypes.Values {
		used[v.Value] = true
	}
	n := uint32(0)
	for used[n] {
		n++
	}
	return n
}

// recordArgs are Record's parameters, upstream's order: the record's
// fields with the two cycle fields (which the schema loader requires) last.
func (g *gen) recordArgs() []*schema.Field {
	var ids, cycles []*schema.Field
	for _, f := range g.recordParams() {
		if f.Name == "start_cycle" || f.Name == "end_cycle" {
			cycles = append(cycles, f)
		} else {
			ids = append(ids, f)
		}
	}
	return append(ids, cycles...)
}

func fieldNames(fs []*schema.Field) []string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.Name)
	}
	return ns
}

func fieldDecls(fs []*schema.Field) []string {
	var ds []string
	for _, f := range fs {
		ds = append(ds, cppType(f.Type)+" "+f.Name)
	}
	return ds
}

/*
// A kernel keeps one Recorder per core: ...
//   cycleabi::Recorder recorder;
//   recorder.Init(block_id, buffer, aic_capacity, aiv_capacity);
// Configuration. ...
//   CYCLEABI_FN  qualifies every function.  Default: inline
*/
func (g *gen) genUsage() {
	lay := g.lay
	hdr := lay.Header.Name
	g.comment("", "A kernel keeps one Recorder per core: Init at kernel entry finds the core's slot and writes its header, Record appends one record per piece of work, and Flush at kernel exit publishes what the publish mode has not yet:")
	g.P("//")
	g.P("//   cycleabi::Recorder recorder;  // the core type is CYCLEABI_CORE_TYPE")
	g.P("//   recorder.Init(%s);", strings.Join(append([]string{"block_id", "buffer"}, g.capacityParams()...), ", "))
	g.P("//   ...")
	g.P("//   recorder.Record(%s);", strings.Join(fieldNames(g.recordArgs()), ", "))
	g.P("//   ...")
	g.P("//   recorder.Flush();")
	g.P("//")
	g.comment("", "A kernel whose blocks play several core types picks the type at run time with DynamicRecorder (same bytes): recorder.Init(core_type, block_id, buffer, ...).")
	g.P("//")
	g.comment("", "Record keeps record_count in the object (no read of the buffer per record) and never writes past the slot's capacity: a record that does not fit is only counted in dropped_count. It writes the record, then publishes record_count as the publish mode says (CYCLEABI_BARRIER(), CYCLEABI_PUBLISH_STORE, CYCLEABI_BARRIER()): a host that reads record_count N from a live or crashed buffer finds records 0..N-1 complete in every mode. Init calls CYCLEABI_TRAP() and writes nothing when a capacity is not valid or the core has no slot.")
	g.P("//")
	g.P("// Publish modes (define at most one; the bytes after Flush are the same):")
	g.P("//")
	g.P("//   (default)                      every record: record_count is published")
	g.P("//                                  after each record; a crash loses none.")
	g.P("//   CYCLEABI_PUBLISH_EVERY_K K     every K records (and at Flush): a crash")
	g.P("//                                  loses at most K-1 records.")
	g.P("//   CYCLEABI_PUBLISH_AT_EXIT       at Flush only: a crash loses every record")
	g.P("//                                  since the last Flush.")
	g.P("//")
	g.comment("", fmt.Sprintf("The free functions InitSlot and AppendRecord write the same bytes for a kernel that keeps no object (AppendRecord reads record_count and record_capacity from the %s on every call, so it publishes every record in every mode). The helpers do plain stores but for CYCLEABI_PUBLISH_STORE; any cache maintenance the target needs before the host reads the buffer is the kernel's.", hdr))
	g.P("//")
	g.P("// Configuration. Define these before including the header; the defaults suit a")
	g.P("// host compiler:")
	g.P("//")
	rows := append([]hook{
		{"CYCLEABI_FN", "qualifies every function.", "inline"},
		{"CYCLEABI_GM", "qualifies every pointer into the buffer.", "empty"},
	}, g.hooks()...)
	for _, h := range rows {
		g.P("//   %-28s %s", h.name, h.doc)
		g.P("//   %-28s Default: %s.", "", h.def)
	}
	g.P("//")
	g.P("//   AscendC:  #define CYCLEABI_ASCENDC (before the include) sets them all:")
	g.P("//             __aicore__ inline, __gm__, PipeBarrier<PIPE_ALL>() (so Now()")
	g.P("//             and the publish keep upstream's order), GetSystemCycle(),")
	g.P("//             Trap(), and the core type from __DAV_C220_CUBE__; it")
	g.P("//             includes kernel_operator.h.")
	g.P("//   CUDA:     #define CYCLEABI_CUDA sets __host__ __device__ __forceinline__,")
	g.P("//             %%globaltimer (ns) as the clock with no barrier before it,")
	g.P("//             __trap(), and a release store of record_count at GPU scope")
	g.P("//             (st.release.gpu; at system scope, st.release.sys, with")
	g.P("//             CYCLEABI_CUDA_SYSTEM_SCOPE, for a buffer in mapped host")
	g.P("//             memory) and no barrier. No core type: use DynamicRecorder.")
}

/*
#ifdef CYCLEABI_ASCENDC
#include "kernel_operator.h"
#ifndef CYCLEABI_FN
#define CYCLEABI_FN __aicore__ inline
#endif
...
#endif  // CYCLEABI_ASCENDC
*/
func (g *gen) genPreset() {
	g.P("// The AscendC preset: every qualifier and hook as an AscendC kernel needs them.")
	g.P("// Each one already defined is kept.")
	g.P("#ifdef CYCLEABI_ASCENDC")
	g.P("#include \"kernel_operator.h\"")
	g.defines([][2]string{
		{"CYCLEABI_FN", "__aicore__ inline"},
		{"CYCLEABI_GM", "__gm__"},
		{"CYCLEABI_BARRIER()", "AscendC::PipeBarrier<PIPE_ALL>()"},
		{"CYCLEABI_NOW()", "AscendC::GetSystemCycle()"},
		{"CYCLEABI_TRAP()", "AscendC::Trap()"},
	})
	// The cube side of a mixed kernel is compiled with __DAV_C220_CUBE__,
	// the vector side without it (as upstream's recorder tells them apart).
	aic, aiv := g.coreTypeNamed("AIC"), g.coreTypeNamed("AIV")
	if aic != nil && aiv != nil {
		g.P("#ifndef CYCLEABI_CORE_TYPE")
		g.P("#ifdef __DAV_C220_CUBE__")
		g.P("#define CYCLEABI_CORE_TYPE %d  // %s::%s", aic.Value, g.lay.CoreTypes.Name, aic.Name)
		g.P("#else")
		g.P("#define CYCLEABI_CORE_TYPE %d  // %s::%s", aiv.Value, g.lay.CoreTypes.Name, aiv.Name)
		g.P("#endif")
		g.P("#endif")
	}
	g.P("#endif  // CYCLEABI_ASCENDC")
	g.P("")
	g.genCUDAPreset()
}

// defines writes "#ifndef NAME / #define NAME(...) value / #endif" for each
// pair, so that a macro the kernel defined first is kept.
func (g *gen) defines(ds [][2]string) {
	for _, d := range ds {
		name := d[0]
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		g.P("#ifndef %s", name)
		g.P("#define %s %s", d[0], d[1])
		g.P("#endif")
	}
}

/*
#ifndef CYCLEABI_BARRIER
#define CYCLEABI_BARRIER() ((void)0)
#endif
...
*/
func (g *gen) genHookDefaults() {
	g.defines([][2]string{
		{"CYCLEABI_BARRIER()", "((void)0)"},
		{"CYCLEABI_PUBLISH_STORE(p, n)", "(*(p) = (n))"},
		{"CYCLEABI_NOW_BARRIER()", "CYCLEABI_BARRIER()"},
		{"CYCLEABI_NOW()", "0"},
		{"CYCLEABI_TRAP()", "((void)0)"},
		{"CYCLEABI_CUBE_SLOTS", "cycleabi::" + constName(g.lay.MinCubeSlots.Name)},
	})
	g.genPublishMode()
}

/*
namespace detail {

	CYCLEABI_FN void PutRecord(CYCLEABI_GM CoreHeader* header, uint32_t index, uint64_t start_cycle, ...) {
	  ... record fields ...
	}
	CYCLEABI_FN void PublishCount(CYCLEABI_GM CoreHeader* header, uint32_t count) { ... }

}  // namespace detail
*/
func (g *gen) genPutRecord() {
	lay := g.lay
	hdr, rec := lay.Header.Name, lay.Record.Name
	g.P("")
	g.P("namespace detail {")
	g.P("")
	g.comment("", "PutRecord writes the fields of record index of the slot whose header is header; PublishCount publishes it. index must be below the slot's record_capacity (the callers check it).")
	g.signature("CYCLEABI_FN void PutRecord", append([]string{"CYCLEABI_GM " + hdr + "* header", "uint32_t index"}, fieldDecls(g.recordParams())...))
	g.P("  CYCLEABI_GM uint8_t* records = reinterpret_cast<CYCLEABI_GM uint8_t*>(header) + %s;", constName(hdr, "Size"))
	g.P("  CYCLEABI_GM %s* record = reinterpret_cast<CYCLEABI_GM %s*>(records) + index;", rec, rec)
	for _, f := range lay.Record.Fields {
		if f.Type == schema.Pad {
			g.P("  for (uint32_t i = 0; i < %d; ++i) {", f.Size)
			g.P("    record->%s[i] = 0;", f.Name)
			g.P("  }")
			continue
		}
		g.P("  record->%s = %s;", f.Name, f.Name)
	}
	g.P("}")
	g.P("")
	g.comment("", "PublishCount publishes record_count = count after the records before it: CYCLEABI_BARRIER(), CYCLEABI_PUBLISH_STORE, CYCLEABI_BARRIER(). A reader that sees record_count N finds records 0..N-1 complete.")
	g.P("CYCLEABI_FN void PublishCount(CYCLEABI_GM %s* header, uint32_t count) {", hdr)
	g.P("  CYCLEABI_BARRIER();")
	g.P("  CYCLEABI_PUBLISH_STORE(&header->record_count, count);")
	g.P("  CYCLEABI_BARRIER();")
	g.P("}")
	g.P("")
	g.comment("", "PublishesAt reports whether Record publishes when the slot holds count records: always every record, at multiples of K every K, never at exit (Flush does).")
	g.P("CYCLEABI_FN constexpr bool PublishesAt(uint32_t count) {")
	g.P("  return kPublishInterval != 0 && count %% (kPublishInterval != 0 ? kPublishInterval : 1) == 0;")
	g.P("}")
	g.P("")
	g.P("}  // namespace detail")
}

/*
template <uint32_t kCubeSlots>
class DynamicRecorder { ... Init, Now, Record, Flush ... };
template <CoreType kCoreType, uint32_t kCubeSlots>
class BasicRecorder : public DynamicRecorder<kCubeSlots> { ... Init ... };
typedef BasicRecorder<static_cast<CoreType>(CYCLEABI_CORE_TYPE), CYCLEABI_CUBE_SLOTS> Recorder;
*/
func (g *gen) genRecorder() {
	lay := g.lay
	hdr := lay.Header.Name
	ct := lay.CoreTypes.Name
	minCube := constName(lay.MinCubeSlots.Name)
	dynamic := g.Declare("DynamicRecorder", "the device recorder", schema.Pos{})
	basic := g.Declare("BasicRecorder", "the device recorder", schema.Pos{})
	recorder := g.Declare("Recorder", "the device recorder", schema.Pos{})
	caps := g.capacityDecls()
	args := g.recordArgs()

	g.P("")
	g.P("// Device-side recorder.")
	g.P("")
	g.comment("", fmt.Sprintf("%s writes the slot of one core in a buffer with kCubeSlots cube slots, keeping the slot's record_count and record_capacity in the object; the core type is given to Init at run time, for a kernel whose blocks play several core types. %s fixes the core type at compile time, and %s is the one a kernel uses, for CYCLEABI_CORE_TYPE and CYCLEABI_CUBE_SLOTS.", dynamic, basic, recorder))
	g.P("template <uint32_t kCubeSlots>")
	g.P("class %s {", dynamic)
	g.P(" public:")
	g.P("  static_assert(kCubeSlots >= %s, \"%s: CYCLEABI_CUBE_SLOTS is below %s\");", minCube, dynamic, minCube)
	g.P("")
	g.comment("  ", "A recorder before Init, or after an Init that trapped, writes nothing: every Record is a drop that is not counted anywhere.")
	g.P("  CYCLEABI_FN %s() : header_(nullptr), count_(0), capacity_(0), dropped_(0) {}", dynamic)
	g.P("")
	g.comment("  ", fmt.Sprintf("Init is the core's kernel entry: it finds the slot of core (core_type, worker_id) in buffer and writes its %s (entry_cycle = Now(), record_count and dropped_count 0, the core type, worker_id, the region's record capacity, the rest zeroed). When a capacity is not valid (IsValidCapacity: a multiple of %s, at most %s) or the core has no slot, it calls CYCLEABI_TRAP() and writes nothing.",
		hdr, constName(lay.Alignment.Name), constName(lay.MaxRecordsPerCore.Name)))
	g.signature("  CYCLEABI_FN void Init", append([]string{ct + " core_type", "uint32_t worker_id", "CYCLEABI_GM uint8_t* buffer"}, caps...))
	g.P("    header_ = nullptr;")
	g.P("    count_ = 0;")
	g.P("    capacity_ = 0;")
	g.P("    dropped_ = 0;")
	var checks []string
	for _, p := range g.capacityParams() {
		checks = append(checks, "!IsValidCapacity("+p+")")
	}
	g.P("    if (%s) {", strings.Join(checks, " || "))
	g.P("      CYCLEABI_TRAP();")
	g.P("      return;")
	g.P("    }")
	g.P("    header_ = InitSlot(buffer, core_type, worker_id, kCubeSlots, %s, Now());", g.capacityArgs())
	g.P("    if (header_ == nullptr) {")
	g.P("      CYCLEABI_TRAP();")
	g.P("      return;")
	g.P("    }")
	g.P("    capacity_ = RecordCapacity(core_type, %s);", g.capacityArgs())
	g.P("  }")
	g.P("")
	g.comment("  ", "Now is the system counter after CYCLEABI_NOW_BARRIER() (by default CYCLEABI_BARRIER()), so that it counts the work issued before it where the target needs a barrier for that.")
	g.P("  CYCLEABI_FN uint64_t Now() const {")
	g.P("    CYCLEABI_NOW_BARRIER();")
	g.P("    return static_cast<uint64_t>(CYCLEABI_NOW());")
	g.P("  }")
	g.P("")
	g.comment("  ", "Record appends one record and returns true; when the slot is full it writes no record, counts it in dropped_count (a u32 that wraps after 2^32 - 1 drops) and returns false. The record is written before record_count is published (detail::PublishCount), which happens here after every record, after every K-th, or not at all (at exit), as the publish mode says.")
	g.signature("  CYCLEABI_FN bool Record", fieldDecls(args))
	g.P("    if (count_ >= capacity_) {")
	g.P("      if (header_ != nullptr) {")
	g.P("        header_->dropped_count = ++dropped_;")
	g.P("      }")
	g.P("      return false;")
	g.P("    }")
	g.P("    detail::PutRecord(header_, count_, %s);", strings.Join(fieldNames(g.recordParams()), ", "))
	g.P("    ++count_;")
	g.P("    if (detail::PublishesAt(count_)) {")
	g.P("      detail::PublishCount(header_, count_);")
	g.P("    }")
	g.P("    return true;")
	g.P("  }")
	g.P("")
	g.comment("  ", "Flush publishes every record written so far (record_count) unless Record already has; call it at kernel exit, and wherever a reader should see the records. In the every-record mode it does nothing.")
	g.P("  CYCLEABI_FN void Flush() {")
	g.P("    if (header_ != nullptr && !detail::PublishesAt(count_)) {")
	g.P("      detail::PublishCount(header_, count_);")
	g.P("    }")
	g.P("  }")
	g.P("")
	g.P(" private:")
	g.P("  CYCLEABI_GM %s* header_;", hdr)
	g.P("  uint32_t count_;")
	g.P("  uint32_t capacity_;")
	g.P("  uint32_t dropped_;")
	g.P("};")
	g.P("")
	g.comment("", fmt.Sprintf("%s is the %s of a core of type kCoreType.", basic, dynamic))
	g.P("template <%s kCoreType, uint32_t kCubeSlots>", ct)
	g.P("class %s : public %s<kCubeSlots> {", basic, dynamic)
	g.P(" public:")
	g.P("  static_assert(SlotCount(kCoreType, 1) != 0,")
	g.P("                \"%s: the core type is not a %s; define CYCLEABI_CORE_TYPE (%s) \"", basic, ct, g.coreTypeValues())
	g.P("                \"or CYCLEABI_ASCENDC before including %s\");", HeaderFile)
	g.P("")
	g.P("  CYCLEABI_FN %s() : %s<kCubeSlots>() {}", basic, dynamic)
	g.P("")
	g.comment("  ", fmt.Sprintf("Init is %s::Init for kCoreType: the core's kernel entry, upstream's signature.", dynamic))
	g.signature("  CYCLEABI_FN void Init", append([]string{"uint32_t worker_id", "CYCLEABI_GM uint8_t* buffer"}, caps...))
	g.P("    %s<kCubeSlots>::Init(kCoreType, worker_id, buffer, %s);", dynamic, g.capacityArgs())
	g.P("  }")
	g.P("};")
	g.P("")
	g.comment("", fmt.Sprintf("%s is the recorder of the core this file is compiled for. Without CYCLEABI_CORE_TYPE it names no core type, and using it stops at %s's static_assert.", recorder, basic))
	g.P("#ifdef CYCLEABI_CORE_TYPE")
	g.P("typedef %s<static_cast<%s>(CYCLEABI_CORE_TYPE), CYCLEABI_CUBE_SLOTS> %s;", basic, ct, recorder)
	g.P("#else")
	g.P("typedef %s<static_cast<%s>(%d), CYCLEABI_CUBE_SLOTS> %s;", basic, ct, g.notACoreType(), recorder)
	g.P("#endif")
}
