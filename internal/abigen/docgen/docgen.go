// Package docgen renders the ABI reference, gen/doc/ABI.md, from the
// validated schema: every struct as a byte-offset table and a drawn layout,
// the buffer layout with its stride and size formulas, the enums, the
// descriptor-ID namespaces, the SoC table, the constants (with how the
// derived ones are derived), the version and the fingerprint.
//
// Like the Go and C++ emitters it is pure (model in, files out) and
// deterministic, so `abigen -check` catches a reference that drifted from
// the schema.
package docgen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// File is the name of the reference, relative to the doc output folder.
const File = "ABI.md"

// Generate renders the reference for s, keyed by File.
func Generate(s *schema.Schema) (map[string][]byte, error) {
	if s.Layout == nil || s.Descriptors == nil {
		return nil, errors.New("docgen: the schema has no layout or descriptors (was it validated by schema.Load?)")
	}
	g := &gen{s: s}
	g.header()
	g.structs()
	g.buffer()
	g.enums()
	g.descriptors()
	g.families()
	g.socs()
	g.constants()
	return map[string][]byte{File: []byte(g.b.String())}, nil
}

type gen struct {
	s *schema.Schema
	b strings.Builder
}

func (g *gen) p(format string, args ...any) { fmt.Fprintf(&g.b, format+"\n", args...) }

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// code quotes s as inline code ("" for nothing).
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func hex(v uint64) string { return fmt.Sprintf("0x%x", v) }

func (g *gen) header() {
	s := g.s
	for _, line := range s.Banner() {
		g.p("<!-- %s -->", line)
	}
	g.p("")
	g.p("# MegaKernel cycle-trace ABI")
	g.p("")
	g.p("The reference for the bytes a MegaKernel writes into its profiling buffer")
	g.p("and the host decodes. It is generated from `%s`, the single source of", s.File)
	g.p("truth, as are the Go package (gen/go/abi) and the C++ header (gen/cpp).")
	g.p("")
	g.p("| ABI version | fingerprint |")
	g.p("|---:|---|")
	g.p("| %d | `0x%s` |", s.Version, s.FingerprintHex())
	g.p("")
	g.p("The fingerprint is the first 8 bytes of the SHA-256 of the schema's")
	g.p("buffer layout: the header and record structs, the enums their fields use,")
	g.p("the layout constants and the slot regions. Docs, display names, descriptor")
	g.p("namespaces, kernel families and the SoC table are not part of it, so a")
	g.p("change `abigen diff` calls compatible never changes it. A device build")
	g.p("stamps it and the decoder reports it, so a buffer and a decoder built from")
	g.p("different layouts can be told apart. The version is raised with every")
	g.p("breaking change (`abigen diff` says when).")
	g.p("")
	g.p("Every integer is little-endian. Offsets are bytes from the start of the")
	g.p("struct; there is no implicit padding (gaps are named `pad` fields).")
	g.p("")
	g.p("- [Structs](#structs):%s", g.structLinks())
	g.p("- [Buffer layout](#buffer-layout)")
	g.p("- [Enums](#enums)")
	g.p("- [Descriptor IDs](#descriptor-ids)")
	if len(s.Families) > 0 {
		g.p("- [Kernel families](#kernel-families)")
	}
	g.p("- [SoC system-counter frequencies](#soc-system-counter-frequencies)")
	g.p("- [Constants](#constants)")
}

func (g *gen) structLinks() string {
	var links []string
	for _, st := range g.s.Structs {
		links = append(links, fmt.Sprintf(" [%s](#%s)", st.Name, strings.ToLower(st.Name)))
	}
	return strings.Join(links, ",")
}

func (g *gen) structs() {
	g.p("")
	g.p("## Structs")
	for _, st := range g.s.Structs {
		g.structure(st)
	}
}

// role says what the layout uses a struct for.
func (g *gen) role(st *schema.Struct) string {
	switch st {
	case g.s.Layout.Header:
		return "; the slot header (the first bytes of every slot)"
	case g.s.Layout.Record:
		return "; the record (a slot's records follow its header)"
	}
	return "; not part of the buffer layout"
}

func (g *gen) structure(st *schema.Struct) {
	g.p("")
	g.p("### %s", st.Name)
	g.p("")
	g.p("%s", st.Doc)
	g.p("")
	g.p("Size %d bytes%s.", st.Size, g.role(st))
	g.p("")
	g.p("| offset | size | type | field | checks | doc |")
	g.p("|---:|---:|---|---|---|---|")
	for _, f := range st.Fields {
		typ := string(f.Type)
		if f.Enum != nil {
			typ += " (" + f.Enum.Name + ")"
		}
		g.p("| %d (0x%02x) | %d | %s | `%s` | %s | %s |", f.Offset, f.Offset, f.Size, typ, f.Name, cell(checks(f)), cell(f.Doc))
	}
	g.p("")
	g.p("```text")
	g.b.WriteString(drawStruct(st))
	g.p("```")
}

// checks describes what the validator checks of a field.
func checks(f *schema.Field) string {
	var c []string
	if f.Zero {
		c = append(c, "must be 0")
	}
	if f.Enum != nil {
		c = append(c, "a "+f.Enum.Name)
	}
	if f.MinField != nil {
		c = append(c, ">= "+code(f.MinField.Name))
	}
	if f.MaxField != nil {
		c = append(c, "<= "+code(f.MaxField.Name))
	}
	if f.WarnNonzero {
		c = append(c, "nonzero bytes warn")
	}
	return strings.Join(c, "; ")
}

// regionVar is the capacity variable of a region ("K_AIC").
func regionVar(r *schema.Region) string { return "K_" + r.CoreType.Name }

// slots is a region's slot count in terms of C ("C", "2*C").
func slots(r *schema.Region) string {
	if r.SlotsPerCubeSlot == 1 {
		return "C"
	}
	return fmt.Sprintf("%d*C", r.SlotsPerCubeSlot)
}

func (g *gen) buffer() {
	l := g.s.Layout
	hdr, rec := l.Header, l.Record
	g.p("")
	g.p("## Buffer layout")
	g.p("")
	g.p("A profiling buffer holds the regions below, in this order, for C cube")
	g.p("slots (C >= %s = %d). All slots of a region share one record capacity", l.MinCubeSlots.Name, l.MinCubeSlots.Value)
	g.p("K: a multiple of %s = %d, at most %s = %d.", l.Alignment.Name, l.Alignment.Value, l.MaxRecordsPerCore.Name, l.MaxRecordsPerCore.Value)
	g.p("")
	g.p("| region | core type | slots | block ids | capacity | doc |")
	g.p("|---:|---|---|---|---|---|")
	for i, r := range l.Regions {
		g.p("| %d | %s = %d | %s | 0 .. %s-1 | %s | %s |", i, r.CoreType.Name, r.CoreType.Value, slots(r), slots(r), regionVar(r), cell(r.Doc))
	}
	g.p("")
	g.p("A slot is one %s followed by K %ss:", hdr.Name, rec.Name)
	g.p("")
	g.p("```text")
	g.b.WriteString(drawBoxes([]string{fmt.Sprintf("%s (%d)", hdr.Name, hdr.Size), fmt.Sprintf("record 0 (%d)", rec.Size), "...", fmt.Sprintf("record K-1 (%d)", rec.Size)}))
	g.p("")
	g.p("stride(K)         = sizeof(%s) + K * sizeof(%s) = %d + %d*K", hdr.Name, rec.Name, hdr.Size, rec.Size)
	g.p("record i of slot  = slot + %d + %d*i", hdr.Size, rec.Size)
	g.p("```")
	g.p("")
	g.p("A slot's stride is at most %s = %d (it fits in a u32).", l.StrideLimit.Name, l.StrideLimit.Value)
	g.p("")
	g.p("A core writes each record's %d bytes before it raises record_count to count", rec.Size)
	g.p("the record, with a barrier between them and after (the generated C++ writers")
	g.p("call `CYCLEABI_BARRIER()` there). So whenever record_count reads N, records")
	g.p("0 .. N-1 are complete, even in a buffer read while the kernel runs or after it")
	g.p("crashed. A record that does not fit raises dropped_count instead and writes")
	g.p("nothing.")
	g.p("")
	var cells []string
	for _, r := range l.Regions {
		n := r.CoreType.Name
		cells = append(cells, n+"/0", "...", fmt.Sprintf("%s/%s-1", n, slots(r)))
	}
	g.p("```text")
	g.b.WriteString(drawBoxes(cells))
	g.p("")
	start := []string{}
	var startNum uint64
	c, k := l.MinCubeSlots.Value, l.Alignment.Value
	stride := uint64(hdr.Size) + k*uint64(rec.Size)
	var example [][2]string
	for _, r := range l.Regions {
		at := "i * stride(" + regionVar(r) + ")"
		if len(start) > 0 {
			at = strings.Join(start, " + ") + " + " + at
		}
		g.p("%s slot i (0 <= i < %s) starts at %s", r.CoreType.Name, slots(r), at)
		example = append(example, [2]string{fmt.Sprintf("%s slot 0 starts at", r.CoreType.Name), number(startNum)})
		start = append(start, fmt.Sprintf("%s * stride(%s)", slots(r), regionVar(r)))
		startNum += uint64(r.SlotsPerCubeSlot) * c * stride
	}
	g.p("")
	g.p("size = %s", strings.Join(start, " + "))
	var expanded []string
	for _, r := range l.Regions {
		expanded = append(expanded, fmt.Sprintf("%s * (%d + %d*%s)", slots(r), hdr.Size, rec.Size, regionVar(r)))
	}
	g.p("     = %s", strings.Join(expanded, " + "))
	g.p("```")
	g.p("")
	g.p("For example, with C = %d and every capacity K = %d (stride %d):", c, k, stride)
	g.p("")
	g.p("| | bytes |")
	g.p("|---|---:|")
	for _, e := range example {
		g.p("| %s | %s |", e[0], e[1])
	}
	g.p("| size | %s |", number(startNum))
}

// number prints a byte count in decimal and hex.
func number(v uint64) string { return fmt.Sprintf("%d (0x%x)", v, v) }

func (g *gen) enums() {
	g.p("")
	g.p("## Enums")
	g.p("")
	g.p("Enum values are u32 on the wire.")
	for _, e := range g.s.Enums {
		g.p("")
		g.p("### %s", e.Name)
		g.p("")
		g.p("%s%s", e.Doc, g.usedBy(e))
		g.p("")
		g.p("| value | hex | name | doc |")
		g.p("|---:|---:|---|---|")
		for _, v := range e.Values {
			g.p("| %d | 0x%x | `%s` | %s |", v.Value, v.Value, v.Name, cell(v.Doc))
		}
	}
}

// usedBy says which fields, regions and namespaces use an enum.
func (g *gen) usedBy(e *schema.Enum) string {
	var uses []string
	for _, st := range g.s.Structs {
		for _, f := range st.Fields {
			if f.Enum == e {
				uses = append(uses, code(st.Name+"."+f.Name))
			}
		}
	}
	if g.s.Layout.CoreTypes == e {
		uses = append(uses, "the buffer regions")
	}
	for _, ns := range g.s.Descriptors.Namespaces {
		if ns.Enum == e {
			uses = append(uses, "the names of descriptor namespace "+ns.Name)
		}
	}
	if len(uses) == 0 {
		return ""
	}
	if len(uses) > 1 {
		uses[len(uses)-2] += " and " + uses[len(uses)-1]
		uses = uses[:len(uses)-1]
	}
	return " Used by " + strings.Join(uses, ", ") + "."
}

// display fills a descriptor display format.
func display(format, name string, index uint32, descID uint64) string {
	return strings.NewReplacer("{name}", name, "{index}", strconv.FormatUint(uint64(index), 10),
		"{desc_id}", strconv.FormatUint(descID, 10)).Replace(format)
}

// firstUnnamed returns the smallest index of ns without a name.
func firstUnnamed(ns *schema.Namespace) (uint32, bool) {
	named := map[uint32]bool{}
	for _, n := range ns.Names {
		named[n.Index] = true
	}
	if ns.Enum != nil {
		for _, v := range ns.Enum.Values {
			named[v.Value] = true
		}
	}
	for i := uint32(0); i < ns.Count; i++ {
		if !named[i] {
			return i, true
		}
	}
	return 0, false
}

func (g *gen) descriptors() {
	d := g.s.Descriptors
	g.p("")
	g.p("## Descriptor IDs")
	g.p("")
	g.p("A record's `desc_id` says what the core was doing. It falls in at most one")
	g.p("of these namespaces, the range [base, base+count); its index is")
	g.p("desc_id - base. A named index displays with `display`, any other with")
	g.p("`fallback` ({name}, {index} and {desc_id}, in decimal, are filled in); the")
	g.p("trace argument `arg` carries the index. A desc_id in no namespace")
	g.p("displays as %s.", code(d.Unknown))
	g.p("")
	g.p("| namespace | range | count | names | display | fallback | arg | example unnamed | doc |")
	g.p("|---|---|---:|---|---|---|---|---|---|")
	for _, ns := range d.Namespaces {
		names := fmt.Sprintf("%d below", len(ns.Names))
		if ns.Enum != nil {
			names = "enum " + ns.Enum.Name
		} else if len(ns.Names) == 0 {
			names = "from the kernel"
		}
		example := ""
		if i, ok := firstUnnamed(ns); ok {
			id := uint64(ns.Base) + uint64(i)
			example = fmt.Sprintf("0x%x → %s", id, code(display(ns.Fallback, "", i, id)))
		}
		g.p("| %s | 0x%x .. 0x%x | 0x%x | %s | %s | %s | %s | %s | %s |", ns.Name, ns.Base, ns.End()-1, ns.Count,
			names, code(ns.Display), code(ns.Fallback), code(ns.Arg), example, cell(ns.Doc))
	}
	for _, ns := range d.Namespaces {
		if ns.Enum == nil && len(ns.Names) == 0 {
			continue
		}
		g.p("")
		g.p("### %s", ns.Name)
		g.p("")
		prefixed := false
		for _, n := range ns.Names {
			prefixed = prefixed || n.TaskStagePrefix
		}
		if prefixed {
			g.p("A name marked *prefixed* is shown after the task's stage name when the")
			g.p("task has one: `<TaskStage>_<name>`.")
			g.p("")
		}
		g.p("| desc_id | index | name | displays as | doc |")
		g.p("|---|---:|---|---|---|")
		if ns.Enum != nil {
			for _, v := range ns.Enum.Values {
				id := uint64(ns.Base) + uint64(v.Value)
				g.p("| 0x%x | %d | `%s` | %s | %s |", id, v.Value, v.Name, code(display(ns.Display, v.Name, v.Value, id)), cell(v.Doc))
			}
			continue
		}
		for _, n := range ns.Names {
			id := uint64(ns.Base) + uint64(n.Index)
			shown := code(display(ns.Display, n.Name, n.Index, id))
			if n.TaskStagePrefix {
				shown += " (*prefixed*)"
			}
			g.p("| 0x%x | %d | `%s` | %s | %s |", id, n.Index, n.Name, shown, cell(n.Doc))
		}
	}
}

// normalizeSoC is the SoC-name normalisation of the schema: lower case,
// letters, digits and '_' kept.
func normalizeSoC(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (g *gen) socs() {
	g.p("")
	g.p("## SoC system-counter frequencies")
	g.p("")
	g.p("Cycle values are system-counter ticks (GetSystemCycle), not AI Core clock")
	g.p("cycles. A SoC name is normalised (lower case; letters, digits and `_`")
	g.p("kept) and matched against these prefixes in this order; the first match")
	g.p("wins. A prefix starting `ascend` also matches the name without it (`910_93`")
	g.p("is the Ascend 910_93). An unknown SoC is an error that lists the prefixes.")
	if len(g.s.SoCs) > 0 {
		first := g.s.SoCs[0]
		example := "Ascend" + strings.ToUpper(strings.TrimPrefix(first.Prefix, "ascend")) + "2"
		g.p("For example `%s` → `%s` → %s (%s MHz).", example, normalizeSoC(example), first.Prefix, mhz(first.MHz))
	}
	g.p("")
	g.p("| order | prefix | MHz | doc |")
	g.p("|---:|---|---:|---|")
	for i, s := range g.s.SoCs {
		g.p("| %d | `%s` | %s | %s |", i+1, s.Prefix, mhz(s.MHz), cell(s.Doc))
	}
}

func mhz(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (g *gen) constants() {
	l := g.s.Layout
	g.p("")
	g.p("## Constants")
	g.p("")
	g.p("| name | value | hex | derived | doc |")
	g.p("|---|---:|---:|---|---|")
	for _, c := range g.s.Constants {
		derived := ""
		if c.Derived != "" {
			derived = "yes, below"
		}
		g.p("| `%s` | %d | %s | %s | %s |", c.Name, c.Value, hex(c.Value), derived, cell(c.Doc))
	}
	for _, c := range g.s.Constants {
		if c.Derived == "" {
			continue
		}
		g.p("")
		g.p("### %s", c.Name)
		g.p("")
		g.p("%s", c.Doc)
		g.p("")
		g.p("```text")
		g.p("%s = %s", c.Name, c.Derived)
		if c == l.MaxRecordsPerCore {
			// The derivation step by step, in integer division.
			limit, hdr, rec, align := l.StrideLimit.Value, uint64(l.Header.Size), uint64(l.Record.Size), l.Alignment.Value
			pad := strings.Repeat(" ", len(c.Name))
			g.p("%s = (%d - %d) / %d / %d * %d", pad, limit, hdr, rec, align, align)
			g.p("%s = %d / %d / %d * %d", pad, limit-hdr, rec, align, align)
			g.p("%s = %d / %d * %d", pad, (limit-hdr)/rec, align, align)
			g.p("%s = %d * %d", pad, (limit-hdr)/rec/align, align)
			g.p("%s = %d", pad, c.Value)
			g.p("```")
			g.p("")
			g.p("Every division rounds down. The largest slot then has stride")
			g.p("%d + %d*%d = %d <= %s.", hdr, rec, c.Value, hdr+rec*c.Value, l.StrideLimit.Name)
			continue
		}
		g.p("%s = %d", strings.Repeat(" ", len(c.Name)), c.Value)
		g.p("```")
	}
}
