package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// genLayout emits what the buffer layout takes from the schema: capacities
// per region, the region table and the names the hand-written layout code
// (gen/go/abi/layout.go, writer.go) reads the schema through. The layout
// arithmetic itself does not depend on the schema and is hand-written.
func (g *generator) genLayout(f *jen.File) {
	g.genCapacities(f)
	g.genRegions(f)
	g.genLayoutRoles(f)
}

// regionField names the Capacities field of a region (AIC).
func regionField(name string) string { return exported(name) }

// genCapacities emits Capacities with one field per region.
func (g *generator) genCapacities(f *jen.File) {
	l := g.s.Layout
	ct := l.CoreTypes.Name
	/*
		// Capacities are the record capacities of the slots, one per region:
		// every slot of a region holds the same number of records.
		type Capacities struct {
			// AIC is the record capacity of each AIC slot (Cube cores, block ids 0..C-1).
			AIC uint32
			AIV uint32
		}
	*/
	name := g.fixed("Capacities")
	f.Comment("Capacities are the record capacities of the slots, one per region:")
	f.Comment("every slot of a region holds the same number of records.")
	f.Type().Id(name).StructFunc(func(grp *jen.Group) {
		for _, r := range l.Regions {
			grp.Add(comment(fmt.Sprintf("%s is the record capacity of each %s slot (%s)", regionField(r.CoreType.Name), r.CoreType.Name, trimDot(r.Doc)) + "."))
			grp.Id(regionField(r.CoreType.Name)).Uint32()
		}
	})
	f.Line()

	/*
		// For returns the capacity of t's region, 0 for a core type with no region.
		func (c Capacities) For(t CoreType) uint32 {
			switch t {
			case CoreTypeAIC:
				return c.AIC
			}
			return 0
		}
	*/
	f.Comment("For returns the capacity of t's region, 0 for a core type with no region.")
	f.Func().Params(jen.Id("c").Id(name)).Id("For").Params(jen.Id("t").Id(ct)).Uint32().Block(
		jen.Switch(jen.Id("t")).BlockFunc(func(grp *jen.Group) {
			for _, r := range l.Regions {
				grp.Case(jen.Id(enumValue(l.CoreTypes, r.CoreType))).Block(jen.Return(jen.Id("c").Dot(regionField(r.CoreType.Name))))
			}
		}),
		jen.Return(jen.Lit(0)),
	)
	f.Line()

	/*
		// Set sets the capacity of t's region and reports whether t has one.
		func (c *Capacities) Set(t CoreType, capacity uint32) bool {
			switch t {
			case CoreTypeAIC:
				c.AIC = capacity
			default:
				return false
			}
			return true
		}
	*/
	f.Comment("Set sets the capacity of t's region and reports whether t has one.")
	f.Func().Params(jen.Id("c").Op("*").Id(name)).Id("Set").Params(jen.Id("t").Id(ct), jen.Id("capacity").Uint32()).Bool().Block(
		jen.Switch(jen.Id("t")).BlockFunc(func(grp *jen.Group) {
			for _, r := range l.Regions {
				grp.Case(jen.Id(enumValue(l.CoreTypes, r.CoreType))).Block(jen.Id("c").Dot(regionField(r.CoreType.Name)).Op("=").Id("capacity"))
			}
			grp.Default().Block(jen.Return(jen.False()))
		}),
		jen.Return(jen.True()),
	)
	f.Line()
}

// genRegions emits the region table in buffer order.
func (g *generator) genRegions(f *jen.File) {
	l := g.s.Layout
	/*
		// regions are the regions in buffer order.
		var regions = [...]Region{
			// Cube cores, block ids 0..C-1.
			{CoreType: CoreTypeAIC, SlotsPerCubeSlot: 1},
		}
	*/
	f.Comment("regions are the regions in buffer order.")
	f.Var().Id("regions").Op("=").Index(jen.Op("...")).Id(g.fixed("Region")).ValuesFunc(func(grp *jen.Group) {
		for _, r := range l.Regions {
			// The comment and the element are one item: a separate comment
			// item would get the element's comma after it.
			grp.Line().Add(comment(sentence(r.Doc))).Line().Values(kv("CoreType", jen.Id(enumValue(l.CoreTypes, r.CoreType))), kv("SlotsPerCubeSlot", jen.Lit(r.SlotsPerCubeSlot)))
		}
		grp.Line()
	})
	f.Line()
}

// roleTypes are the names the hand-written code gives the layout's core-type
// enum, header and record: the real schema's names. A schema that names them
// otherwise gets aliases.
var roleTypes = []string{"CoreType", "CoreHeader", "ProfileRecord"}

// genLayoutRoles emits the schema's layout roles under the names the
// hand-written code uses.
func (g *generator) genLayoutRoles(f *jen.File) {
	l := g.s.Layout
	/*
		// CoreType is Kind, the enum of the header's core_type field.
		type CoreType = Kind
	*/
	for i, actual := range []string{l.CoreTypes.Name, l.Header.Name, l.Record.Name} {
		role := roleTypes[i]
		if actual == role {
			continue
		}
		what := []string{"the enum of the header's core_type field", "the slot header", "the record"}[i]
		f.Comment(fmt.Sprintf("%s is %s, %s: the hand-written layout code uses this name.", role, actual, what))
		f.Type().Id(g.declare(role, "the alias of "+actual, l.Pos)).Op("=").Id(actual)
		f.Line()
	}
	/*
		// The layout's sizes, offsets and limits under fixed names.
		const (
			headerSize = CoreHeaderSize
			...
		)
	*/
	hdr := l.Header
	f.Comment("The layout's sizes, offsets and limits under the names the hand-written")
	f.Comment("layout and writer code uses.")
	f.Const().Defs(
		jen.Id("headerName").Op("=").Lit(hdr.Name),
		jen.Id("headerSize").Op("=").Add(sizeConst(hdr)),
		jen.Id("recordSize").Op("=").Add(sizeConst(l.Record)),
		jen.Id("headerRecordCountOffset").Op("=").Add(offsetConst(hdr, hdr.Field("record_count"))),
		jen.Id("headerDroppedCountOffset").Op("=").Add(offsetConst(hdr, hdr.Field("dropped_count"))),
		jen.Id("headerRecordCapacityOffset").Op("=").Add(offsetConst(hdr, hdr.Field("record_capacity"))),
		jen.Id("capacityAlignment").Op("=").Id(l.Alignment.Name),
		jen.Id("capacityAlignmentName").Op("=").Lit(l.Alignment.Name),
		jen.Id("minCubeSlots").Op("=").Id(l.MinCubeSlots.Name),
		jen.Id("minCubeSlotsName").Op("=").Lit(l.MinCubeSlots.Name),
	)
	f.Line()
}

// trimDot drops a doc's final period so it can sit inside parentheses.
func trimDot(doc string) string {
	for len(doc) > 0 && doc[len(doc)-1] == '.' {
		doc = doc[:len(doc)-1]
	}
	return doc
}
