// Package cppgen emits the C++ side of the cycle-trace ABI: one
// self-contained, freestanding header (gen/cpp/cycleabi_abi.h) that device
// kernels include to lay out and write the profiling buffer.
//
// Generate is pure: a validated schema model in, file contents out. Only
// cmd/abigen writes files. Every number in the header comes from the model
// and is pinned by a static_assert, so a header that drifts from the schema,
// or a compiler that lays a struct out differently, fails to compile.
package cppgen

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/megakernel/cycleabi/internal/abigen/emit"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// HeaderFile is the name of the generated header, relative to gen/cpp.
const HeaderFile = "cycleabi_abi.h"

// Generate renders the C++ header for s. The result maps HeaderFile to its
// contents. The output depends only on s, so equal models give equal bytes.
// It fails when s lacks a layout or descriptors (a model Load did not
// validate) or when the schema cannot be expressed in C++ (two declarations
// that would get the same C++ name); then every problem is one line,
// "file:line:col: message", in file order.
func Generate(s *schema.Schema) (map[string][]byte, error) {
	if s == nil || s.Layout == nil || s.Descriptors == nil {
		return nil, fmt.Errorf("cppgen: schema has no layout or descriptors (load it with schema.Load)")
	}
	g := &gen{File: emit.File{Lang: "C++"}, s: s, lay: s.Layout}
	g.genPrologue()
	g.genVersion()
	g.genConstants()
	for _, e := range s.Enums {
		g.genEnum(e)
	}
	for _, st := range s.Structs {
		g.genStruct(st)
	}
	g.genDerivedChecks()
	g.genDescriptors()
	g.genFamilies()
	g.genLayout()
	g.genPublishHelpers()
	g.genWriter()
	g.genRecorder()
	g.genEpilogue()
	if err := g.Err(s.File); err != nil {
		return nil, err
	}
	return map[string][]byte{HeaderFile: g.Buf.Bytes()}, nil
}

// gen is the file being written (emit.File: its text, its declared names
// and its problems) and the schema it is written from.
type gen struct {
	emit.File
	s   *schema.Schema
	lay *schema.Layout
}

// comment writes text as // lines wrapped at 80 columns, indented by indent.
//
// A // line that ends in a backslash (or the trigraph ??/, a backslash at
// -std=c++11) continues onto the next line, which the compiler then reads
// as comment too: the wrap never breaks after such a word. The schema
// loader refuses a doc that ends in one, so every line ends safely.
func (g *gen) comment(indent, text string) {
	const width = 80
	line := indent + "//"
	splices := false
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > width && line != indent+"//" && !splices {
			g.P("%s", line)
			line = indent + "//"
		}
		line += " " + w
		splices = strings.HasSuffix(w, `\`) || strings.HasSuffix(w, "??/")
	}
	if line != indent+"//" {
		g.P("%s", line)
	}
}

// Names in the header. Schema names are identifiers already (the loader
// checks them against Go and C++ keywords); these build the derived ones.

// constName is the C++ name of a constant: kRecordCapacityAlignment.
func constName(parts ...string) string { return "k" + strings.Join(parts, "") }

// camel turns a field name into CamelCase: record_count → RecordCount.
func camel(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// snake turns an enum value name into snake_case: AIC → aic, MatMul → mat_mul.
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// cppType is the C++ type that stores a field of type t (pad: the element type).
func cppType(t schema.FieldType) string {
	switch t {
	case schema.U16:
		return "uint16_t"
	case schema.U32:
		return "uint32_t"
	case schema.U64:
		return "uint64_t"
	}
	return "uint8_t"
}

// literal formats v for a constant of C++ type typ: decimal, or hex when
// that is what the number means (a mask such as 0xFFFFFFFF, a base such as
// 0x10000), with a suffix where the literal would not fit an int.
func literal(v uint64, typ string) string {
	s := fmt.Sprintf("%d", v)
	if v >= 0x10000 && (v&0xfff == 0 || v&(v+1) == 0) {
		s = fmt.Sprintf("0x%X", v)
	}
	switch {
	case typ == "uint64_t":
		return s + "ull"
	case v > math.MaxInt32:
		return s + "u"
	}
	return s
}

// hexLiteral formats v as a uint32_t hex literal (descriptor IDs and ranges
// read best in hex).
func hexLiteral(v uint64) string {
	if v > math.MaxInt32 {
		return fmt.Sprintf("0x%Xu", v)
	}
	return fmt.Sprintf("0x%X", v)
}

// signature writes a function head, prefix + "(" + params + ") {", filling
// lines of up to 100 columns and aligning continued parameters after "(".
func (g *gen) signature(prefix string, params []string) {
	const width = 100
	line := prefix + "("
	indent := strings.Repeat(" ", len(line))
	for i, p := range params {
		p += map[bool]string{true: ") {", false: ","}[i == len(params)-1]
		switch {
		case i == 0:
			line += p
		case len(line)+1+len(p) > width:
			g.P("%s", line)
			line = indent + p
		default:
			line += " " + p
		}
	}
	g.P("%s", line)
}

// constType is the narrowest of uint32_t and uint64_t that holds v.
func constType(v uint64) string {
	if v > math.MaxUint32 {
		return "uint64_t"
	}
	return "uint32_t"
}

// region parameter names: one record capacity per region, named after its
// core type (aic_capacity, aiv_capacity), in region order.
func (g *gen) capacityParams() []string {
	var ps []string
	for _, r := range g.lay.Regions {
		ps = append(ps, snake(r.CoreType.Name)+"_capacity")
	}
	return ps
}

func (g *gen) capacityDecls() []string {
	var ds []string
	for _, p := range g.capacityParams() {
		ds = append(ds, "uint32_t "+p)
	}
	return ds
}

func (g *gen) capacityArgs() string { return strings.Join(g.capacityParams(), ", ") }

// coreType is the C++ spelling of a core type value: CoreType::AIC.
func (g *gen) coreType(v *schema.EnumValue) string { return g.lay.CoreTypes.Name + "::" + v.Name }

// regionSlots is the number of slots in region r, as a C++ uint64_t expression.
func regionSlots(r *schema.Region) string {
	if r.SlotsPerCubeSlot == 1 {
		return "static_cast<uint64_t>(cube_slots)"
	}
	return fmt.Sprintf("%d * static_cast<uint64_t>(cube_slots)", r.SlotsPerCubeSlot)
}

// regionSummary describes the regions in buffer order for comments:
// "cube_slots AIC slots, then 2*cube_slots AIV slots".
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
