package schema

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// The writer helpers of both emitters and the decoder address these fields
// by name, so the layout's header and record must have them.
var (
	headerRoles = []fieldRole{{"entry_cycle", U64}, {"record_count", U32}, {"dropped_count", U32}, {"core_type", U32}, {"block_id", U32}, {"record_capacity", U32}, {"reserved", U32}}
	recordRoles = []fieldRole{{"start_cycle", U64}, {"end_cycle", U64}, {"desc_id", U32}, {"task_id", U32}, {"stage_task_index", U32}, {"owner_id", U32}}
)

// fieldRole is a field the code addresses by name, with its type.
type fieldRole struct {
	name string
	typ  FieldType
}

// layoutLoad is the reading of the layout section: its fields, what it
// has built, and whether everything so far checked out (ok false stops
// the checks that need what failed).
type layoutLoad struct {
	l   *loader
	m   map[string]*yaml.Node
	lay *Layout
	ok  bool
}

// layoutPath is the layout section's path in problems.
const layoutPath = "layout"

// layout reads the layout section in three stages: what it names (the
// header and record structs, the constants) and the checks on them, the
// regions, and the derived MaxRecordsPerCore constant.
func (l *loader) layout(n *yaml.Node, global *names) {
	m := l.fields(n, layoutPath, []string{"header", "record", "capacity_alignment", "min_cube_slots", "slot_stride_limit", "regions"}, nil)
	if m == nil {
		return
	}
	ll := &layoutLoad{l: l, m: m, lay: &Layout{Pos: pos(n)}, ok: true}
	ll.references()
	ll.regions()
	if !ll.ok || !ll.maxRecords() {
		return
	}
	lay := ll.lay
	if global.add(n, layoutPath, lay.MaxRecordsPerCore.Name) {
		l.s.Constants = append(l.s.Constants, lay.MaxRecordsPerCore)
	}
	l.s.Layout = lay
}

// fail reports a problem at the layout's key and marks the layout bad.
func (ll *layoutLoad) fail(key, format string, args ...any) {
	ll.l.Errorf(ll.m[key], layoutPath+"."+key, format, args...)
	ll.ok = false
}

// structRef resolves the struct the layout's key names.
func (ll *layoutLoad) structRef(key string) *Struct {
	name, ok := ll.l.Str(ll.m[key], layoutPath+"."+key)
	if !ok {
		ll.ok = false
		return nil
	}
	st := ll.l.s.Struct(name)
	if st == nil {
		ll.fail(key, "unknown struct %q", name)
	}
	return st
}

// constRef resolves the constant the layout's key names.
func (ll *layoutLoad) constRef(key string) *Constant {
	name, ok := ll.l.Str(ll.m[key], layoutPath+"."+key)
	if !ok {
		ll.ok = false
		return nil
	}
	c := ll.l.s.Constant(name)
	if c == nil {
		ll.fail(key, "unknown constant %q", name)
	}
	return c
}

// checkRoles requires of st (the layout's key) the fields the code uses.
func (ll *layoutLoad) checkRoles(st *Struct, key string, roles []fieldRole) {
	if st == nil {
		return
	}
	for _, r := range roles {
		if f := st.Field(r.name); f == nil || f.Type != r.typ {
			ll.fail(key, "%s needs a %s field %q (the writer helpers and decoder use it)", st.Name, r.typ, r.name)
		}
	}
}

// references resolves the structs and constants the layout names and
// checks them: the fields the code uses, the core type's enum, the
// constants' ranges.
func (ll *layoutLoad) references() {
	lay := ll.lay
	lay.Header = ll.structRef("header")
	lay.Record = ll.structRef("record")
	lay.Alignment = ll.constRef("capacity_alignment")
	lay.MinCubeSlots = ll.constRef("min_cube_slots")
	lay.StrideLimit = ll.constRef("slot_stride_limit")
	ll.checkRoles(lay.Header, "header", headerRoles)
	ll.checkRoles(lay.Record, "record", recordRoles)
	if lay.Header != nil {
		if f := lay.Header.Field("core_type"); f != nil {
			lay.CoreTypes = f.Enum
		}
		if lay.CoreTypes == nil {
			ll.fail("header", "%s.core_type must name its enum (enum: CoreType)", lay.Header.Name)
		}
	}
	if lay.Alignment != nil && lay.Alignment.Value == 0 {
		ll.fail("capacity_alignment", "%s must be positive", lay.Alignment.Name)
	}
	if lay.MinCubeSlots != nil && (lay.MinCubeSlots.Value == 0 || lay.MinCubeSlots.Value > math.MaxUint32) {
		ll.fail("min_cube_slots", "%s must be between 1 and 2^32-1", lay.MinCubeSlots.Name)
	}
	if lay.StrideLimit != nil && lay.StrideLimit.Value > math.MaxUint32 {
		ll.fail("slot_stride_limit", "%s must fit in a u32", lay.StrideLimit.Name)
	}
}

// regions reads the regions: one per core type, each a positive slot
// count per cube slot.
func (ll *layoutLoad) regions() {
	l, lay := ll.l, ll.lay
	if ll.m["regions"] == nil {
		ll.ok = false // missing, reported by fields; "no region for" would repeat it
	}
	seen := map[string]bool{}
	for i, rn := range l.Seq(ll.m["regions"], layoutPath+".regions") {
		if r := ll.region(i, rn, seen); r != nil {
			lay.Regions = append(lay.Regions, r)
		}
	}
	if lay.CoreTypes != nil && ll.ok {
		for _, v := range lay.CoreTypes.Values {
			if !seen[v.Name] {
				ll.fail("regions", "no region for %s %s", lay.CoreTypes.Name, v.Name)
			}
		}
	}
}

// region reads regions[i], noting its core type in seen; nil when it is
// not a mapping of the region's fields.
func (ll *layoutLoad) region(i int, rn *yaml.Node, seen map[string]bool) *Region {
	l, lay := ll.l, ll.lay
	rpath := fmt.Sprintf("%s.regions[%d]", layoutPath, i)
	rm := l.fields(rn, rpath, []string{"core_type", "slots_per_cube_slot", "doc"}, nil)
	if rm == nil {
		ll.ok = false
		return nil
	}
	r := &Region{Doc: l.doc(rm, rpath), Pos: pos(rn)}
	if ct, cok := l.Str(rm["core_type"], rpath+".core_type"); cok && lay.CoreTypes != nil {
		if r.CoreType = lay.CoreTypes.Value(ct); r.CoreType == nil {
			l.Errorf(rm["core_type"], rpath+".core_type", "%q is not a %s", ct, lay.CoreTypes.Name)
			ll.ok = false
		} else if seen[ct] {
			l.Errorf(rm["core_type"], rpath+".core_type", "a second region for %s", ct)
			ll.ok = false
		}
		seen[ct] = true
	} else {
		ll.ok = false
	}
	if k, kok := l.Uint(rm["slots_per_cube_slot"], rpath+".slots_per_cube_slot", 64); kok && k > 0 {
		r.SlotsPerCubeSlot = int(k)
	} else {
		if kok {
			l.Errorf(rm["slots_per_cube_slot"], rpath+".slots_per_cube_slot", "must be positive")
		}
		ll.ok = false
	}
	return r
}

// maxRecords derives MaxRecordsPerCore from the stride limit, the header
// and record sizes and the alignment; false when they leave no room.
func (ll *layoutLoad) maxRecords() bool {
	lay := ll.lay
	hdr, rec, align := uint64(lay.Header.Size), uint64(lay.Record.Size), lay.Alignment.Value
	if rec == 0 {
		// A record struct declared with size 0 is already reported (its
		// fields end past it); do not divide by it.
		return false
	}
	// Divide rather than multiply: rec*align may overflow 64 bits and wrap
	// to a small value that passes, deriving MaxRecordsPerCore = 0.
	if lay.StrideLimit.Value < hdr || (lay.StrideLimit.Value-hdr)/rec < align {
		ll.l.Errorf(ll.m["slot_stride_limit"], layoutPath+".slot_stride_limit", "%s %d leaves no room for %d records", lay.StrideLimit.Name, lay.StrideLimit.Value, align)
		return false
	}
	maxRecords := (lay.StrideLimit.Value - hdr) / rec / align * align
	lay.MaxRecordsPerCore = &Constant{
		Name:  "MaxRecordsPerCore",
		Value: maxRecords,
		Doc:   "The largest record capacity of one slot: its stride must not exceed " + lay.StrideLimit.Name + ".",
		Derived: fmt.Sprintf("(%s - sizeof(%s)) / sizeof(%s) / %s * %s",
			lay.StrideLimit.Name, lay.Header.Name, lay.Record.Name, lay.Alignment.Name, lay.Alignment.Name),
		Pos: lay.Pos,
	}
	return true
}
