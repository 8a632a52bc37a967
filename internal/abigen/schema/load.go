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
	socRE       = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
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

// structs reads the structs, keeping each whose name is good and new.
func (l *loader) structs(n *yaml.Node, global *names) {
	for i, sn := range l.Seq(n, "structs") {
		if st, ok := l.structDef(i, sn, global); ok {
			l.s.Structs = append(l.s.Structs, st)
		}
	}
}

// fieldRefs are a field's min_field and max_field, resolved once every
// field of the struct is known.
type fieldRefs struct {
	f        *Field
	min, max *yaml.Node
	path     string
}

// extent follows a struct's fields in order: where the last ends, the
// largest alignment, and whether the offsets can still be judged.
type extent struct {
	end, maxAlign int
	ok            bool
}

// structDef reads structs[i]: its fields in order, each placed after the
// one before, then its size; ok false when the struct is not to be kept.
func (l *loader) structDef(i int, sn *yaml.Node, global *names) (*Struct, bool) {
	path := fmt.Sprintf("structs[%d]", i)
	m := l.fields(sn, path, []string{"name", "size", "fields", "doc"}, nil)
	if m == nil {
		return nil, false
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
	var refs []fieldRefs
	ext := extent{maxAlign: 1, ok: sizeOK}
	for j, fn := range l.Seq(m["fields"], path+".fields") {
		fpath := fmt.Sprintf("%s.fields[%d]", path, j)
		fm := l.fields(fn, fpath, []string{"name", "type", "offset", "doc"}, []string{"size", "zero", "enum", "min_field", "max_field", "warn_nonzero"})
		if fm == nil {
			ext.ok = false
			continue
		}
		f, tok := l.structField(fn, fm, fpath, fieldNames)
		refs = append(refs, fieldRefs{f: f, min: fm["min_field"], max: fm["max_field"], path: fpath})
		off, ook := l.Uint(fm["offset"], fpath+".offset", 1<<16)
		f.Offset = int(off)
		if !ook || !tok {
			// Without this field's extent the next offsets cannot be
			// judged: report nothing more about them than what they are.
			ext.ok = false
		} else if ext.ok {
			l.placeField(&ext, f, fm["offset"], fpath)
		}
		st.Fields = append(st.Fields, f)
	}
	l.structSize(st, m, path, ext)
	for _, r := range refs {
		r.f.MinField = l.fieldRef(st, r.f, r.min, r.path+".min_field")
		r.f.MaxField = l.fieldRef(st, r.f, r.max, r.path+".max_field")
	}
	return st, ok
}

// structField reads a field's name, type, size and checks; tok false
// when its type (and so its extent) is unknown.
func (l *loader) structField(fn *yaml.Node, fm map[string]*yaml.Node, fpath string, fieldNames *names) (*Field, bool) {
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
		tok = l.padField(f, fn, fm, fpath)
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
	return f, tok
}

// padField reads a pad field's size; false when it has none that is
// positive.
func (l *loader) padField(f *Field, fn *yaml.Node, fm map[string]*yaml.Node, fpath string) bool {
	ok := true
	if fm["size"] == nil {
		l.Errorf(fn, fpath, "a pad field needs a size")
		ok = false
	} else if sz, sok := l.Uint(fm["size"], fpath+".size", 1<<16); sok && sz > 0 {
		f.Size = int(sz)
	} else {
		if sok {
			l.Errorf(fm["size"], fpath+".size", "a pad field's size must be positive")
		}
		ok = false
	}
	if fm["zero"] != nil || fm["enum"] != nil || fm["min_field"] != nil || fm["max_field"] != nil {
		l.Errorf(fn, fpath, "a pad field takes no zero, enum, min_field or max_field check (use warn_nonzero)")
	}
	return ok
}

// placeField checks that f starts, aligned, where the field before it
// ends, and extends ext over it.
func (l *loader) placeField(ext *extent, f *Field, offset *yaml.Node, fpath string) {
	if w := f.Type.Width(); w > 0 {
		if f.Offset%w != 0 {
			l.Errorf(offset, fpath+".offset", "%s field at offset %d is not aligned to %d bytes (C++ would insert hidden padding)", f.Type, f.Offset, w)
		}
		ext.maxAlign = max(ext.maxAlign, w)
	}
	switch {
	case f.Offset < ext.end:
		l.Errorf(offset, fpath+".offset", "offset %d overlaps field ending at %d", f.Offset, ext.end)
	case f.Offset > ext.end:
		l.Errorf(offset, fpath+".offset", "gap of %d bytes at offset %d not covered by padding", f.Offset-ext.end, ext.end)
	}
	ext.end = max(ext.end, f.End())
}

// structSize checks the struct's size against where its fields end and
// their alignment, and that it has a field.
func (l *loader) structSize(st *Struct, m map[string]*yaml.Node, path string, ext extent) {
	if ext.ok && len(st.Fields) > 0 {
		switch {
		case ext.end > st.Size:
			l.Errorf(m["size"], path+".size", "size %d disagrees with fields ending at %d", st.Size, ext.end)
		case ext.end < st.Size:
			l.Errorf(m["size"], path+".size", "size %d disagrees with fields ending at %d: %d trailing bytes not covered by padding", st.Size, ext.end, st.Size-ext.end)
		case st.Size%ext.maxAlign != 0:
			l.Errorf(m["size"], path+".size", "size %d is not a multiple of the struct's alignment %d", st.Size, ext.maxAlign)
		}
	}
	if m["fields"] != nil && m["fields"].Kind == yaml.SequenceNode && len(m["fields"].Content) == 0 {
		l.Errorf(m["fields"], path+".fields", "a struct needs at least one field")
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
