package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// le is encoding/binary's little-endian byte order.
func le() *jen.Statement { return jen.Qual("encoding/binary", "LittleEndian") }

// genStructs emits every wire struct with its decoder, encoder and field
// table. FieldInfo and ShortBufferError, which do not depend on the schema,
// are hand-written (gen/go/abi/structs.go).
func (g *generator) genStructs(f *jen.File) {
	for _, st := range g.s.Structs {
		g.genStruct(f, st)
	}
}

// structMethods are the method names a field's Go name must not take
// (TaskNumber is hand-written, gen/go/abi/display.go).
var structMethods = map[string]bool{"Append": true, "IsZero": true, "TaskNumber": true}

// genStruct emits a wire struct and everything generated per struct.
func (g *generator) genStruct(f *jen.File, st *schema.Struct) {
	typ := g.declare(st.Name, "struct "+st.Name, st.Pos)
	fieldNames := map[string]string{}
	for _, fl := range st.Fields {
		n := goFieldName(fl.Name)
		if prev, dup := fieldNames[n]; dup {
			g.errorAt(fl.Pos, "fields %s and %s of %s both become Go field %s", prev, fl.Name, st.Name, n)
		}
		if structMethods[n] {
			g.errorAt(fl.Pos, "field %s of %s becomes Go field %s, which is a method name", fl.Name, st.Name, n)
		}
		fieldNames[n] = fl.Name
	}

	/*
		// CoreHeader is a 64-byte wire struct. The first 64 bytes of every slot...
		type CoreHeader struct {
			// System-counter value when the core entered the kernel; 0 = never entered.
			EntryCycle uint64 // offset 0
			CoreType CoreType
			Padding [32]byte
		}
	*/
	f.Add(comment(fmt.Sprintf("%s is a %d-byte little-endian wire struct. %s", typ, st.Size, sentence(st.Doc))))
	f.Type().Id(typ).StructFunc(func(grp *jen.Group) {
		for _, fl := range st.Fields {
			grp.Add(comment(sentence(fl.Doc)))
			if fl.Type == schema.Pad {
				grp.Id(goFieldName(fl.Name)).Index(jen.Lit(fl.Size)).Byte()
			} else {
				grp.Id(goFieldName(fl.Name)).Add(goType(fl))
			}
		}
	})
	f.Line()

	g.genDecode(f, st)
	g.genAppend(f, st)
	g.genIsZero(f, st)
	g.genFieldTable(f, st)
}

// genDecode emits Decode<Struct>.
func (g *generator) genDecode(f *jen.File, st *schema.Struct) {
	name := g.declare("Decode"+st.Name, "the decoder of "+st.Name, st.Pos)
	v := receiver(st.Name)
	/*
		// DecodeCoreHeader decodes a CoreHeader from the first CoreHeaderSize
		// bytes of b. ...
		func DecodeCoreHeader(b []byte) (CoreHeader, error) {
			if len(b) < CoreHeaderSize {
				return CoreHeader{}, &ShortBufferError{Struct: "CoreHeader", Need: CoreHeaderSize, Have: len(b)}
			}
			h := CoreHeader{
				EntryCycle: binary.LittleEndian.Uint64(b[CoreHeaderEntryCycleOffset:]),
				CoreType:   CoreType(binary.LittleEndian.Uint32(b[CoreHeaderCoreTypeOffset:])),
			}
			copy(h.Padding[:], b[CoreHeaderPaddingOffset:])
			return h, nil
		}
	*/
	f.Add(comment(fmt.Sprintf("%s decodes a %s from the first %s bytes of b (little-endian); later bytes are ignored. A shorter b is a *ShortBufferError; it never panics.",
		name, st.Name, st.Name+"Size")))
	f.Func().Id(name).Params(jen.Id("b").Index().Byte()).Params(jen.Id(st.Name), jen.Error()).BlockFunc(func(grp *jen.Group) {
		grp.If(jen.Len(jen.Id("b")).Op("<").Add(sizeConst(st))).Block(
			jen.Return(jen.Id(st.Name).Values(), shortBuffer(jen.Lit(st.Name), sizeConst(st), jen.Len(jen.Id("b")))),
		)
		var pads []*schema.Field
		grp.Id(v).Op(":=").Id(st.Name).ValuesFunc(func(vals *jen.Group) {
			for _, fl := range st.Fields {
				if fl.Type == schema.Pad {
					pads = append(pads, fl)
					continue
				}
				vals.Line().Id(goFieldName(fl.Name)).Op(":").Add(readField(st, fl, jen.Id("b")))
			}
			vals.Line()
		})
		for _, fl := range pads {
			grp.Copy(jen.Id(v).Dot(goFieldName(fl.Name)).Index(jen.Op(":")), jen.Id("b").Index(offsetConst(st, fl).Op(":")))
		}
		grp.Return(jen.Id(v), jen.Nil())
	})
	f.Line()
}

// readField is the expression reading a non-pad field of st from buf, which
// the caller has checked is long enough; enum fields convert to their type.
func readField(st *schema.Struct, fl *schema.Field, buf *jen.Statement) *jen.Statement {
	var raw *jen.Statement
	if fl.Type == schema.U8 {
		raw = buf.Clone().Index(offsetConst(st, fl))
	} else {
		raw = le().Dot(fmt.Sprintf("Uint%d", bits(fl.Type))).Call(buf.Clone().Index(offsetConst(st, fl).Op(":")))
	}
	if fl.Enum != nil {
		return jen.Id(fl.Enum.Name).Call(raw)
	}
	return raw
}

// genAppend emits the Append encoder method.
func (g *generator) genAppend(f *jen.File, st *schema.Struct) {
	v := receiver(st.Name)
	/*
		// Append appends the CoreHeaderSize-byte little-endian encoding of h to
		// dst and returns the extended slice.
		func (h *CoreHeader) Append(dst []byte) []byte {
			dst = binary.LittleEndian.AppendUint64(dst, h.EntryCycle)
			dst = binary.LittleEndian.AppendUint32(dst, uint32(h.CoreType))
			dst = append(dst, h.Padding[:]...)
			return dst
		}
	*/
	f.Add(comment(fmt.Sprintf("Append appends the %s-byte little-endian encoding of %s to dst and returns the extended slice.", st.Name+"Size", v)))
	f.Func().Params(jen.Id(v).Op("*").Id(st.Name)).Id("Append").Params(jen.Id("dst").Index().Byte()).Index().Byte().BlockFunc(func(grp *jen.Group) {
		// Fields are contiguous and in offset order (the schema loader
		// rejects gaps and overlaps), so appending in order lays them out.
		for _, fl := range st.Fields {
			val := jen.Id(v).Dot(goFieldName(fl.Name))
			switch {
			case fl.Type == schema.Pad:
				grp.Id("dst").Op("=").Append(jen.Id("dst"), val.Index(jen.Op(":")).Op("..."))
			case fl.Type == schema.U8:
				if fl.Enum != nil {
					val = jen.Uint8().Call(val)
				}
				grp.Id("dst").Op("=").Append(jen.Id("dst"), val)
			default:
				if fl.Enum != nil {
					val = uintType(fl.Type).Call(val)
				}
				grp.Id("dst").Op("=").Add(le()).Dot(fmt.Sprintf("AppendUint%d", bits(fl.Type))).Call(jen.Id("dst"), val)
			}
		}
		grp.Return(jen.Id("dst"))
	})
	f.Line()
}

// genIsZero emits the IsZero method.
func (g *generator) genIsZero(f *jen.File, st *schema.Struct) {
	v := receiver(st.Name)
	/*
		// IsZero reports whether every non-padding field of h is zero.
		func (h *CoreHeader) IsZero() bool {
			return h.EntryCycle == 0 &&
				h.RecordCount == 0
		}
	*/
	d := fmt.Sprintf("IsZero reports whether every non-padding field of %s is zero.", v)
	if st == g.s.Layout.Header {
		d += " A slot whose header is zero belongs to a core that never entered the kernel (an unused slot)."
	}
	f.Add(comment(d))
	var cond *jen.Statement
	for _, fl := range st.Fields {
		if fl.Type == schema.Pad {
			continue
		}
		term := jen.Id(v).Dot(goFieldName(fl.Name)).Op("==").Lit(0)
		if cond == nil {
			cond = term
		} else {
			cond = cond.Op("&&").Line().Add(term)
		}
	}
	if cond == nil {
		cond = jen.True()
	}
	f.Func().Params(jen.Id(v).Op("*").Id(st.Name)).Id("IsZero").Params().Bool().Block(jen.Return(cond))
	f.Line()
}

// genFieldTable emits <Struct>Fields.
func (g *generator) genFieldTable(f *jen.File, st *schema.Struct) {
	name := g.declare(st.Name+"Fields", "the field table of "+st.Name, st.Pos)
	/*
		// CoreHeaderFields describes the fields of CoreHeader in wire order.
		func CoreHeaderFields() []FieldInfo {
			return []FieldInfo{
				{Name: "entry_cycle", Type: "u64", Offset: CoreHeaderEntryCycleOffset, Size: 8, Doc: "..."},
			}
		}
	*/
	f.Add(comment(fmt.Sprintf("%s describes the fields of %s in wire order; the slice is the caller's to keep.", name, st.Name)))
	f.Func().Id(name).Params().Index().Id("FieldInfo").Block(
		jen.Return(jen.Index().Id("FieldInfo").ValuesFunc(func(grp *jen.Group) {
			for _, fl := range st.Fields {
				d := []jen.Code{
					kv("Name", jen.Lit(fl.Name)),
					kv("Type", jen.Lit(string(fl.Type))),
					kv("Offset", offsetConst(st, fl)),
					kv("Size", jen.Lit(fl.Size)),
				}
				if fl.Enum != nil {
					d = append(d, kv("Enum", jen.Lit(fl.Enum.Name)))
				}
				if fl.Zero {
					d = append(d, kv("Zero", jen.True()))
				}
				if fl.MinField != nil {
					d = append(d, kv("MinField", jen.Lit(fl.MinField.Name)))
				}
				if fl.MaxField != nil {
					d = append(d, kv("MaxField", jen.Lit(fl.MaxField.Name)))
				}
				if fl.WarnNonzero {
					d = append(d, kv("WarnNonzero", jen.True()))
				}
				d = append(d, kv("Doc", jen.Lit(fl.Doc)))
				grp.Line().Values(d...)
			}
			grp.Line()
		})),
	)
	f.Line()
}

// kv renders a keyed element of a composite literal, in the order given
// (jen.Dict would sort the keys).
func kv(key string, value jen.Code) *jen.Statement { return jen.Id(key).Op(":").Add(value) }

// shortBuffer renders &ShortBufferError{Struct: what, Need: need, Have: have}.
func shortBuffer(what, need, have jen.Code) *jen.Statement {
	return jen.Op("&").Id("ShortBufferError").Values(kv("Struct", what), kv("Need", need), kv("Have", have))
}
