package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// genConstants emits the version, the fingerprint, the schema constants and,
// per struct, its size and every field offset.
func (g *generator) genConstants(f *jen.File) {
	s := g.s
	/*
		const (
			// Version is the ABI version ...
			Version = 1
			// Fingerprint is ...
			Fingerprint uint64 = 0xCFF7...
			// FingerprintHex is Fingerprint as 16 lower-case hex digits.
			FingerprintHex = "cff7..."
		)
	*/
	f.Const().Defs(
		comment("Version is the ABI version; it is raised on every change that breaks the wire or display contract."),
		jen.Id(g.fixed("Version")).Op("=").Lit(int(s.Version)),
		comment("Fingerprint is the first 8 bytes (big-endian) of the SHA-256 of the schema's canonical buffer layout (structs, wire enums, layout constants, slot regions): it changes only with a breaking change on the wire."),
		jen.Id(g.fixed("Fingerprint")).Uint64().Op("=").Add(hex(s.Fingerprint)),
		comment("FingerprintHex is Fingerprint as 16 lower-case hex digits."),
		jen.Id(g.fixed("FingerprintHex")).Op("=").Lit(s.FingerprintHex()),
	)
	f.Line()

	/*
		const (
			// Every per-core record capacity is a multiple of this many records.
			RecordCapacityAlignment = 16
			...
			// The largest record capacity ... (derived: ...)
			MaxRecordsPerCore = 134217712
		)
	*/
	f.Const().DefsFunc(func(grp *jen.Group) {
		for _, c := range s.Constants {
			d := sentence(c.Doc)
			if c.Derived != "" {
				d += " Derived: " + c.Derived + "."
			}
			grp.Add(comment(d))
			grp.Id(g.declare(c.Name, "constant "+c.Name, c.Pos)).Op("=").Add(number(c.Value))
		}
	})
	f.Line()

	for _, st := range s.Structs {
		g.genStructConstants(f, st)
	}
}

// genStructConstants emits a struct's size and one offset constant per field.
func (g *generator) genStructConstants(f *jen.File, st *schema.Struct) {
	/*
		// Sizes and field offsets of CoreHeader, in bytes.
		const (
			// CoreHeaderSize is the size of CoreHeader on the wire.
			CoreHeaderSize = 64
			// CoreHeaderEntryCycleOffset is the offset of entry_cycle (u64).
			CoreHeaderEntryCycleOffset = 0
			...
		)
	*/
	f.Comment(fmt.Sprintf("Size and field offsets of %s on the wire, in bytes.", st.Name))
	f.Const().DefsFunc(func(grp *jen.Group) {
		size := g.declare(st.Name+"Size", "the size of struct "+st.Name, st.Pos)
		grp.Add(comment(fmt.Sprintf("%s is the size of %s.", size, st.Name)))
		grp.Id(size).Op("=").Lit(st.Size)
		for _, fl := range st.Fields {
			name := g.declare(st.Name+goFieldName(fl.Name)+"Offset", "the offset of "+st.Name+"."+fl.Name, fl.Pos)
			what := string(fl.Type)
			if fl.Type == schema.Pad {
				what = fmt.Sprintf("%d bytes of padding", fl.Size)
			}
			grp.Add(comment(fmt.Sprintf("%s is the offset of %s (%s).", name, fl.Name, what)))
			grp.Id(name).Op("=").Lit(fl.Offset)
		}
	})
	f.Line()
}

// offsetConst names the offset constant of a field.
func offsetConst(st *schema.Struct, fl *schema.Field) *jen.Statement {
	return jen.Id(st.Name + goFieldName(fl.Name) + "Offset")
}

// sizeConst names the size constant of a struct.
func sizeConst(st *schema.Struct) *jen.Statement {
	return jen.Id(st.Name + "Size")
}
