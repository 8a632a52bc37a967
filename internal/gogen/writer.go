package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/schema"
)

// writerRoles are the header fields the writer addresses, with the types its
// Go signatures assume. The schema loader requires the same (its headerRoles);
// checking again here turns a future mismatch into a clear error instead of
// generated code that does not compile.
var writerRoles = []struct {
	name string
	typ  schema.FieldType
}{{"entry_cycle", schema.U64}, {"record_count", schema.U32}, {"dropped_count", schema.U32}, {"core_type", schema.U32}, {"block_id", schema.U32}, {"record_capacity", schema.U32}}

// genWriter emits the Go mirror of the device-side writer: InitSlot and WriteRecord.
func (g *generator) genWriter(f *jen.File) {
	l := g.s.Layout
	hdr, rec, ct := l.Header, l.Record, l.CoreTypes.Name
	fields := map[string]*schema.Field{}
	for _, r := range writerRoles {
		fl := hdr.Field(r.name)
		if fl == nil || fl.Type != r.typ {
			g.errorf("the writer needs a %s field %s in %s", r.typ, r.name, hdr.Name)
			return
		}
		fields[r.name] = fl
	}
	field := func(name string) string { return goFieldName(fields[name].Name) }
	off := func(name string) *jen.Statement { return offsetConst(hdr, fields[name]) }
	u32 := func(name string) *jen.Statement {
		return le().Dot("Uint32").Call(jen.Id("slot").Index(off(name).Op(":")))
	}
	put32 := func(name string, v jen.Code) *jen.Statement {
		return le().Dot("PutUint32").Call(jen.Id("slot").Index(off(name).Op(":")), v)
	}
	shortSlot := func(need jen.Code) *jen.Statement {
		return shortBuffer(jen.Lit("slot"), jen.Int().Call(need), jen.Len(jen.Id("slot")))
	}

	/*
		// InitSlot writes the header of a slot as a core does at kernel entry ...
		func InitSlot(slot []byte, entryCycle uint64, t CoreType, blockID, capacity uint32) error {
			if need := SlotStride(capacity); uint64(len(slot)) < need {
				return &ShortBufferError{Struct: "slot", Need: int(need), Have: len(slot)}
			}
			h := CoreHeader{EntryCycle: entryCycle, CoreType: t, BlockID: blockID, RecordCapacity: capacity}
			h.Append(slot[:0:CoreHeaderSize])
			return nil
		}
	*/
	initName := g.fixed("InitSlot")
	f.Add(comment(fmt.Sprintf("%s writes the %s of a slot as a core does at kernel entry: %s, %s, %s and %s as given; %s, %s and every other field 0, padding zeroed. The records are left as they are. slot must hold the whole slot, SlotStride(capacity) bytes; otherwise it returns a *ShortBufferError and writes nothing.",
		initName, hdr.Name, fields["entry_cycle"].Name, fields["core_type"].Name, fields["block_id"].Name, fields["record_capacity"].Name,
		fields["record_count"].Name, fields["dropped_count"].Name)))
	hv := receiver(hdr.Name)
	f.Func().Id(initName).Params(
		jen.Id("slot").Index().Byte(), jen.Id("entryCycle").Uint64(), jen.Id("t").Id(ct), jen.List(jen.Id("blockID"), jen.Id("capacity")).Uint32(),
	).Error().Block(
		jen.If(jen.Id("need").Op(":=").Id("SlotStride").Call(jen.Id("capacity")), jen.Uint64().Call(jen.Len(jen.Id("slot"))).Op("<").Id("need")).Block(
			jen.Return(shortSlot(jen.Id("need"))),
		),
		jen.Id(hv).Op(":=").Id(hdr.Name).Values(
			kv(field("entry_cycle"), jen.Id("entryCycle")),
			kv(field("core_type"), coreTypeValue(fields["core_type"], ct)),
			kv(field("block_id"), jen.Id("blockID")),
			kv(field("record_capacity"), jen.Id("capacity")),
		),
		jen.Comment("Append fills the header in place: the slice has room for exactly it."),
		jen.Id(hv).Dot("Append").Call(jen.Id("slot").Index(jen.Empty(), jen.Lit(0), sizeConst(hdr))),
		jen.Return(jen.Nil()),
	)
	f.Line()

	/*
		// WriteRecord appends r to a slot the way a core does ...
		func WriteRecord(slot []byte, r *ProfileRecord) (written bool, err error) {
			if len(slot) < CoreHeaderSize {
				return false, &ShortBufferError{Struct: "CoreHeader", Need: CoreHeaderSize, Have: len(slot)}
			}
			count := binary.LittleEndian.Uint32(slot[CoreHeaderRecordCountOffset:])
			capacity := binary.LittleEndian.Uint32(slot[CoreHeaderRecordCapacityOffset:])
			if need := SlotStride(capacity); uint64(len(slot)) < need {
				return false, &ShortBufferError{Struct: "slot", Need: int(need), Have: len(slot)}
			}
			if count >= capacity {
				binary.LittleEndian.PutUint32(slot[CoreHeaderDroppedCountOffset:], binary.LittleEndian.Uint32(slot[CoreHeaderDroppedCountOffset:])+1)
				return false, nil
			}
			at := CoreHeaderSize + uint64(count)*ProfileRecordSize
			r.Append(slot[at:at:at+ProfileRecordSize])
			binary.LittleEndian.PutUint32(slot[CoreHeaderRecordCountOffset:], count+1)
			return true, nil
		}
	*/
	writeName := g.fixed("WriteRecord")
	f.Add(comment(fmt.Sprintf("%s appends r to a slot whose header InitSlot wrote, the way a core does: when %s < %s it writes r at index %s and increments %s (written is true); otherwise it only increments %s (wrapping at 2^32 like the device's u32). It never writes past the capacity. A slot shorter than SlotStride(%s) is a *ShortBufferError and nothing is written.",
		writeName, fields["record_count"].Name, fields["record_capacity"].Name, fields["record_count"].Name, fields["record_count"].Name,
		fields["dropped_count"].Name, fields["record_capacity"].Name)))
	f.Func().Id(writeName).Params(jen.Id("slot").Index().Byte(), jen.Id("r").Op("*").Id(rec.Name)).Params(jen.Id("written").Bool(), jen.Err().Error()).Block(
		jen.If(jen.Len(jen.Id("slot")).Op("<").Add(sizeConst(hdr))).Block(
			jen.Return(jen.False(), shortBuffer(jen.Lit(hdr.Name), sizeConst(hdr), jen.Len(jen.Id("slot")))),
		),
		jen.Id("count").Op(":=").Add(u32("record_count")),
		jen.Id("capacity").Op(":=").Add(u32("record_capacity")),
		jen.If(jen.Id("need").Op(":=").Id("SlotStride").Call(jen.Id("capacity")), jen.Uint64().Call(jen.Len(jen.Id("slot"))).Op("<").Id("need")).Block(
			jen.Return(jen.False(), shortSlot(jen.Id("need"))),
		),
		jen.If(jen.Id("count").Op(">=").Id("capacity")).Block(
			put32("dropped_count", u32("dropped_count").Op("+").Lit(1)),
			jen.Return(jen.False(), jen.Nil()),
		),
		jen.Id("at").Op(":=").Add(sizeConst(hdr)).Op("+").Uint64().Call(jen.Id("count")).Op("*").Add(sizeConst(rec)),
		jen.Comment("Append fills the record in place: the slice has room for exactly it."),
		jen.Id("r").Dot("Append").Call(jen.Id("slot").Index(jen.Id("at"), jen.Id("at"), jen.Id("at").Op("+").Add(sizeConst(rec)))),
		put32("record_count", jen.Id("count").Op("+").Lit(1)),
		jen.Return(jen.True(), jen.Nil()),
	)
	f.Line()
}

// coreTypeValue converts the core-type parameter t to the header field's type.
func coreTypeValue(fl *schema.Field, ct string) *jen.Statement {
	if fl.Enum != nil && fl.Enum.Name == ct {
		return jen.Id("t")
	}
	return goType(fl).Call(jen.Id("t"))
}
