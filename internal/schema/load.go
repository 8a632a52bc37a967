package schema

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Error is one problem in a schema file, printed as
// "abi/schema.yaml:41:7: structs.CoreHeader.fields[6]: offset 28 overlaps field ending at 32".
type Error = yamlpos.Error

// ErrorList is every problem Load found, in file order.
type ErrorList = yamlpos.List

// LoadFile reads and validates the schema at path. A missing file is one
// error naming it; a bad schema is an ErrorList. The file is read and
// parsed under the size caps of package yamlpos.
func LoadFile(path string) (*Schema, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	data, err := yamlpos.ReadDocumentFile(path, "schema file", lim, nil, "")
	if err != nil {
		return nil, err
	}
	return loadText(path, data, lim)
}

// Load validates the schema text data; file names it in errors.
func Load(file string, data []byte) (*Schema, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	return loadText(file, data, lim)
}

func loadText(file string, data []byte, lim yamlpos.Limits) (*Schema, error) {
	l := &loader{Reader: yamlpos.Reader{File: file}, s: &Schema{File: file}}
	root, err := yamlpos.Document(file, "YAML", data, lim, "")
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil, err
		}
		l.Errs.Add(e)
		return nil, &l.Errs
	}
	if root == nil {
		// An empty document has no node to point at: report line 1.
		l.Errs.Add(&Error{File: file, Line: 1, Col: 1, Msg: "empty schema"})
		return nil, &l.Errs
	}
	l.top(root)
	if l.Errs.Len() > 0 {
		l.Errs.Sort()
		return nil, &l.Errs
	}
	l.s.Fingerprint = fingerprint(l.s)
	return l.s, nil
}

// loader reads the schema's nodes; its Errs are every problem (a schema
// is small, so no cap).
type loader struct {
	yamlpos.Reader
	s *Schema
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

// fields reads a mapping node with the keys in required (which must be
// present) and optional.
func (l *loader) fields(n *yaml.Node, path string, required, optional []string) map[string]*yaml.Node {
	return l.Mapping(n, path, append(append([]string{}, required...), optional...), required)
}

// flag reads an optional true or false.
func (l *loader) flag(n *yaml.Node, path string) bool {
	b, _ := l.Bool(n, path)
	return b
}

func (l *loader) doc(m map[string]*yaml.Node, path string) string {
	d, _ := l.Str(m["doc"], path+".doc")
	d = strings.TrimSpace(d)
	if problem := unsafeDoc(d); problem != "" {
		l.Errorf(m["doc"], path+".doc", "%s", problem)
		return ""
	}
	return d
}

// unsafeDoc says why doc text cannot go into every generated file, or "".
// Docs become comments in Go, C++ and Python and text in Markdown. Each
// emitter makes ordinary text safe for its language (the C++ emitter never
// ends a wrapped // line with a backslash it can move), but a control
// character (a NUL, a bare carriage return, a form feed) or a Unicode line
// separator means something different to each compiler and editor, and a
// doc that ends in a backslash, or in the trigraph ??/ (a backslash to
// -std=c++11), continues the C++ // comment onto the next line, which then
// vanishes from the enum or struct.
func unsafeDoc(doc string) string {
	for i, r := range doc {
		if r == '\n' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("doc holds the control character %U at byte %d; generated comments cannot carry it", r, i)
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimRight(line, " \t")
		if strings.HasSuffix(line, `\`) || strings.HasSuffix(line, "??/") {
			return "doc line ends in a backslash (or the trigraph ??/): it would continue a C++ // comment onto the next line"
		}
	}
	return ""
}

var (
	typeNameRE  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	fieldNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	valueNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	socRE       = regexp.MustCompile(`^ascend[a-z0-9_]*$`)
)

// reserved are words no schema name may take: Go and C++ keywords and a few
// names the emitters define themselves.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough
	for func go goto if import interface map package range return select struct switch type var
	alignas alignof and and_eq asm auto bitand bitor bool catch char char8_t char16_t char32_t class
	compl concept consteval constexpr constinit const_cast co_await co_return co_yield decltype delete
	do double dynamic_cast enum explicit export extern false float friend inline int long mutable
	namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
	reinterpret_cast requires short signed sizeof static static_assert static_cast template this
	thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
	wchar_t while xor xor_eq errno assert NULL`) {
		reserved[w] = true
	}
}

// cppTaken are names the C++ header cannot use although they are no
// keywords: the types <stdint.h> and <stddef.h> declare (a member or
// parameter named uint32_t changes what uint32_t means after it) and the
// macros GCC and Clang predefine in their default GNU modes (linux, unix;
// i386 on 32-bit x86).
var cppTaken = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
	int_least8_t int_least16_t int_least32_t int_least64_t uint_least8_t uint_least16_t uint_least32_t uint_least64_t
	int_fast8_t int_fast16_t int_fast32_t int_fast64_t uint_fast8_t uint_fast16_t uint_fast32_t uint_fast64_t
	intptr_t uintptr_t intmax_t uintmax_t size_t ptrdiff_t max_align_t nullptr_t
	linux unix i386`) {
		cppTaken[w] = true
	}
}

func (l *loader) name(n *yaml.Node, path string, re *regexp.Regexp, what string) (string, bool) {
	s, ok := l.Str(n, path)
	if !ok {
		return "", false
	}
	if !re.MatchString(s) {
		l.Errorf(n, path, "%q is not a valid %s (want %s)", s, what, re.String())
		return "", false
	}
	if reserved[s] {
		l.Errorf(n, path, "%q is a reserved word in Go or C++", s)
		return "", false
	}
	if cppTaken[s] {
		l.Errorf(n, path, "%q is taken in C++ (a <stdint.h> or <stddef.h> type, or a macro compilers predefine)", s)
		return "", false
	}
	return s, true
}

// names tracks uniqueness within one scope.
type names struct {
	l     *loader
	what  string
	first map[string]Pos
}

func (l *loader) scope(what string) *names {
	return &names{l: l, what: what, first: map[string]Pos{}}
}

func (ns *names) add(n *yaml.Node, path, name string) bool {
	if p, dup := ns.first[name]; dup {
		ns.l.Errorf(n, path, "duplicate %s %q (first at line %d)", ns.what, name, p.Line)
		return false
	}
	ns.first[name] = pos(n)
	return true
}

func (l *loader) top(n *yaml.Node) {
	m := l.fields(n, "", []string{"version", "constants", "enums", "structs", "layout", "descriptors", "socs"}, []string{"families"})
	if m == nil {
		return
	}
	if v, ok := l.Uint(m["version"], "version", math.MaxUint32); ok {
		if v == 0 {
			l.Errorf(m["version"], "version", "version must be at least 1")
		}
		l.s.Version = uint32(v)
		l.s.VersionPos = pos(m["version"])
	}
	// Top-level names share one scope: they become Go and C++ identifiers side by side.
	global := l.scope("name")
	if c := m["constants"]; c != nil {
		l.constants(c, global)
	}
	if e := m["enums"]; e != nil {
		l.enums(e, global)
	}
	if s := m["structs"]; s != nil {
		l.structs(s, global)
	}
	if lay := m["layout"]; lay != nil {
		l.layout(lay, global)
	}
	if d := m["descriptors"]; d != nil {
		l.descriptors(d)
	}
	if s := m["socs"]; s != nil {
		l.socs(s)
	}
	if f := m["families"]; f != nil {
		l.families(f)
	}
}

func (l *loader) constants(n *yaml.Node, global *names) {
	for i, c := range l.Seq(n, "constants") {
		path := fmt.Sprintf("constants[%d]", i)
		m := l.fields(c, path, []string{"name", "value", "doc"}, nil)
		if m == nil {
			continue
		}
		name, ok := l.name(m["name"], path+".name", typeNameRE, "constant name")
		if ok {
			path = "constants." + name
			ok = global.add(m["name"], path, name)
		}
		v, vok := l.Uint(m["value"], path+".value", math.MaxUint64)
		d := l.doc(m, path)
		if ok && vok {
			l.s.Constants = append(l.s.Constants, &Constant{Name: name, Value: v, Doc: d, Pos: pos(c)})
		}
	}
}

func (l *loader) enums(n *yaml.Node, global *names) {
	for i, e := range l.Seq(n, "enums") {
		path := fmt.Sprintf("enums[%d]", i)
		m := l.fields(e, path, []string{"name", "values", "doc"}, nil)
		if m == nil {
			continue
		}
		name, ok := l.name(m["name"], path+".name", typeNameRE, "enum name")
		if ok {
			path = "enums." + name
			ok = global.add(m["name"], path, name)
		}
		en := &Enum{Name: name, Doc: l.doc(m, path), Pos: pos(e)}
		valueNames := l.scope("enum value name")
		valueNums := map[uint64]string{}
		for j, v := range l.Seq(m["values"], path+".values") {
			vpath := fmt.Sprintf("%s.values[%d]", path, j)
			vm := l.fields(v, vpath, []string{"name", "value", "doc"}, nil)
			if vm == nil {
				continue
			}
			vname, nok := l.name(vm["name"], vpath+".name", valueNameRE, "enum value name")
			if nok {
				nok = valueNames.add(vm["name"], vpath+".name", vname)
			}
			num, uok := l.Uint(vm["value"], vpath+".value", math.MaxUint32)
			if uok {
				if other, dup := valueNums[num]; dup {
					l.Errorf(vm["value"], vpath+".value", "duplicate value %d (already %s)", num, other)
					uok = false
				} else {
					valueNums[num] = vname
				}
			}
			// A duplicate value is reported once; keeping the member avoids
			// a cascade of "unknown value" errors where it is used.
			if nok && uok || nok && vm["value"] != nil {
				en.Values = append(en.Values, &EnumValue{Name: vname, Value: uint32(num), Doc: l.doc(vm, vpath), Pos: pos(v)})
			}
		}
		if len(en.Values) == 0 && m["values"] != nil && m["values"].Kind == yaml.SequenceNode && len(m["values"].Content) == 0 {
			l.Errorf(m["values"], path+".values", "an enum needs at least one value")
		}
		if ok {
			l.s.Enums = append(l.s.Enums, en)
		}
	}
}

func (l *loader) structs(n *yaml.Node, global *names) {
	type pending struct {
		f        *Field
		min, max *yaml.Node
		path     string
	}
	for i, sn := range l.Seq(n, "structs") {
		path := fmt.Sprintf("structs[%d]", i)
		m := l.fields(sn, path, []string{"name", "size", "fields", "doc"}, nil)
		if m == nil {
			continue
		}
		name, ok := l.name(m["name"], path+".name", typeNameRE, "struct name")
		if ok {
			path = "structs." + name
			ok = global.add(m["name"], path, name)
		}
		st := &Struct{Name: name, Doc: l.doc(m, path), Pos: pos(sn)}
		size, sizeOK := l.Uint(m["size"], path+".size", 1<<16)
		st.Size = int(size)
		fieldNames := l.scope("field name")
		var refs []pending
		prevEnd, maxAlign, layoutOK := 0, 1, sizeOK
		for j, fn := range l.Seq(m["fields"], path+".fields") {
			fpath := fmt.Sprintf("%s.fields[%d]", path, j)
			fm := l.fields(fn, fpath, []string{"name", "type", "offset", "doc"}, []string{"size", "zero", "enum", "min_field", "max_field", "warn_nonzero"})
			if fm == nil {
				layoutOK = false
				continue
			}
			f := &Field{Doc: l.doc(fm, fpath), Pos: pos(fn)}
			fname, nok := l.name(fm["name"], fpath+".name", fieldNameRE, "field name")
			if nok && fieldNames.add(fm["name"], fpath+".name", fname) {
				f.Name = fname
			}
			typ, tok := l.Str(fm["type"], fpath+".type")
			f.Type = FieldType(typ)
			switch {
			case !tok:
			case f.Type == Pad:
				if fm["size"] == nil {
					l.Errorf(fn, fpath, "a pad field needs a size")
					tok = false
				} else if sz, ok := l.Uint(fm["size"], fpath+".size", 1<<16); ok && sz > 0 {
					f.Size = int(sz)
				} else {
					if ok {
						l.Errorf(fm["size"], fpath+".size", "a pad field's size must be positive")
					}
					tok = false
				}
				if fm["zero"] != nil || fm["enum"] != nil || fm["min_field"] != nil || fm["max_field"] != nil {
					l.Errorf(fn, fpath, "a pad field takes no zero, enum, min_field or max_field check (use warn_nonzero)")
				}
			case f.Type.Width() > 0:
				f.Size = f.Type.Width()
				if fm["size"] != nil {
					if sz, ok := l.Uint(fm["size"], fpath+".size", 1<<16); ok && int(sz) != f.Size {
						l.Errorf(fm["size"], fpath+".size", "size %d disagrees with type %s (%d bytes)", sz, typ, f.Size)
					}
				}
				if fm["warn_nonzero"] != nil {
					l.Errorf(fm["warn_nonzero"], fpath+".warn_nonzero", "warn_nonzero is for pad fields")
				}
			default:
				l.Errorf(fm["type"], fpath+".type", "unknown type %q (want u8, u16, u32, u64 or pad)", typ)
				tok = false
			}
			f.Zero = l.flag(fm["zero"], fpath+".zero")
			f.WarnNonzero = l.flag(fm["warn_nonzero"], fpath+".warn_nonzero")
			if en := fm["enum"]; en != nil {
				if ename, ok := l.Str(en, fpath+".enum"); ok {
					if f.Enum = l.s.Enum(ename); f.Enum == nil {
						l.Errorf(en, fpath+".enum", "unknown enum %q", ename)
					} else if f.Type != U32 {
						l.Errorf(en, fpath+".enum", "an enum field must be u32, not %s", f.Type)
					}
				}
			}
			refs = append(refs, pending{f: f, min: fm["min_field"], max: fm["max_field"], path: fpath})
			off, ook := l.Uint(fm["offset"], fpath+".offset", 1<<16)
			f.Offset = int(off)
			if !ook || !tok {
				// Without this field's extent the next offsets cannot be
				// judged: report nothing more about them than what they are.
				layoutOK = false
			} else if layoutOK {
				if w := f.Type.Width(); w > 0 {
					if f.Offset%w != 0 {
						l.Errorf(fm["offset"], fpath+".offset", "%s field at offset %d is not aligned to %d bytes (C++ would insert hidden padding)", f.Type, f.Offset, w)
					}
					maxAlign = max(maxAlign, w)
				}
				switch {
				case f.Offset < prevEnd:
					l.Errorf(fm["offset"], fpath+".offset", "offset %d overlaps field ending at %d", f.Offset, prevEnd)
				case f.Offset > prevEnd:
					l.Errorf(fm["offset"], fpath+".offset", "gap of %d bytes at offset %d not covered by padding", f.Offset-prevEnd, prevEnd)
				}
				prevEnd = max(prevEnd, f.End())
			}
			st.Fields = append(st.Fields, f)
		}
		if layoutOK && len(st.Fields) > 0 {
			switch {
			case prevEnd > st.Size:
				l.Errorf(m["size"], path+".size", "size %d disagrees with fields ending at %d", st.Size, prevEnd)
			case prevEnd < st.Size:
				l.Errorf(m["size"], path+".size", "size %d disagrees with fields ending at %d: %d trailing bytes not covered by padding", st.Size, prevEnd, st.Size-prevEnd)
			case st.Size%maxAlign != 0:
				l.Errorf(m["size"], path+".size", "size %d is not a multiple of the struct's alignment %d", st.Size, maxAlign)
			}
		}
		if m["fields"] != nil && m["fields"].Kind == yaml.SequenceNode && len(m["fields"].Content) == 0 {
			l.Errorf(m["fields"], path+".fields", "a struct needs at least one field")
		}
		for _, r := range refs {
			r.f.MinField = l.fieldRef(st, r.f, r.min, r.path+".min_field")
			r.f.MaxField = l.fieldRef(st, r.f, r.max, r.path+".max_field")
		}
		if ok {
			l.s.Structs = append(l.s.Structs, st)
		}
	}
}

func (l *loader) fieldRef(st *Struct, f *Field, n *yaml.Node, path string) *Field {
	if n == nil {
		return nil
	}
	name, ok := l.Str(n, path)
	if !ok {
		return nil
	}
	other := st.Field(name)
	switch {
	case other == nil:
		l.Errorf(n, path, "unknown field %q in %s", name, st.Name)
	case other == f:
		l.Errorf(n, path, "a field cannot be compared with itself")
	case other.Type == Pad || f.Type == Pad:
		l.Errorf(n, path, "pad fields cannot be compared")
	default:
		return other
	}
	return nil
}

// The writer helpers of both emitters and the decoder address these fields
// by name, so the layout's header and record must have them.
var (
	headerRoles = []struct {
		name string
		typ  FieldType
	}{{"entry_cycle", U64}, {"record_count", U32}, {"dropped_count", U32}, {"core_type", U32}, {"block_id", U32}, {"record_capacity", U32}, {"reserved", U32}}
	recordRoles = []struct {
		name string
		typ  FieldType
	}{{"start_cycle", U64}, {"end_cycle", U64}, {"desc_id", U32}, {"task_id", U32}, {"stage_task_index", U32}, {"owner_id", U32}}
)

func (l *loader) layout(n *yaml.Node, global *names) {
	const path = "layout"
	m := l.fields(n, path, []string{"header", "record", "capacity_alignment", "min_cube_slots", "slot_stride_limit", "regions"}, nil)
	if m == nil {
		return
	}
	lay := &Layout{Pos: pos(n)}
	ok := true
	structRef := func(key string) *Struct {
		name, sok := l.Str(m[key], path+"."+key)
		if !sok {
			ok = false
			return nil
		}
		st := l.s.Struct(name)
		if st == nil {
			l.Errorf(m[key], path+"."+key, "unknown struct %q", name)
			ok = false
		}
		return st
	}
	constRef := func(key string) *Constant {
		name, cok := l.Str(m[key], path+"."+key)
		if !cok {
			ok = false
			return nil
		}
		c := l.s.Constant(name)
		if c == nil {
			l.Errorf(m[key], path+"."+key, "unknown constant %q", name)
			ok = false
		}
		return c
	}
	lay.Header = structRef("header")
	lay.Record = structRef("record")
	lay.Alignment = constRef("capacity_alignment")
	lay.MinCubeSlots = constRef("min_cube_slots")
	lay.StrideLimit = constRef("slot_stride_limit")
	checkRoles := func(st *Struct, key string, roles []struct {
		name string
		typ  FieldType
	}) {
		if st == nil {
			return
		}
		for _, r := range roles {
			if f := st.Field(r.name); f == nil || f.Type != r.typ {
				l.Errorf(m[key], path+"."+key, "%s needs a %s field %q (the writer helpers and decoder use it)", st.Name, r.typ, r.name)
				ok = false
			}
		}
	}
	checkRoles(lay.Header, "header", headerRoles)
	checkRoles(lay.Record, "record", recordRoles)
	if lay.Header != nil {
		if f := lay.Header.Field("core_type"); f != nil {
			lay.CoreTypes = f.Enum
		}
		if lay.CoreTypes == nil {
			l.Errorf(m["header"], path+".header", "%s.core_type must name its enum (enum: CoreType)", lay.Header.Name)
			ok = false
		}
	}
	if lay.Alignment != nil && lay.Alignment.Value == 0 {
		l.Errorf(m["capacity_alignment"], path+".capacity_alignment", "%s must be positive", lay.Alignment.Name)
		ok = false
	}
	if lay.MinCubeSlots != nil && (lay.MinCubeSlots.Value == 0 || lay.MinCubeSlots.Value > math.MaxUint32) {
		l.Errorf(m["min_cube_slots"], path+".min_cube_slots", "%s must be between 1 and 2^32-1", lay.MinCubeSlots.Name)
		ok = false
	}
	if lay.StrideLimit != nil && lay.StrideLimit.Value > math.MaxUint32 {
		l.Errorf(m["slot_stride_limit"], path+".slot_stride_limit", "%s must fit in a u32", lay.StrideLimit.Name)
		ok = false
	}
	if m["regions"] == nil {
		ok = false // missing, reported by fields; "no region for" would repeat it
	}
	seen := map[string]bool{}
	for i, rn := range l.Seq(m["regions"], path+".regions") {
		rpath := fmt.Sprintf("%s.regions[%d]", path, i)
		rm := l.fields(rn, rpath, []string{"core_type", "slots_per_cube_slot", "doc"}, nil)
		if rm == nil {
			ok = false
			continue
		}
		r := &Region{Doc: l.doc(rm, rpath), Pos: pos(rn)}
		if ct, cok := l.Str(rm["core_type"], rpath+".core_type"); cok && lay.CoreTypes != nil {
			if r.CoreType = lay.CoreTypes.Value(ct); r.CoreType == nil {
				l.Errorf(rm["core_type"], rpath+".core_type", "%q is not a %s", ct, lay.CoreTypes.Name)
				ok = false
			} else if seen[ct] {
				l.Errorf(rm["core_type"], rpath+".core_type", "a second region for %s", ct)
				ok = false
			}
			seen[ct] = true
		} else {
			ok = false
		}
		if k, kok := l.Uint(rm["slots_per_cube_slot"], rpath+".slots_per_cube_slot", 64); kok && k > 0 {
			r.SlotsPerCubeSlot = int(k)
		} else {
			if kok {
				l.Errorf(rm["slots_per_cube_slot"], rpath+".slots_per_cube_slot", "must be positive")
			}
			ok = false
		}
		lay.Regions = append(lay.Regions, r)
	}
	if lay.CoreTypes != nil && ok {
		for _, v := range lay.CoreTypes.Values {
			if !seen[v.Name] {
				l.Errorf(m["regions"], path+".regions", "no region for %s %s", lay.CoreTypes.Name, v.Name)
				ok = false
			}
		}
	}
	if !ok {
		return
	}
	hdr, rec, align := uint64(lay.Header.Size), uint64(lay.Record.Size), lay.Alignment.Value
	if rec == 0 {
		// A record struct declared with size 0 is already reported (its
		// fields end past it); do not divide by it.
		return
	}
	// Divide rather than multiply: rec*align may overflow 64 bits and wrap
	// to a small value that passes, deriving MaxRecordsPerCore = 0.
	if lay.StrideLimit.Value < hdr || (lay.StrideLimit.Value-hdr)/rec < align {
		l.Errorf(m["slot_stride_limit"], path+".slot_stride_limit", "%s %d leaves no room for %d records", lay.StrideLimit.Name, lay.StrideLimit.Value, align)
		return
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
	if global.add(n, path, lay.MaxRecordsPerCore.Name) {
		l.s.Constants = append(l.s.Constants, lay.MaxRecordsPerCore)
	}
	l.s.Layout = lay
}

var placeholderRE = regexp.MustCompile(`\{[^}]*\}`)

// format checks a display template: only the placeholders in allowed.
func (l *loader) format(n *yaml.Node, path string, allowed ...string) string {
	s, ok := l.Str(n, path)
	if !ok {
		return ""
	}
	for _, ph := range placeholderRE.FindAllString(s, -1) {
		good := false
		for _, a := range allowed {
			good = good || ph == "{"+a+"}"
		}
		if !good {
			l.Errorf(n, path, "unknown placeholder %s (allowed: {%s})", ph, strings.Join(allowed, "}, {"))
		}
	}
	if strings.TrimSpace(s) == "" {
		l.Errorf(n, path, "a display format must not be empty")
	}
	return s
}

func (l *loader) descriptors(n *yaml.Node) {
	const path = "descriptors"
	m := l.fields(n, path, []string{"unknown", "namespaces"}, nil)
	if m == nil {
		return
	}
	d := &Descriptors{Pos: pos(n), Unknown: l.format(m["unknown"], path+".unknown", "desc_id")}
	args := l.scope("argument name")
	// Namespaces have a scope of their own: emitters prefix their names.
	nsNames := l.scope("namespace name")
	for i, nn := range l.Seq(m["namespaces"], path+".namespaces") {
		npath := fmt.Sprintf("%s.namespaces[%d]", path, i)
		nm := l.fields(nn, npath, []string{"name", "base", "count", "display", "fallback", "doc"}, []string{"enum", "arg", "names"})
		if nm == nil {
			continue
		}
		ns := &Namespace{Pos: pos(nn), Doc: l.doc(nm, npath)}
		name, ok := l.name(nm["name"], npath+".name", typeNameRE, "namespace name")
		if ok {
			npath = path + "." + name
			ok = nsNames.add(nm["name"], npath, name)
		}
		ns.Name = name
		base, bok := l.Uint(nm["base"], npath+".base", math.MaxUint32)
		count, cok := l.Uint(nm["count"], npath+".count", math.MaxUint32)
		ns.Base, ns.Count = uint32(base), uint32(count)
		if bok && cok {
			if count == 0 {
				l.Errorf(nm["count"], npath+".count", "a namespace needs a positive count")
				cok = false
			} else if base+count > 1<<32 {
				l.Errorf(nm["count"], npath+".count", "range [0x%x, 0x%x) does not fit in a u32 desc_id", base, base+count)
				cok = false
			}
		}
		ns.Display = l.format(nm["display"], npath+".display", "name", "index", "desc_id")
		ns.Fallback = l.format(nm["fallback"], npath+".fallback", "index", "desc_id")
		if a := nm["arg"]; a != nil {
			if arg, aok := l.name(a, npath+".arg", fieldNameRE, "argument name"); aok && args.add(a, npath+".arg", arg) {
				ns.Arg = arg
			}
		}
		if en := nm["enum"]; en != nil {
			if ename, eok := l.Str(en, npath+".enum"); eok {
				if ns.Enum = l.s.Enum(ename); ns.Enum == nil {
					l.Errorf(en, npath+".enum", "unknown enum %q", ename)
				} else if cok {
					for _, v := range ns.Enum.Values {
						if uint64(v.Value) >= count {
							l.Errorf(en, npath+".enum", "%s.%s = %d is outside the namespace's %d ids", ename, v.Name, v.Value, count)
						}
					}
				}
			}
			if nm["names"] != nil {
				l.Errorf(nm["names"], npath+".names", "a namespace takes its names from enum or names, not both")
			}
		}
		if nl := nm["names"]; nl != nil {
			idx := map[uint64]bool{}
			dnames := l.scope("descriptor name")
			for j, dn := range l.Seq(nl, npath+".names") {
				dpath := fmt.Sprintf("%s.names[%d]", npath, j)
				dm := l.fields(dn, dpath, []string{"index", "name", "doc"}, []string{"task_stage_prefix"})
				if dm == nil {
					continue
				}
				dname, dok := l.name(dm["name"], dpath+".name", valueNameRE, "descriptor name")
				if dok {
					dok = dnames.add(dm["name"], dpath+".name", dname)
				}
				index, iok := l.Uint(dm["index"], dpath+".index", math.MaxUint32)
				if iok {
					if cok && index >= count {
						l.Errorf(dm["index"], dpath+".index", "index %d is outside the namespace's %d ids", index, count)
						iok = false
					} else if idx[index] {
						l.Errorf(dm["index"], dpath+".index", "duplicate index %d", index)
						iok = false
					}
					idx[index] = true
				}
				prefix := l.flag(dm["task_stage_prefix"], dpath+".task_stage_prefix")
				if dok && iok {
					ns.Names = append(ns.Names, &DescName{Index: uint32(index), Name: dname, TaskStagePrefix: prefix, Doc: l.doc(dm, dpath), Pos: pos(dn)})
				}
			}
		}
		if ok && bok && cok {
			d.Namespaces = append(d.Namespaces, ns)
		}
	}
	// Ranges must be disjoint: a desc_id belongs to at most one namespace.
	sorted := append([]*Namespace(nil), d.Namespaces...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Base < sorted[j].Base })
	for i := 1; i < len(sorted); i++ {
		prev, cur := sorted[i-1], sorted[i]
		if uint64(cur.Base) < prev.End() {
			n := nn(cur)
			l.Errorf(n, path+"."+cur.Name, "range [0x%x, 0x%x) overlaps %s [0x%x, 0x%x)", cur.Base, cur.End(), prev.Name, prev.Base, prev.End())
		}
	}
	l.s.Descriptors = d
}

// nn builds a position-only node for an error about a model element.
func nn(ns *Namespace) *yaml.Node { return &yaml.Node{Line: ns.Pos.Line, Column: ns.Pos.Col} }

func (l *loader) socs(n *yaml.Node) {
	seen := l.scope("SoC prefix")
	for i, sn := range l.Seq(n, "socs") {
		path := fmt.Sprintf("socs[%d]", i)
		m := l.fields(sn, path, []string{"prefix", "mhz", "doc"}, nil)
		if m == nil {
			continue
		}
		prefix, ok := l.name(m["prefix"], path+".prefix", socRE, "normalised SoC prefix")
		if ok {
			path = "socs." + prefix
			ok = seen.add(m["prefix"], path, prefix)
		}
		for _, earlier := range l.s.SoCs {
			if ok && strings.HasPrefix(prefix, earlier.Prefix) {
				l.Errorf(m["prefix"], path+".prefix", "never matched: the earlier prefix %q matches every name it would", earlier.Prefix)
				ok = false
			}
		}
		var mhz float64
		if mn := m["mhz"]; mn != nil {
			v, err := strconv.ParseFloat(mn.Value, 64)
			if mn.Kind != yaml.ScalarNode || (mn.Tag != "!!int" && mn.Tag != "!!float") || err != nil || !(v > 0) || math.IsInf(v, 0) {
				l.Errorf(mn, path+".mhz", "expected a positive frequency in MHz, got %s", yamlpos.KindName(mn))
				ok = false
			}
			mhz = v
		}
		if ok {
			l.s.SoCs = append(l.s.SoCs, &SoC{Prefix: prefix, MHz: mhz, Doc: l.doc(m, path), Pos: pos(sn)})
		}
	}
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		l.Errorf(n, "socs", "at least one SoC is needed")
	}
}
