package abidiff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// comparer walks two schemas section by section and collects changes.
type comparer struct {
	old, new *schema.Schema
	changes  []Change
}

func (c *comparer) add(rule Rule, path string, oldPos, newPos schema.Pos, format string, args ...any) {
	c.changes = append(c.changes, Change{
		Rule:     rule,
		Category: rule.Category(),
		Path:     path,
		Message:  fmt.Sprintf(format, args...),
		Old:      Location{File: c.old.File, Line: oldPos.Line, Col: oldPos.Col},
		New:      Location{File: c.new.File, Line: newPos.Line, Col: newPos.Col},
	})
}

// doc reports a changed doc string.
func (c *comparer) doc(path string, oldPos, newPos schema.Pos, oldDoc, newDoc string) {
	if oldDoc != newDoc {
		c.add(DocChanged, path, oldPos, newPos, "doc %s -> %s", quoteShort(oldDoc), quoteShort(newDoc))
	}
}

func quoteShort(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		s = string(r[:max-3]) + "..."
	}
	return strconv.Quote(s)
}

var none schema.Pos

// matched pairs elements of two lists by key: pairs in old order, then the
// old-only and new-only elements in their lists' order.
type matched[T any] struct {
	pairs          [][2]T
	removed, added []T
}

func match[T any](old, new []T, key func(T) string) matched[T] {
	var m matched[T]
	inNew := map[string]T{}
	for _, n := range new {
		inNew[key(n)] = n
	}
	inOld := map[string]bool{}
	for _, o := range old {
		inOld[key(o)] = true
		if n, ok := inNew[key(o)]; ok {
			m.pairs = append(m.pairs, [2]T{o, n})
		} else {
			m.removed = append(m.removed, o)
		}
	}
	for _, n := range new {
		if !inOld[key(n)] {
			m.added = append(m.added, n)
		}
	}
	return m
}

// order reports when the elements both lists hold are in another order.
// The change points at the first element out of place.
func order[T any](c *comparer, path string, old, new []T, key func(T) string, pos func(T) schema.Pos) {
	inOld, inNew := map[string]T{}, map[string]T{}
	for _, o := range old {
		inOld[key(o)] = o
	}
	for _, n := range new {
		inNew[key(n)] = n
	}
	var oldKeys, newKeys []string
	for _, o := range old {
		if _, ok := inNew[key(o)]; ok {
			oldKeys = append(oldKeys, key(o))
		}
	}
	for _, n := range new {
		if _, ok := inOld[key(n)]; ok {
			newKeys = append(newKeys, key(n))
		}
	}
	for i := range newKeys {
		if newKeys[i] != oldKeys[i] {
			k := newKeys[i]
			c.add(OrderChanged, path, pos(inOld[k]), pos(inNew[k]), "%s now comes before %s", k, oldKeys[i])
			return
		}
	}
}

func (c *comparer) version() {
	o, n := c.old, c.new
	switch {
	case n.Version > o.Version:
		c.add(VersionRaised, "version", o.VersionPos, n.VersionPos, "version %d -> %d", o.Version, n.Version)
	case n.Version < o.Version:
		c.add(VersionLowered, "version", o.VersionPos, n.VersionPos, "version %d -> %d: versions only go up", o.Version, n.Version)
	}
	if o.Fingerprint != n.Fingerprint {
		c.add(FingerprintChanged, "fingerprint", o.VersionPos, n.VersionPos,
			"fingerprint %s -> %s: a device build stamped with one does not match a decoder built with the other",
			o.FingerprintHex(), n.FingerprintHex())
	}
}

// layoutConstants are the names of the constants the layout depends on,
// on either side.
func (c *comparer) layoutConstants() map[string]bool {
	m := map[string]bool{}
	for _, s := range []*schema.Schema{c.old, c.new} {
		if l := s.Layout; l != nil {
			for _, k := range []*schema.Constant{l.Alignment, l.MinCubeSlots, l.StrideLimit, l.MaxRecordsPerCore} {
				if k != nil {
					m[k.Name] = true
				}
			}
		}
	}
	return m
}

func constName(k *schema.Constant) string    { return k.Name }
func constPos(k *schema.Constant) schema.Pos { return k.Pos }

func (c *comparer) constants() {
	layoutConst := c.layoutConstants()
	m := match(c.old.Constants, c.new.Constants, constName)
	for _, p := range m.pairs {
		o, n := p[0], p[1]
		path := "constants." + n.Name
		if o.Value != n.Value {
			rule, why := ConstantChanged, ""
			if layoutConst[n.Name] {
				rule, why = LayoutConstantChanged, ": slot strides, capacities or the buffer size move"
			}
			derived := ""
			if n.Derived != "" {
				derived = " (derived: " + n.Derived + ")"
			}
			c.add(rule, path, o.Pos, n.Pos, "value %s -> %s%s%s", number(o.Value), number(n.Value), derived, why)
		}
		c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)
	}
	for _, o := range m.removed {
		c.add(ConstantRemoved, "constants."+o.Name, o.Pos, none, "removed (value %s)", number(o.Value))
	}
	for _, n := range m.added {
		c.add(ConstantAdded, "constants."+n.Name, none, n.Pos, "added (value %s)", number(n.Value))
	}
	order(c, "constants", c.old.Constants, c.new.Constants, constName, constPos)
}

// number prints a value in decimal, and in hex too when that reads better.
func number(v uint64) string {
	if v < 1024 {
		return strconv.FormatUint(v, 10)
	}
	return fmt.Sprintf("%d (0x%x)", v, v)
}

func enumName(e *schema.Enum) string            { return e.Name }
func enumPos(e *schema.Enum) schema.Pos         { return e.Pos }
func valueName(v *schema.EnumValue) string      { return v.Name }
func valuePos(v *schema.EnumValue) schema.Pos   { return v.Pos }
func valueNumber(v *schema.EnumValue) string    { return strconv.FormatUint(uint64(v.Value), 10) }
func structName(s *schema.Struct) string        { return s.Name }
func structPos(s *schema.Struct) schema.Pos     { return s.Pos }
func fieldName(f *schema.Field) string          { return f.Name }
func fieldPos(f *schema.Field) schema.Pos       { return f.Pos }
func nsName(n *schema.Namespace) string         { return n.Name }
func nsPos(n *schema.Namespace) schema.Pos      { return n.Pos }
func descIndex(d *schema.DescName) string       { return strconv.FormatUint(uint64(d.Index), 10) }
func socPrefix(s *schema.SoC) string            { return s.Prefix }
func socPos(s *schema.SoC) schema.Pos           { return s.Pos }
func descNamePos(d *schema.DescName) schema.Pos { return d.Pos }

func (c *comparer) enums() {
	m := match(c.old.Enums, c.new.Enums, enumName)
	for _, p := range m.pairs {
		c.enum(p[0], p[1])
	}
	for _, o := range m.removed {
		c.add(EnumRemoved, "enums."+o.Name, o.Pos, none, "removed (%d values)", len(o.Values))
	}
	for _, n := range m.added {
		c.add(EnumAdded, "enums."+n.Name, none, n.Pos, "added (%d values)", len(n.Values))
	}
	order(c, "enums", c.old.Enums, c.new.Enums, enumName, enumPos)
}

// namingNamespace returns the namespace of s that takes its names from the
// enum called name, or nil.
func namingNamespace(s *schema.Schema, name string) *schema.Namespace {
	if s.Descriptors == nil {
		return nil
	}
	for _, ns := range s.Descriptors.Namespaces {
		if ns.Enum != nil && ns.Enum.Name == name {
			return ns
		}
	}
	return nil
}

func (c *comparer) enum(o, n *schema.Enum) {
	path := "enums." + n.Name
	c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)
	m := match(o.Values, n.Values, valueName)
	for _, p := range m.pairs {
		ov, nv := p[0], p[1]
		vpath := path + "." + nv.Name
		if ov.Value != nv.Value {
			c.add(EnumValueRenumbered, vpath, ov.Pos, nv.Pos, "value %d -> %d: %s", ov.Value, nv.Value, reading(n, ov.Value))
		}
		c.doc(vpath, ov.Pos, nv.Pos, ov.Doc, nv.Doc)
	}
	// A member that kept its number but not its name was renamed.
	renamed := match(m.removed, m.added, valueNumber)
	ns := namingNamespace(c.new, n.Name)
	for _, p := range renamed.pairs {
		ov, nv := p[0], p[1]
		vpath := path + "." + nv.Name
		if ns != nil {
			id := uint64(ns.Base) + uint64(nv.Value)
			c.add(TaskTypeRenamed, vpath, ov.Pos, nv.Pos, "%d renamed %s -> %s: desc_id 0x%x displays as %s, was %s",
				nv.Value, ov.Name, nv.Name, id, display(ns.Display, nv.Name, nv.Value, id), display(ns.Display, ov.Name, ov.Value, id))
		} else {
			c.add(EnumValueRenamed, vpath, ov.Pos, nv.Pos, "%d renamed %s -> %s", nv.Value, ov.Name, nv.Name)
		}
		c.doc(vpath, ov.Pos, nv.Pos, ov.Doc, nv.Doc)
	}
	for _, ov := range renamed.removed {
		c.add(EnumValueRemoved, path+"."+ov.Name, ov.Pos, none, "%s = %d removed: %s", ov.Name, ov.Value, reading(n, ov.Value))
	}
	for _, nv := range renamed.added {
		c.add(EnumValueAdded, path+"."+nv.Name, none, nv.Pos, "%s = %d added", nv.Name, nv.Value)
	}
	order(c, path+".values", o.Values, n.Values, valueName, valuePos)
}

// reading says how the new enum e reads a value v written under the old ABI.
func reading(e *schema.Enum, v uint32) string {
	for _, m := range e.Values {
		if m.Value == v {
			return fmt.Sprintf("a %d written under the old ABI now reads as %s", v, m.Name)
		}
	}
	return fmt.Sprintf("a %d written under the old ABI is no longer a %s", v, e.Name)
}

// display fills a descriptor display format.
func display(format, name string, index uint32, descID uint64) string {
	return strings.NewReplacer("{name}", name, "{index}", strconv.FormatUint(uint64(index), 10),
		"{desc_id}", strconv.FormatUint(descID, 10)).Replace(format)
}

func (c *comparer) structs() {
	m := match(c.old.Structs, c.new.Structs, structName)
	for _, p := range m.pairs {
		c.structure(p[0], p[1])
	}
	for _, o := range m.removed {
		c.add(StructRemoved, "structs."+o.Name, o.Pos, none, "removed (%d bytes)", o.Size)
	}
	for _, n := range m.added {
		c.add(StructAdded, "structs."+n.Name, none, n.Pos, "added (%d bytes)", n.Size)
	}
	order(c, "structs", c.old.Structs, c.new.Structs, structName, structPos)
}

// layoutRole says what a size change of the struct called name moves when
// the layout uses it.
func (c *comparer) layoutRole(name string) string {
	if l := c.new.Layout; l != nil {
		switch name {
		case l.Header.Name:
			return ": every slot stride and every record after the header moves"
		case l.Record.Name:
			return ": every slot stride and every record after the first moves"
		}
	}
	return ""
}

// occupants describes what bytes [off, end) of st held.
func occupants(st *schema.Struct, off, end int) string {
	var names []string
	for _, f := range st.Fields {
		if f.Offset < end && off < f.End() {
			names = append(names, f.Name)
		}
	}
	if end > st.Size {
		names = append(names, fmt.Sprintf("past the end of the old %d-byte struct", st.Size))
	}
	return strings.Join(names, ", ")
}

func (c *comparer) structure(o, n *schema.Struct) {
	path := "structs." + n.Name
	if o.Size != n.Size {
		c.add(StructSize, path, o.Pos, n.Pos, "size %d -> %d bytes%s", o.Size, n.Size, c.layoutRole(n.Name))
	}
	c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)

	m := match(o.Fields, n.Fields, fieldName)
	// A field that kept its bytes but not its name was renamed.
	bytesKey := func(f *schema.Field) string { return fmt.Sprintf("%s@%d+%d", f.Type, f.Offset, f.Size) }
	renamed := match(m.removed, m.added, bytesKey)
	// oldOf maps each new field to the old field it continues, so checks
	// that name a renamed field still compare equal.
	oldOf := map[*schema.Field]*schema.Field{}
	for _, p := range append(slices.Clone(m.pairs), renamed.pairs...) {
		oldOf[p[1]] = p[0]
	}
	for _, p := range m.pairs {
		of, nf := p[0], p[1]
		fpath := path + ".fields." + nf.Name
		if of.Offset != nf.Offset {
			c.add(FieldOffset, fpath, of.Pos, nf.Pos, "offset %d -> %d (bytes %d..%d were %s)",
				of.Offset, nf.Offset, nf.Offset, nf.End(), occupants(o, nf.Offset, nf.End()))
		}
		switch {
		case of.Type != nf.Type:
			c.add(FieldType, fpath, of.Pos, nf.Pos, "type %s -> %s (%d -> %d bytes)", of.Type, nf.Type, of.Size, nf.Size)
		case of.Size != nf.Size:
			c.add(FieldWidth, fpath, of.Pos, nf.Pos, "size %d -> %d bytes", of.Size, nf.Size)
		}
		c.checks(fpath, of, nf, oldOf)
		c.doc(fpath, of.Pos, nf.Pos, of.Doc, nf.Doc)
	}
	for _, p := range renamed.pairs {
		of, nf := p[0], p[1]
		fpath := path + ".fields." + nf.Name
		c.add(FieldRenamed, fpath, of.Pos, nf.Pos, "%s renamed %s -> %s (bytes %d..%d unchanged)", n.Name, of.Name, nf.Name, nf.Offset, nf.End())
		c.checks(fpath, of, nf, oldOf)
		c.doc(fpath, of.Pos, nf.Pos, of.Doc, nf.Doc)
	}
	for _, of := range renamed.removed {
		now := occupants(n, of.Offset, of.End())
		if of.End() > n.Size {
			now = fmt.Sprintf("past the end of the new %d-byte struct", n.Size)
		}
		c.add(FieldRemoved, path+".fields."+of.Name, of.Pos, none, "removed (%s at bytes %d..%d, now %s)", of.Type, of.Offset, of.End(), now)
	}
	for _, nf := range renamed.added {
		fpath := path + ".fields." + nf.Name
		// New padding over old padding changes no meaning; a value in
		// bytes that were padding is one old writers never set.
		if nf.Type != schema.Pad && overlapsPadding(o, nf) {
			c.add(PaddingReused, fpath, none, nf.Pos, "new %s at bytes %d..%d, which were %s: old writers leave them zero or garbage",
				nf.Type, nf.Offset, nf.End(), occupants(o, nf.Offset, nf.End()))
		} else {
			c.add(FieldAdded, fpath, none, nf.Pos, "new %s at bytes %d..%d, which were %s", nf.Type, nf.Offset, nf.End(), occupants(o, nf.Offset, nf.End()))
		}
	}
}

// overlapsPadding reports whether f's bytes overlap a pad field of st.
func overlapsPadding(st *schema.Struct, f *schema.Field) bool {
	for _, of := range st.Fields {
		if of.Type == schema.Pad && of.Offset < f.End() && f.Offset < of.End() {
			return true
		}
	}
	return false
}

// check is one validation check of a field as each side has it.
type check struct {
	key, what      string // "min_field", ">= "
	oldHas, newHas bool
	oldArg, newArg string
	same           bool
}

// checks compares the validation checks of a field on both sides. oldOf
// maps a new field to the old field it continues, so a check naming a
// renamed field is still the same check.
func (c *comparer) checks(path string, o, n *schema.Field, oldOf map[*schema.Field]*schema.Field) {
	enum := func(e *schema.Enum) string {
		if e == nil {
			return ""
		}
		return e.Name
	}
	ref := func(key, what string, of, nf *schema.Field) check {
		k := check{key: key, what: what, oldHas: of != nil, newHas: nf != nil}
		if of != nil {
			k.oldArg = of.Name
		}
		if nf != nil {
			k.newArg = nf.Name
		}
		k.same = of == nil && nf == nil || of != nil && nf != nil && oldOf[nf] == of
		return k
	}
	for _, k := range []check{
		{key: "zero", what: "must be 0", oldHas: o.Zero, newHas: n.Zero, same: o.Zero == n.Zero},
		{key: "enum", what: "a member of ", oldHas: o.Enum != nil, newHas: n.Enum != nil,
			oldArg: enum(o.Enum), newArg: enum(n.Enum), same: enum(o.Enum) == enum(n.Enum)},
		ref("min_field", ">= ", o.MinField, n.MinField),
		ref("max_field", "<= ", o.MaxField, n.MaxField),
	} {
		switch {
		case k.same:
		case !k.oldHas:
			c.add(FieldCheckAdded, path, o.Pos, n.Pos, "new check %s (%s%s): buffers valid before may be rejected", k.key, k.what, k.newArg)
		case !k.newHas:
			c.add(FieldCheckRemoved, path, o.Pos, n.Pos, "check %s (%s%s) removed", k.key, k.what, k.oldArg)
		default:
			c.add(FieldCheckChanged, path, o.Pos, n.Pos, "check %s: %s%s -> %s%s", k.key, k.what, k.oldArg, k.what, k.newArg)
		}
	}
	if o.WarnNonzero != n.WarnNonzero {
		c.add(FieldWarningChanged, path, o.Pos, n.Pos, "warn_nonzero %t -> %t", o.WarnNonzero, n.WarnNonzero)
	}
}

func (c *comparer) layout() {
	o, n := c.old.Layout, c.new.Layout
	if o == nil || n == nil {
		// Load never returns a schema without a layout.
		return
	}
	for _, s := range []struct {
		key  string
		o, n *schema.Struct
	}{{"header", o.Header, n.Header}, {"record", o.Record, n.Record}} {
		if s.o.Name != s.n.Name {
			c.add(LayoutStructChanged, "layout."+s.key, o.Pos, n.Pos, "%s %s (%d bytes) -> %s (%d bytes)", s.key, s.o.Name, s.o.Size, s.n.Name, s.n.Size)
		}
	}
	for _, k := range []struct {
		key  string
		o, n *schema.Constant
	}{{"capacity_alignment", o.Alignment, n.Alignment}, {"min_cube_slots", o.MinCubeSlots, n.MinCubeSlots}, {"slot_stride_limit", o.StrideLimit, n.StrideLimit}} {
		if k.o.Name != k.n.Name {
			c.add(LayoutConstantChanged, "layout."+k.key, o.Pos, n.Pos, "%s names %s (%s), was %s (%s)", k.key, k.n.Name, number(k.n.Value), k.o.Name, number(k.o.Value))
		}
	}
	region := func(r *schema.Region) string { return fmt.Sprintf("%s x%d", r.CoreType.Name, r.SlotsPerCubeSlot) }
	for i := range max(len(o.Regions), len(n.Regions)) {
		path := fmt.Sprintf("layout.regions[%d]", i)
		switch {
		case i >= len(n.Regions):
			or := o.Regions[i]
			c.add(RegionChanged, path, or.Pos, none, "region %s removed: the buffer shrinks", region(or))
		case i >= len(o.Regions):
			nr := n.Regions[i]
			c.add(RegionChanged, path, none, nr.Pos, "region %s added: the buffer grows", region(nr))
		default:
			or, nr := o.Regions[i], n.Regions[i]
			// Compared by core-type value: renaming AIV is an enum change,
			// not a region change.
			switch {
			case or.CoreType.Value != nr.CoreType.Value:
				c.add(RegionChanged, path, or.Pos, nr.Pos, "region %s -> %s: every slot from here on moves", region(or), region(nr))
			case or.SlotsPerCubeSlot != nr.SlotsPerCubeSlot:
				moves := "its slot count changes and every later region moves"
				if i == len(n.Regions)-1 {
					moves = "its slot count and the buffer size change"
				}
				c.add(RegionChanged, path, or.Pos, nr.Pos, "region %s -> %s: %s", region(or), region(nr), moves)
			}
			c.doc(path, or.Pos, nr.Pos, or.Doc, nr.Doc)
		}
	}
}

func (c *comparer) descriptors() {
	o, n := c.old.Descriptors, c.new.Descriptors
	if o == nil || n == nil {
		// Load never returns a schema without descriptors.
		return
	}
	if o.Unknown != n.Unknown {
		c.add(NamespaceFormatChanged, "descriptors.unknown", o.Pos, n.Pos, "unknown-id format %q -> %q", o.Unknown, n.Unknown)
	}
	m := match(o.Namespaces, n.Namespaces, nsName)
	rangeKey := func(ns *schema.Namespace) string { return fmt.Sprintf("%x+%x", ns.Base, ns.Count) }
	renamed := match(m.removed, m.added, rangeKey)
	for _, p := range m.pairs {
		c.namespace(p[0], p[1])
	}
	for _, p := range renamed.pairs {
		on, nn := p[0], p[1]
		c.add(NamespaceRenamed, "descriptors."+nn.Name, on.Pos, nn.Pos, "%s renamed %s -> %s (range %s unchanged)", "namespace", on.Name, nn.Name, span(nn))
		c.namespace(on, nn)
	}
	for _, on := range renamed.removed {
		c.add(NamespaceRemoved, "descriptors."+on.Name, on.Pos, none, "removed: desc_ids %s display as unknown", span(on))
	}
	for _, nn := range renamed.added {
		c.add(NamespaceAdded, "descriptors."+nn.Name, none, nn.Pos, "added: desc_ids %s", span(nn))
	}
	order(c, "descriptors.namespaces", o.Namespaces, n.Namespaces, nsName, nsPos)
}

func span(ns *schema.Namespace) string { return fmt.Sprintf("[0x%x, 0x%x)", ns.Base, ns.End()) }

func (c *comparer) namespace(o, n *schema.Namespace) {
	path := "descriptors." + n.Name
	if o.Base != n.Base {
		c.add(NamespaceMoved, path, o.Pos, n.Pos, "base 0x%x -> 0x%x: %s -> %s", o.Base, n.Base, span(o), span(n))
	}
	if o.Count != n.Count {
		c.add(NamespaceResized, path, o.Pos, n.Pos, "count 0x%x -> 0x%x: %s -> %s", o.Count, n.Count, span(o), span(n))
	}
	oe, ne := "", ""
	if o.Enum != nil {
		oe = o.Enum.Name
	}
	if n.Enum != nil {
		ne = n.Enum.Name
	}
	if oe != ne {
		c.add(NamespaceEnumChanged, path, o.Pos, n.Pos, "names from enum %q -> %q", oe, ne)
	}
	for _, f := range []struct{ key, o, n string }{{"display", o.Display, n.Display}, {"fallback", o.Fallback, n.Fallback}, {"arg", o.Arg, n.Arg}} {
		if f.o != f.n {
			c.add(NamespaceFormatChanged, path+"."+f.key, o.Pos, n.Pos, "%s %q -> %q", f.key, f.o, f.n)
		}
	}
	c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)
	m := match(o.Names, n.Names, descIndex)
	for _, p := range m.pairs {
		od, nd := p[0], p[1]
		dpath := fmt.Sprintf("%s.names[%d]", path, nd.Index)
		id := uint64(n.Base) + uint64(nd.Index)
		if od.Name != nd.Name {
			c.add(StageRenamed, dpath, od.Pos, nd.Pos, "desc_id 0x%x renamed %s -> %s", id, od.Name, nd.Name)
		}
		if od.TaskStagePrefix != nd.TaskStagePrefix {
			c.add(StagePrefixChanged, dpath, od.Pos, nd.Pos, "desc_id 0x%x (%s) task_stage_prefix %t -> %t", id, nd.Name, od.TaskStagePrefix, nd.TaskStagePrefix)
		}
		c.doc(dpath, od.Pos, nd.Pos, od.Doc, nd.Doc)
	}
	for _, od := range m.removed {
		id := uint64(o.Base) + uint64(od.Index)
		c.add(StageRemoved, fmt.Sprintf("%s.names[%d]", path, od.Index), od.Pos, none, "desc_id 0x%x (%s) removed: it displays as %s",
			id, od.Name, display(n.Fallback, "", od.Index, id))
	}
	for _, nd := range m.added {
		id := uint64(n.Base) + uint64(nd.Index)
		c.add(StageAdded, fmt.Sprintf("%s.names[%d]", path, nd.Index), none, nd.Pos, "desc_id 0x%x named %s", id, nd.Name)
	}
	order(c, path+".names", o.Names, n.Names, descIndex, descNamePos)
}

func (c *comparer) socs() {
	m := match(c.old.SoCs, c.new.SoCs, socPrefix)
	for _, p := range m.pairs {
		o, n := p[0], p[1]
		path := "socs." + n.Prefix
		if o.MHz != n.MHz {
			c.add(SoCChanged, path, o.Pos, n.Pos, "%s MHz -> %s MHz: every timestamp for it moves", mhz(o.MHz), mhz(n.MHz))
		}
		c.doc(path, o.Pos, n.Pos, o.Doc, n.Doc)
	}
	for _, o := range m.removed {
		c.add(SoCRemoved, "socs."+o.Prefix, o.Pos, none, "removed (%s MHz): its traces no longer decode", mhz(o.MHz))
	}
	for _, n := range m.added {
		// Names are matched by the first prefix in order; a new prefix that
		// extends an old one takes some of its names.
		if shadowed := shadowedBy(c.old.SoCs, n); shadowed != nil && shadowed.MHz != n.MHz {
			c.add(SoCShadowed, "socs."+n.Prefix, shadowed.Pos, n.Pos, "new prefix %s (%s MHz) takes names %s (%s MHz) matched",
				n.Prefix, mhz(n.MHz), shadowed.Prefix, mhz(shadowed.MHz))
			continue
		}
		c.add(SoCAdded, "socs."+n.Prefix, none, n.Pos, "added (%s MHz)", mhz(n.MHz))
	}
	order(c, "socs", c.old.SoCs, c.new.SoCs, socPrefix, socPos)
}

// shadowedBy returns the old SoC that matched names starting with n's
// prefix: the first old prefix that n's prefix extends.
func shadowedBy(old []*schema.SoC, n *schema.SoC) *schema.SoC {
	for _, o := range old {
		if strings.HasPrefix(n.Prefix, o.Prefix) {
			return o
		}
	}
	return nil
}

func mhz(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
