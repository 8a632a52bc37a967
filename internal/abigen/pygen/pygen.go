// Package pygen emits the Python side of the cycle-trace ABI: one module,
// gen/py/cycleabi_abi.py, that depends only on the standard library and
// NumPy (>= 1.21). It holds the schema's constants, enums (enum.IntEnum),
// one NumPy structured dtype and one struct format per wire struct, the
// layout helpers, the descriptor namespaces with decode's naming, the SoC
// table, and read_capture, which finds a capture's layout and refuses the
// captures decode refuses (the same error codes and file offsets).
//
// Generate is pure: a validated schema model in, file contents out. Only
// cmd/abigen writes files. The tables are rendered from the model; the
// logic that reads captures is hand-written Python (prelude.py and
// runtime.py, embedded) that works from those tables, as package capture
// works from gen/go/abi.
package pygen

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/abigen/emit"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/buildinfo"
)

// ModuleFile is the name of the generated module, relative to gen/py.
const ModuleFile = "cycleabi_abi.py"

//go:embed prelude.py
var prelude string

//go:embed runtime.py
var runtime string

// Fields of the header and record the hand-written reader uses by name,
// as package capture does through gen/go/abi.
var (
	headerFields = []string{"entry_cycle", "record_count", "dropped_count", "core_type", "block_id", "record_capacity", "reserved"}
	recordFields = []string{"start_cycle", "end_cycle", "desc_id"}
)

// traceColumns are the columns Capture.records() adds to each record.
var traceColumns = []string{"core_type", "block_id"}

// pyKeywords are Python's keywords (and the soft keywords that still work
// as names are left out): an enum member may not take one.
var pyKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`False None True and as assert async await break class continue
	def del elif else except finally for from global if import in is lambda nonlocal not or pass
	raise return try while with yield`) {
		pyKeywords[w] = true
	}
}

// Generate renders the Python module for s. The result maps ModuleFile to
// its contents; equal models give equal bytes. It fails when s lacks a
// layout or descriptors, or when the schema cannot be expressed in Python
// (a name that is a Python keyword, two declarations with one Python name,
// a header or record without the fields the reader needs); then every
// problem is one line, "file:line:col: message", in file order.
func Generate(s *schema.Schema) (map[string][]byte, error) {
	if s == nil || s.Layout == nil || s.Descriptors == nil {
		return nil, fmt.Errorf("pygen: schema has no layout or descriptors (load it with schema.Load)")
	}
	g := &gen{File: emit.File{Lang: "Python"}, s: s, lay: s.Layout}
	if s.Release != "" {
		v, err := buildinfo.PEP440(s.Release)
		if err != nil {
			return nil, fmt.Errorf("pygen: %v", err)
		}
		g.release = v
	}
	for _, n := range runtimeNames {
		g.Declare(n, "the module's own "+n, schema.Pos{})
	}
	g.checkFields()
	g.genPrologue()
	g.genVersion()
	g.genConstants()
	for _, e := range s.Enums {
		g.genEnum(e)
	}
	for _, st := range s.Structs {
		g.genStruct(st)
	}
	g.genLayout()
	g.genDescriptors()
	g.genSoCs()
	g.genFamilies()
	g.Buf.WriteString(runtime)
	g.genWrappers()
	if err := g.Err(s.File); err != nil {
		return nil, err
	}
	return map[string][]byte{ModuleFile: g.Buf.Bytes()}, nil
}

// runtimeNames are module-level names prelude.py and runtime.py define
// (or the generated part defines for them); a schema name may not take one.
var runtimeNames = []string{
	"Region", "SoC", "DescNamespace", "KernelFamily", "FamilyStage", "FAMILIES", "LayoutError", "Layout", "Slot", "Capture", "CaptureError",
	"__version__", "ABI_VERSION", "FINGERPRINT", "FINGERPRINT_HEX", "HEADER_DTYPE", "RECORD_DTYPE", "HEADER_SIZE",
	"RECORD_SIZE", "TRACE_RECORD_DTYPE", "REGIONS", "NAMESPACES", "DESC_UNKNOWN", "SOCS",
	"CODE_BAD_NPY", "CODE_TRUNCATED", "CODE_SHORT_BUFFER", "CODE_BAD_CAPACITY", "CODE_SLOT_IDENTITY",
	"CODE_CAPACITY_MISMATCH", "CODE_RESERVED_NONZERO", "CODE_COUNT_OVER_CAPACITY",
	"CODE_NEGATIVE_INTERVAL", "CODE_NO_RECORDS", "CODE_NOT_A_CAPTURE", "CODE_LAYOUT_MISMATCH", "CODE_NO_LAYOUT",
	"CODE_AMBIGUOUS_LAYOUT", "CODE_BYTES_AFTER_LAYOUT", "CODE_NPY_BYTE_ORDER", "FROM_HEADERS", "FROM_SIZE",
	"FROM_HOST", "MAX_FOUND_CUBE_SLOTS", "HEADER_FORMAT",
}

// gen is the file being written (emit.File: its text, its declared names
// and its problems) and the schema it is written from.
type gen struct {
	emit.File
	s   *schema.Schema
	lay *schema.Layout
	// release is s.Release in PEP 440 form, the module's __version__
	// (none when empty).
	release string
}

// checkFields reports a header or record that lacks a field the reader
// uses, and a record field that would collide with a trace column.
func (g *gen) checkFields() {
	for _, c := range []struct {
		st    *schema.Struct
		names []string
	}{{g.lay.Header, headerFields}, {g.lay.Record, recordFields}} {
		for _, name := range c.names {
			if f := c.st.Field(name); f == nil || f.Type == schema.Pad {
				g.ErrorAt(c.st.Pos, "struct %s has no integer field %s, which the Python reader uses", c.st.Name, name)
			}
		}
	}
	for _, name := range traceColumns {
		if f := g.lay.Record.Field(name); f != nil {
			g.ErrorAt(f.Pos, "record field %s would collide with the column Capture.records() adds", name)
		}
	}
}

// comment writes text as "# " lines wrapped at 79 columns, made safe for
// Python: every line break and unprintable character is gone or escaped.
func (g *gen) comment(indent, lead, text string) {
	const width = 79
	start := indent + lead
	line := start
	for _, w := range strings.Fields(safeText(text)) {
		if len(line)+1+len(w) > width && line != start {
			g.P("%s", line)
			line = start
		}
		line += " " + w
	}
	if line != start {
		g.P("%s", line)
	}
}

// safeText makes schema text safe anywhere in Python source: invalid UTF-8
// becomes U+FFFD, and every rune that is not printable (control and format
// characters, NUL, line and paragraph separators) is written as an escape
// (\x00, \u2028), so that it can neither end a comment nor a string.
func safeText(text string) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// pyString is a Python string literal whose value is text exactly.
func pyString(text string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, w := 0, 0; i < len(text); i += w {
		r, size := utf8.DecodeRuneInString(text[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			r = unicode.ReplacementChar
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == ' ' || (unicode.IsPrint(r) && r < 0x80):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// docString writes a triple-quoted docstring of text (whitespace runs
// folded to one space), escaped so that no text ends it early or breaks
// the module, wrapped at 79 columns.
func (g *gen) docString(indent, text string) {
	words := strings.Fields(text)
	var lines []string
	line := ""
	for _, w := range words {
		lit := pyString(w)
		lit = lit[1 : len(lit)-1]
		if line != "" && len(indent)+3+len(line)+1+len(lit) > 79 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += lit
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	if len(lines) == 1 {
		g.P(`%s"""%s"""`, indent, lines[0])
		return
	}
	g.P(`%s"""%s`, indent, lines[0])
	for _, l := range lines[1:] {
		g.P("%s%s", indent, l)
	}
	g.P(`%s"""`, indent)
}

// upperSnake is the Python constant spelling of a schema name:
// RecordCapacityAlignment → RECORD_CAPACITY_ALIGNMENT, InvalidOwnerID → INVALID_OWNER_ID.
func upperSnake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
			i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// lowerSnake is upperSnake in lower case: AIC → aic.
func lowerSnake(name string) string { return strings.ToLower(upperSnake(name)) }

// hexOr formats v in hex when that is what the number means (a mask such
// as 0xFFFFFFFF, a base such as 0x10000), else in decimal.
func hexOr(v uint64) string {
	if v >= 0x10000 && (v&0xfff == 0 || v&(v+1) == 0) {
		return fmt.Sprintf("0x%X", v)
	}
	return fmt.Sprintf("%d", v)
}

func (g *gen) genPrologue() {
	for _, line := range g.s.Banner() {
		g.P("# %s", line)
	}
	g.P(`"""The MegaKernel cycle-trace ABI for Python and NumPy.`)
	g.P(``)
	g.P(`Generated from the schema with the Go decoders and the C++ header device`)
	g.P(`kernels include, so the three sides agree on every byte. Needs only the`)
	g.P(`standard library and NumPy (>= 1.21): copy this file, or add its folder to`)
	g.P(`sys.path, and import it.`)
	g.P(``)
	g.P(`    import cycleabi_abi as abi`)
	g.P(`    cap = abi.read_capture("rank0.bin")      # a path, bytes, an array or a CPU tensor`)
	g.P(`    recs = cap.records()                      # every live record, in decode's order`)
	g.P(`    names = [abi.desc_name(d) for d in recs["desc_id"]]`)
	g.P(``)
	g.P(`read_capture finds the layout as decode does and refuses exactly the captures`)
	g.P(`decode refuses, raising CaptureError with validate's error code and the`)
	g.P(`byte offset in the file.`)
	g.P(`"""`)
	g.P(``)
	g.Buf.WriteString(prelude)
	g.P(``)
}

func (g *gen) genVersion() {
	g.P(``)
	if g.release != "" {
		g.P(`#: The version of cycleabi that generated this module, in PEP 440 form: the`)
		g.P(`#: wheel's version, and cycleabi.__version__.`)
		g.P(`__version__ = "%s"`, g.release)
	}
	g.P(`#: The ABI version; raised on every breaking change.`)
	g.P(`ABI_VERSION = %d`, g.s.Version)
	g.P(`#: The ABI fingerprint: the first 8 bytes of the SHA-256 of the buffer layout,`)
	g.P(`#: the same number as Go's abi.Fingerprint and C++'s cycleabi::kFingerprint.`)
	g.P(`FINGERPRINT = 0x%016X`, g.s.Fingerprint)
	g.P(`#: FINGERPRINT as the 16 hex digits cycleabi validate prints.`)
	g.P(`FINGERPRINT_HEX = "%s"`, g.s.FingerprintHex())
	g.P(``)
}

func (g *gen) genConstants() {
	g.P(`# Constants.`)
	for _, c := range g.s.Constants {
		name := g.Declare(upperSnake(c.Name), "constant "+c.Name, c.Pos)
		doc := c.Doc
		if c.Derived != "" {
			doc += " Derived: " + c.Derived + "."
		}
		g.comment("", "#:", doc)
		g.P(`%s = %s`, name, hexOr(c.Value))
	}
	g.P(``)
}

// genEnum writes an enum.IntEnum with one member per value.
func (g *gen) genEnum(e *schema.Enum) {
	g.P(``)
	if pyKeywords[e.Name] {
		g.ErrorAt(e.Pos, "enum name %s is a Python keyword", e.Name)
	}
	g.P(`class %s(enum.IntEnum):`, g.Declare(e.Name, "enum "+e.Name, e.Pos))
	g.docString("    ", e.Doc)
	g.P(``)
	for _, v := range e.Values {
		if pyKeywords[v.Name] {
			g.ErrorAt(v.Pos, "enum value %s.%s is a Python keyword", e.Name, v.Name)
		}
		g.comment("    ", "#:", v.Doc)
		g.P(`    %s = %d`, v.Name, v.Value)
	}
	g.P(``)
}

// dtypeFormat is the NumPy format of a field: little-endian, pad bytes as
// a u1 subarray.
func dtypeFormat(f *schema.Field) string {
	switch f.Type {
	case schema.U8:
		return `"u1"`
	case schema.U16:
		return `"<u2"`
	case schema.U32:
		return `"<u4"`
	case schema.U64:
		return `"<u8"`
	}
	return fmt.Sprintf(`("u1", (%d,))`, f.Size)
}

// structFormat is the struct-module format of st: its fields in offset
// order, padding skipped with x.
func structFormat(st *schema.Struct) string {
	fields := append([]*schema.Field(nil), st.Fields...)
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Offset < fields[j].Offset })
	var b strings.Builder
	b.WriteByte('<')
	at := 0
	pad := func(n int) {
		if n > 0 {
			fmt.Fprintf(&b, "%dx", n)
		}
	}
	for _, f := range fields {
		pad(f.Offset - at)
		switch f.Type {
		case schema.U8:
			b.WriteByte('B')
		case schema.U16:
			b.WriteByte('H')
		case schema.U32:
			b.WriteByte('I')
		case schema.U64:
			b.WriteByte('Q')
		default:
			pad(f.Size)
		}
		at = max(at, f.End())
	}
	pad(st.Size - at)
	return strings.ReplaceAll(b.String(), "1x", "x")
}

func (g *gen) dtype(indent string, names, formats []string, offsets []int, size int) {
	g.P(`np.dtype({`)
	g.P(`%s    "names": [%s],`, indent, strings.Join(names, ", "))
	g.P(`%s    "formats": [%s],`, indent, strings.Join(formats, ", "))
	var os []string
	for _, o := range offsets {
		os = append(os, fmt.Sprint(o))
	}
	g.P(`%s    "offsets": [%s],`, indent, strings.Join(os, ", "))
	g.P(`%s    "itemsize": %d,`, indent, size)
	g.P(`%s})`, indent)
}

// genStruct writes a struct's dtype, struct format, size and field list.
func (g *gen) genStruct(st *schema.Struct) {
	base := upperSnake(st.Name)
	g.P(``)
	g.comment("", "#:", st.Doc)
	g.comment("", "#:", fmt.Sprintf("NumPy dtype of %s: %d bytes, little-endian, every field at its schema offset.", st.Name, st.Size))
	var names, formats []string
	var offsets []int
	for _, f := range st.Fields {
		names = append(names, pyString(f.Name))
		formats = append(formats, dtypeFormat(f))
		offsets = append(offsets, f.Offset)
	}
	g.Buf.WriteString(g.Declare(base+"_DTYPE", "struct "+st.Name, st.Pos) + " = ")
	g.dtype("", names, formats, offsets, st.Size)
	g.P(`#: The struct-module format of %s (fields in offset order, padding skipped).`, st.Name)
	g.P(`%s = %s`, g.Declare(base+"_FORMAT", "struct "+st.Name, st.Pos), pyString(structFormat(st)))
	g.P(`#: The size of %s in bytes.`, st.Name)
	g.P(`%s = %d`, g.Declare(base+"_SIZE", "struct "+st.Name, st.Pos), st.Size)
	g.P(`#: The fields of %s as (name, offset, size, type, doc), in schema order.`, st.Name)
	g.P(`%s = (`, g.Declare(base+"_FIELDS", "struct "+st.Name, st.Pos))
	for _, f := range st.Fields {
		g.P(`    (%s, %d, %d, %s, %s),`, pyString(f.Name), f.Offset, f.Size, pyString(string(f.Type)), pyString(strings.Join(strings.Fields(f.Doc), " ")))
	}
	g.P(`)`)
	g.P(``)
}

func (g *gen) genLayout() {
	l := g.lay
	hdr, rec := upperSnake(l.Header.Name), upperSnake(l.Record.Name)
	g.P(``)
	g.P(`# The buffer layout: %s.`, g.regionSummary())
	g.P(`#: The dtype of a slot's header.`)
	g.P(`HEADER_DTYPE = %s_DTYPE`, hdr)
	g.P(`#: The dtype of one record.`)
	g.P(`RECORD_DTYPE = %s_DTYPE`, rec)
	g.P(`HEADER_SIZE = %d`, l.Header.Size)
	g.P(`RECORD_SIZE = %d`, l.Record.Size)
	g.P(`#: The dtype of Capture.records(): a record's fields at their offsets, then`)
	g.P(`#: the core_type and block_id of the slot it was read from.`)
	var names, formats []string
	var offsets []int
	for _, f := range l.Record.Fields {
		if f.Type == schema.Pad {
			continue
		}
		names = append(names, pyString(f.Name))
		formats = append(formats, dtypeFormat(f))
		offsets = append(offsets, f.Offset)
	}
	for i, c := range traceColumns {
		names = append(names, pyString(c))
		formats = append(formats, `"<u4"`)
		offsets = append(offsets, l.Record.Size+4*i)
	}
	g.Buf.WriteString("TRACE_RECORD_DTYPE = ")
	g.dtype("", names, formats, offsets, l.Record.Size+4*len(traceColumns))
	g.P(`#: The regions of slots in buffer order.`)
	g.P(`REGIONS = (`)
	for _, r := range l.Regions {
		g.comment("    ", "#", r.Doc)
		g.P(`    Region(%s.%s, %d),`, l.CoreTypes.Name, r.CoreType.Name, r.SlotsPerCubeSlot)
	}
	g.P(`)`)
	g.P(`_CORE_TYPE = %s`, l.CoreTypes.Name)
	g.P(`_CAPACITY_ALIGNMENT = %s`, upperSnake(l.Alignment.Name))
	g.P(`_MIN_CUBE_SLOTS = %s`, upperSnake(l.MinCubeSlots.Name))
	g.P(`_SLOT_STRIDE_LIMIT = %s`, upperSnake(l.StrideLimit.Name))
	g.P(`_MAX_RECORDS_PER_CORE = %s`, upperSnake(l.MaxRecordsPerCore.Name))
	var value []string
	for _, f := range l.Header.Fields {
		if f.Type != schema.Pad {
			value = append(value, pyString(f.Name))
		}
	}
	g.P(`_HEADER_VALUE_FIELDS = (%s,)`, strings.Join(value, ", "))
	g.P(`_HEADER_OFFSET = dict((f[0], f[1]) for f in %s_FIELDS)`, hdr)
	g.P(`_HEADER_STRUCT_FIELDS = %s_FIELDS`, hdr)
	g.P(`HEADER_FORMAT = %s_FORMAT`, hdr)
	g.P(`_RECORD_OFFSET = dict((f[0], f[1]) for f in %s_FIELDS)`, rec)
	if c := g.s.Constant("InvalidOwnerID"); c != nil {
		g.P(`_INVALID_OWNER_ID = %s`, upperSnake(c.Name))
	} else {
		g.P(`_INVALID_OWNER_ID = None`)
	}
	g.P(``)
}

// regionSummary: "cube_slots AIC slots, then 2*cube_slots AIV slots".
func (g *gen) regionSummary() string {
	var parts []string
	for _, r := range g.lay.Regions {
		n := "cube_slots"
		if r.SlotsPerCubeSlot != 1 {
			n = fmt.Sprintf("%d*cube_slots", r.SlotsPerCubeSlot)
		}
		parts = append(parts, n+" "+r.CoreType.Name+" slots")
	}
	return strings.Join(parts, ", then ")
}

func (g *gen) genDescriptors() {
	d := g.s.Descriptors
	g.P(``)
	g.P(`# Descriptor-ID namespaces.`)
	g.P(`#: The display name of a desc_id in no namespace ({desc_id}).`)
	g.P(`DESC_UNKNOWN = %s`, pyString(d.Unknown))
	for _, ns := range d.Namespaces {
		base := upperSnake(ns.Name)
		g.comment("", "#:", fmt.Sprintf("%s: %s First desc_id.", ns.Name, ns.Doc))
		g.P(`%s = 0x%X`, g.Declare(base+"_BASE", "namespace "+ns.Name, ns.Pos), ns.Base)
		g.P(`#: The number of desc_ids in %s.`, ns.Name)
		g.P(`%s = 0x%X`, g.Declare(base+"_COUNT", "namespace "+ns.Name, ns.Pos), ns.Count)
		for _, n := range ns.Names {
			g.comment("", "#:", fmt.Sprintf("%s (%s index %d): %s", n.Name, ns.Name, n.Index, n.Doc))
			g.P(`%s = 0x%X`, g.Declare(base+"_"+upperSnake(n.Name), "descriptor "+ns.Name+"."+n.Name, n.Pos), ns.Base+n.Index)
		}
	}
	g.P(`#: Every namespace, in schema order.`)
	g.P(`NAMESPACES = (`)
	for _, ns := range d.Namespaces {
		names := map[uint32]string{}
		var order []uint32
		var prefix []string
		for _, n := range ns.Names {
			names[n.Index] = n.Name
			order = append(order, n.Index)
			if n.TaskStagePrefix {
				prefix = append(prefix, fmt.Sprint(n.Index))
			}
		}
		enum := "None"
		if ns.Enum != nil {
			enum = ns.Enum.Name
			for _, v := range ns.Enum.Values {
				if _, ok := names[v.Value]; !ok {
					names[v.Value] = v.Name
					order = append(order, v.Value)
				}
			}
		}
		var items []string
		for _, i := range order {
			items = append(items, fmt.Sprintf("%d: %s", i, pyString(names[i])))
		}
		arg := "None"
		if ns.Arg != "" {
			arg = pyString(ns.Arg)
		}
		g.P(`    DescNamespace(`)
		g.P(`        name=%s, base=0x%X, count=0x%X,`, pyString(ns.Name), ns.Base, ns.Count)
		g.P(`        display=%s, fallback=%s, arg=%s, enum=%s,`, pyString(ns.Display), pyString(ns.Fallback), arg, enum)
		g.P(`        names={%s},`, strings.Join(items, ", "))
		g.P(`        task_stage_prefix=frozenset([%s]),`, strings.Join(prefix, ", "))
		g.P(`    ),`)
	}
	g.P(`)`)
	g.P(``)
}

func (g *gen) genSoCs() {
	g.P(``)
	g.P(`#: The system-counter frequency by SoC, matched by prefix in this order`)
	g.P(`#: against normalize_soc_name(name).`)
	g.P(`SOCS = (`)
	for _, s := range g.s.SoCs {
		g.comment("    ", "#", s.Doc)
		g.P(`    SoC(%s, %s),`, pyString(s.Prefix), pyFloat(s.MHz))
	}
	g.P(`)`)
}

// pyFloat prints a float so that Python reads the same value.
func pyFloat(f float64) string {
	s := fmt.Sprintf("%v", f)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// genWrappers writes the functions whose parameters are one capacity per
// region (aic_capacity, aiv_capacity).
func (g *gen) genWrappers() {
	var params []string
	for _, r := range g.lay.Regions {
		params = append(params, lowerSnake(r.CoreType.Name)+"_capacity")
	}
	list := strings.Join(params, ", ")
	var none []string
	for _, p := range params {
		none = append(none, p+"=None")
	}
	g.P(``)
	g.P(``)
	g.P(`def buffer_size(cube_slots, %s):`, list)
	g.P(`    """The buffer size in bytes of a layout (LayoutError if there is no such layout)."""`)
	g.P(`    return Layout(cube_slots, (%s,)).size`, list)
	g.P(``)
	g.P(``)
	g.P(`def slot_offset(core_type, block_id, cube_slots, %s):`, list)
	g.P(`    """The buffer offset of the slot of core_type and block_id in a layout."""`)
	g.P(`    return Layout(cube_slots, (%s,)).slot(core_type, block_id).offset`, list)
	g.P(``)
	g.P(``)
	g.P(`def read_capture(source, cube_slots=None, %s, name=None):`, strings.Join(none, ", "))
	g.P(`    """Read a capture and check it as decode does; return a Capture.`)
	g.P(``)
	g.P(`    source is a path (raw bytes or a .npy file, told apart by the magic`)
	g.P(`    bytes; the file is memory-mapped, not read), bytes, bytearray or a`)
	g.P(`    memoryview (raw or .npy), a C-contiguous NumPy array of any dtype (its`)
	g.P(`    bytes are the buffer), or an object with .numpy() such as a CPU tensor.`)
	g.P(``)
	g.P(`    The layout is found as decode finds it (find_layout): from the headers`)
	g.P(`    and the size alone, unless cube_slots or the capacities (%s, all`, list)
	g.P(`    or none) are given. A capture decode refuses raises CaptureError with`)
	g.P(`    validate's error code, the file offset and the slot; values that make`)
	g.P(`    no layout raise LayoutError.`)
	g.P(`    name labels the capture in errors.`)
	g.P(`    """`)
	g.P(`    return _read_capture(source, cube_slots, _capacities((%s,)), name)`, list)
}
