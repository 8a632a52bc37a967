package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// genLayout emits the buffer layout: capacities per region, the capacity
// rules, slot strides and offsets, and the whole buffer's size.
func (g *generator) genLayout(f *jen.File) {
	g.genCapacities(f)
	g.genRegions(f)
	g.genCapacityRules(f)
	g.genLayoutType(f)
	g.genSlot(f)
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

// genRegions emits the Region type and the region table in buffer order.
func (g *generator) genRegions(f *jen.File) {
	l := g.s.Layout
	ct := l.CoreTypes.Name
	/*
		// Region is a run of slots of one core type in the buffer:
		// SlotsPerCubeSlot*C slots, block ids 0 to SlotsPerCubeSlot*C-1.
		type Region struct {
			CoreType CoreType
			SlotsPerCubeSlot uint32
		}

		// regions are the regions in buffer order.
		var regions = [...]Region{
			// Cube cores, block ids 0..C-1.
			{CoreType: CoreTypeAIC, SlotsPerCubeSlot: 1},
		}

		// Regions returns the regions in buffer order; the slice is the caller's.
		func Regions() []Region { return append([]Region(nil), regions[:]...) }
	*/
	name := g.fixed("Region")
	f.Comment("Region is a run of slots of one core type in the buffer: SlotsPerCubeSlot*C")
	f.Comment("slots (C = the layout's cube slot count), block ids 0 to SlotsPerCubeSlot*C-1.")
	f.Type().Id(name).Struct(
		jen.Comment("CoreType is the core type of every slot in the region."),
		jen.Id(ct).Id(ct),
		jen.Comment("SlotsPerCubeSlot is the region's slot count per cube slot."),
		jen.Id("SlotsPerCubeSlot").Uint32(),
	)
	f.Line()
	f.Comment("regions are the regions in buffer order.")
	f.Var().Id("regions").Op("=").Index(jen.Op("...")).Id(name).ValuesFunc(func(grp *jen.Group) {
		for _, r := range l.Regions {
			// The comment and the element are one item: a separate comment
			// item would get the element's comma after it.
			grp.Line().Add(comment(sentence(r.Doc))).Line().Values(kv(ct, jen.Id(enumValue(l.CoreTypes, r.CoreType))), kv("SlotsPerCubeSlot", jen.Lit(r.SlotsPerCubeSlot)))
		}
		grp.Line()
	})
	f.Line()
	list := g.fixed("Regions")
	f.Comment(list + " returns the regions in buffer order; the slice is the caller's to keep.")
	f.Func().Id(list).Params().Index().Id(name).Block(
		jen.Return(jen.Append(jen.Index().Id(name).Call(jen.Nil()), jen.Id("regions").Index(jen.Op(":")).Op("..."))),
	)
	f.Line()
}

// genCapacityRules emits CapacityError, RoundUpCapacity, CheckCapacity and SlotStride.
func (g *generator) genCapacityRules(f *jen.File) {
	l := g.s.Layout
	ct := l.CoreTypes.Name
	align, maxRec := l.Alignment.Name, l.MaxRecordsPerCore.Name
	tooMany := fmt.Sprintf("exceeds %s (%d)", maxRec, l.MaxRecordsPerCore.Value)
	unaligned := fmt.Sprintf("is not a multiple of %s (%d)", align, l.Alignment.Value)
	/*
		// CapacityError reports a record capacity the layout cannot use.
		type CapacityError struct {
			CoreType CoreType // the region, 0 when not about one
			Capacity uint64
			Reason   string
		}

		func (e *CapacityError) Error() string {
			if e.CoreType == 0 { return fmt.Sprintf("abi: record capacity %d %s", e.Capacity, e.Reason) }
			return fmt.Sprintf("abi: %s record capacity %d %s", e.CoreType, e.Capacity, e.Reason)
		}
	*/
	errName := g.fixed("CapacityError")
	f.Comment(errName + " reports a record capacity the layout cannot use: one that is")
	f.Comment("not a multiple of " + align + " or exceeds " + maxRec + ".")
	f.Type().Id(errName).Struct(
		jen.Comment(ct+" is the region whose capacity it is; 0 when the capacity is not a region's."),
		jen.Id(ct).Id(ct),
		jen.Comment("Capacity is the refused capacity or requirement, in records."),
		jen.Id("Capacity").Uint64(),
		jen.Comment("Reason says what is wrong with it (\""+tooMany+"\")."),
		jen.Id("Reason").String(),
	)
	f.Line()
	f.Comment("Error implements error.")
	f.Func().Params(jen.Id("e").Op("*").Id(errName)).Id("Error").Params().String().Block(
		jen.If(jen.Id("e").Dot(ct).Op("==").Lit(0)).Block(
			jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("abi: record capacity %d %s"), jen.Id("e").Dot("Capacity"), jen.Id("e").Dot("Reason"))),
		),
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("abi: %s record capacity %d %s"), jen.Id("e").Dot(ct), jen.Id("e").Dot("Capacity"), jen.Id("e").Dot("Reason"))),
	)
	f.Line()

	/*
		// RoundUpCapacity returns the smallest capacity that holds required
		// records: required rounded up to a multiple of RecordCapacityAlignment.
		func RoundUpCapacity(required uint64) (uint32, error) {
			if required > MaxRecordsPerCore {
				return 0, &CapacityError{Capacity: required, Reason: "exceeds MaxRecordsPerCore (134217712)"}
			}
			return uint32((required + RecordCapacityAlignment - 1) / RecordCapacityAlignment * RecordCapacityAlignment), nil
		}
	*/
	round := g.fixed("RoundUpCapacity")
	f.Comment(round + " returns the smallest capacity that holds required records:")
	f.Comment("required rounded up to a multiple of " + align + ". A requirement")
	f.Comment("beyond " + maxRec + " is a *CapacityError: records are never dropped")
	f.Comment("silently by planning too small a buffer.")
	f.Func().Id(round).Params(jen.Id("required").Uint64()).Params(jen.Uint32(), jen.Error()).Block(
		jen.If(jen.Id("required").Op(">").Id(maxRec)).Block(
			jen.Return(jen.Lit(0), jen.Op("&").Id(errName).Values(kv("Capacity", jen.Id("required")), kv("Reason", jen.Lit(tooMany)))),
		),
		jen.Comment(maxRec+" is a multiple of the alignment, so rounding up stays within it."),
		jen.Return(jen.Uint32().Call(
			jen.Parens(jen.Id("required").Op("+").Id(align).Op("-").Lit(1)).Op("/").Id(align).Op("*").Id(align),
		), jen.Nil()),
	)
	f.Line()

	/*
		// CheckCapacity returns a *CapacityError unless capacity is a multiple
		// of RecordCapacityAlignment and at most MaxRecordsPerCore.
		func CheckCapacity(capacity uint64) error {
			if err := checkCapacity(capacity); err != nil {
				return err
			}
			return nil
		}

		func checkCapacity(capacity uint64) *CapacityError {
			if capacity > MaxRecordsPerCore {
				return &CapacityError{Capacity: capacity, Reason: "exceeds MaxRecordsPerCore (134217712)"}
			}
			if capacity%RecordCapacityAlignment != 0 {
				return &CapacityError{Capacity: capacity, Reason: "is not a multiple of RecordCapacityAlignment (16)"}
			}
			return nil
		}
	*/
	check := g.fixed("CheckCapacity")
	f.Comment(check + " returns a *CapacityError unless capacity is a multiple of")
	f.Comment(align + " and at most " + maxRec + ".")
	f.Func().Id(check).Params(jen.Id("capacity").Uint64()).Error().Block(
		jen.Comment("Return a nil error, not a nil *CapacityError."),
		jen.If(jen.Err().Op(":=").Id("checkCapacity").Call(jen.Id("capacity")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Comment("checkCapacity is CheckCapacity with a concrete result type.")
	f.Func().Id("checkCapacity").Params(jen.Id("capacity").Uint64()).Op("*").Id(errName).Block(
		jen.If(jen.Id("capacity").Op(">").Id(maxRec)).Block(
			jen.Return(jen.Op("&").Id(errName).Values(kv("Capacity", jen.Id("capacity")), kv("Reason", jen.Lit(tooMany)))),
		),
		jen.If(jen.Id("capacity").Op("%").Id(align).Op("!=").Lit(0)).Block(
			jen.Return(jen.Op("&").Id(errName).Values(kv("Capacity", jen.Id("capacity")), kv("Reason", jen.Lit(unaligned)))),
		),
		jen.Return(jen.Nil()),
	)
	f.Line()

	/*
		// SlotStride returns the size in bytes of a slot holding capacity
		// records: its header followed by the records.
		func SlotStride(capacity uint32) uint64 {
			return CoreHeaderSize + ProfileRecordSize*uint64(capacity)
		}
	*/
	stride := g.fixed("SlotStride")
	f.Comment(stride + " returns the size in bytes of a slot holding capacity records: its")
	f.Comment(l.Header.Name + " followed by capacity " + l.Record.Name + "s. For a capacity CheckCapacity")
	f.Comment("accepts it is at most " + l.StrideLimit.Name + ".")
	f.Func().Id(stride).Params(jen.Id("capacity").Uint32()).Uint64().Block(
		jen.Return(sizeConst(l.Header).Op("+").Add(sizeConst(l.Record)).Op("*").Uint64().Call(jen.Id("capacity"))),
	)
	f.Line()
}

// genLayoutType emits Layout, LayoutError, NewLayout, BufferSize and the
// Layout methods.
func (g *generator) genLayoutType(f *jen.File) {
	l := g.s.Layout
	ct := l.CoreTypes.Name
	minCube := l.MinCubeSlots.Name
	/*
		// LayoutError reports a buffer layout that cannot exist.
		type LayoutError struct {
			CubeSlots uint32
			Reason    string
		}
	*/
	errName := g.fixed("LayoutError")
	f.Comment(errName + " reports a buffer layout that cannot exist (too few cube slots,")
	f.Comment("more slots than a block id can number, or a size past 2^64-1 bytes).")
	f.Type().Id(errName).Struct(
		jen.Comment("CubeSlots is the layout's cube slot count C."),
		jen.Id("CubeSlots").Uint32(),
		jen.Comment("Reason says what is wrong."),
		jen.Id("Reason").String(),
	)
	f.Line()
	f.Comment("Error implements error.")
	f.Func().Params(jen.Id("e").Op("*").Id(errName)).Id("Error").Params().String().Block(
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("abi: layout with %d cube slots: %s"), jen.Id("e").Dot("CubeSlots"), jen.Id("e").Dot("Reason"))),
	)
	f.Line()

	/*
		// Layout is the arrangement of slots in the profiling buffer ...
		type Layout struct {
			CubeSlots  uint32
			Capacities Capacities
		}
	*/
	name := g.fixed("Layout")
	var order []string
	for _, r := range l.Regions {
		n := "C"
		if r.SlotsPerCubeSlot != 1 {
			n = fmt.Sprintf("%dC", r.SlotsPerCubeSlot)
		}
		order = append(order, n+" "+r.CoreType.Name+" slots")
	}
	f.Add(comment(fmt.Sprintf("%s is the arrangement of slots in the profiling buffer: %s, in that order, where C = CubeSlots. Build it with NewLayout, which checks it; the methods assume a checked layout.",
		name, joinAnd(order))))
	f.Type().Id(name).Struct(
		jen.Comment("CubeSlots is C, the cube slot count; at least "+minCube+"."),
		jen.Id("CubeSlots").Uint32(),
		jen.Comment("Capacities are the record capacities of each region's slots."),
		jen.Id("Capacities").Id("Capacities"),
	)
	f.Line()

	/*
		// NewLayout returns the layout of cubeSlots cube slots with capacities caps, ...
		func NewLayout(cubeSlots uint32, caps Capacities) (Layout, error) {
			if cubeSlots < MinCubeSlots {
				return Layout{}, &LayoutError{CubeSlots: cubeSlots, Reason: "fewer than MinCubeSlots (24)"}
			}
			for _, r := range regions {
				if err := CheckCapacity(uint64(caps.For(r.CoreType))); err != nil {
					err.(*CapacityError).CoreType = r.CoreType
					return Layout{}, err
				}
				if uint64(r.SlotsPerCubeSlot)*uint64(cubeSlots) > math.MaxUint32 { ... }
			}
			if _, ok := bufferSize(cubeSlots, caps); !ok { ... }
			return Layout{CubeSlots: cubeSlots, Capacities: caps}, nil
		}
	*/
	newName := g.fixed("NewLayout")
	f.Add(comment(fmt.Sprintf("%s returns the layout of cubeSlots cube slots whose regions hold caps records per slot. It returns a *LayoutError when cubeSlots is below %s, a region has more slots than a u32 block id numbers, or the buffer size overflows a uint64, and a *CapacityError (naming the region) for a capacity CheckCapacity refuses.",
		newName, minCube)))
	f.Func().Id(newName).Params(jen.Id("cubeSlots").Uint32(), jen.Id("caps").Id("Capacities")).Params(jen.Id(name), jen.Error()).Block(
		jen.If(jen.Id("cubeSlots").Op("<").Id(minCube)).Block(
			jen.Return(jen.Id(name).Values(), jen.Op("&").Id(errName).Values(kv("CubeSlots", jen.Id("cubeSlots")),
				kv("Reason", jen.Lit(fmt.Sprintf("fewer than %s (%d)", minCube, l.MinCubeSlots.Value))))),
		),
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
			jen.Id("capacity").Op(":=").Id("caps").Dot("For").Call(jen.Id("r").Dot(ct)),
			jen.If(jen.Err().Op(":=").Id("checkCapacity").Call(jen.Uint64().Call(jen.Id("capacity"))), jen.Err().Op("!=").Nil()).Block(
				jen.Err().Dot(ct).Op("=").Id("r").Dot(ct),
				jen.Return(jen.Id(name).Values(), jen.Err()),
			),
			jen.Comment("Block ids are u32: a region cannot have more slots than they number."),
			jen.If(jen.Uint64().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Uint64().Call(jen.Id("cubeSlots")).Op(">").Qual("math", "MaxUint32")).Block(
				jen.Return(jen.Id(name).Values(), jen.Op("&").Id(errName).Values(kv("CubeSlots", jen.Id("cubeSlots")),
					kv("Reason", jen.Qual("fmt", "Sprintf").Call(jen.Lit("%d %s slots are more than a u32 block id numbers"),
						jen.Uint64().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Uint64().Call(jen.Id("cubeSlots")), jen.Id("r").Dot(ct))))),
			),
		),
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("bufferSize").Call(jen.Id("cubeSlots"), jen.Id("caps")), jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Id(name).Values(), jen.Op("&").Id(errName).Values(kv("CubeSlots", jen.Id("cubeSlots")),
				kv("Reason", jen.Lit("the buffer size overflows a uint64")))),
		),
		jen.Return(jen.Id(name).Values(kv("CubeSlots", jen.Id("cubeSlots")), kv("Capacities", jen.Id("caps"))), jen.Nil()),
	)
	f.Line()

	/*
		// BufferSize returns the size in bytes of the buffer of cubeSlots cube
		// slots with capacities caps, with NewLayout's checks.
		func BufferSize(cubeSlots uint32, caps Capacities) (uint64, error) {
			l, err := NewLayout(cubeSlots, caps)
			if err != nil {
				return 0, err
			}
			return l.Size(), nil
		}
	*/
	bs := g.fixed("BufferSize")
	f.Comment(bs + " returns the size in bytes of the buffer of cubeSlots cube slots")
	f.Comment("with capacities caps: the sum of every slot's stride. It refuses what")
	f.Comment("NewLayout refuses, including a size that overflows a uint64.")
	f.Func().Id(bs).Params(jen.Id("cubeSlots").Uint32(), jen.Id("caps").Id("Capacities")).Params(jen.Uint64(), jen.Error()).Block(
		jen.List(jen.Id("l"), jen.Err()).Op(":=").Id(newName).Call(jen.Id("cubeSlots"), jen.Id("caps")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Err())),
		jen.Return(jen.Id("l").Dot("Size").Call(), jen.Nil()),
	)
	f.Line()

	/*
		// bufferSize sums the slot strides, reporting false on overflow.
		func bufferSize(cubeSlots uint32, caps Capacities) (uint64, bool) {
			var size uint64
			for _, r := range regions {
				slots := uint64(r.SlotsPerCubeSlot) * uint64(cubeSlots)
				hi, bytes := bits.Mul64(slots, SlotStride(caps.For(r.CoreType)))
				var carry uint64
				size, carry = bits.Add64(size, bytes, 0)
				if hi != 0 || carry != 0 {
					return 0, false
				}
			}
			return size, true
		}
	*/
	f.Comment("bufferSize sums the strides of every slot, reporting false on overflow.")
	f.Func().Id("bufferSize").Params(jen.Id("cubeSlots").Uint32(), jen.Id("caps").Id("Capacities")).Params(jen.Uint64(), jen.Bool()).Block(
		jen.Var().Id("size").Uint64(),
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
			jen.Id("slots").Op(":=").Uint64().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Uint64().Call(jen.Id("cubeSlots")),
			jen.List(jen.Id("hi"), jen.Id("bytes")).Op(":=").Qual("math/bits", "Mul64").Call(jen.Id("slots"), jen.Id("SlotStride").Call(jen.Id("caps").Dot("For").Call(jen.Id("r").Dot(ct)))),
			jen.Var().Id("carry").Uint64(),
			jen.List(jen.Id("size"), jen.Id("carry")).Op("=").Qual("math/bits", "Add64").Call(jen.Id("size"), jen.Id("bytes"), jen.Lit(0)),
			jen.If(jen.Id("hi").Op("!=").Lit(0).Op("||").Id("carry").Op("!=").Lit(0)).Block(jen.Return(jen.Lit(0), jen.False())),
		),
		jen.Return(jen.Id("size"), jen.True()),
	)
	f.Line()

	/*
		// Size returns the size in bytes of the whole buffer ...
		func (l Layout) Size() uint64 {
			size, ok := bufferSize(l.CubeSlots, l.Capacities)
			if !ok {
				return math.MaxUint64
			}
			return size
		}
	*/
	f.Comment("Size returns the size in bytes of the whole buffer: the sum of every slot's")
	f.Comment("stride. NewLayout checked it fits; for a Layout built without it, a size")
	f.Comment("that overflows is reported as math.MaxUint64 (no buffer is that large).")
	f.Func().Params(jen.Id("l").Id(name)).Id("Size").Params().Uint64().Block(
		jen.List(jen.Id("size"), jen.Id("ok")).Op(":=").Id("bufferSize").Call(jen.Id("l").Dot("CubeSlots"), jen.Id("l").Dot("Capacities")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Qual("math", "MaxUint64"))),
		jen.Return(jen.Id("size")),
	)
	f.Line()

	/*
		// NumSlots returns the number of slots in the buffer (3*CubeSlots).
		func (l Layout) NumSlots() int {
			n := 0
			for _, r := range regions {
				n += int(r.SlotsPerCubeSlot) * int(l.CubeSlots)
			}
			return n
		}
	*/
	total := 0
	for _, r := range l.Regions {
		total += r.SlotsPerCubeSlot
	}
	f.Comment(fmt.Sprintf("NumSlots returns the number of slots in the buffer (%d*CubeSlots).", total))
	f.Func().Params(jen.Id("l").Id(name)).Id("NumSlots").Params().Int().Block(
		jen.Id("n").Op(":=").Lit(0),
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
			jen.Id("n").Op("+=").Int().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Int().Call(jen.Id("l").Dot("CubeSlots")),
		),
		jen.Return(jen.Id("n")),
	)
	f.Line()

	/*
		// SlotCount returns the number of slots of core type t, 0 for a core
		// type with no region.
		func (l Layout) SlotCount(t CoreType) uint32 {
			for _, r := range regions {
				if r.CoreType == t {
					return r.SlotsPerCubeSlot * l.CubeSlots
				}
			}
			return 0
		}
	*/
	f.Comment("SlotCount returns the number of slots of core type t (block ids 0 to")
	f.Comment("SlotCount(t)-1), 0 for a core type with no region.")
	f.Func().Params(jen.Id("l").Id(name)).Id("SlotCount").Params(jen.Id("t").Id(ct)).Uint32().Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
			jen.If(jen.Id("r").Dot(ct).Op("==").Id("t")).Block(jen.Return(jen.Id("r").Dot("SlotsPerCubeSlot").Op("*").Id("l").Dot("CubeSlots"))),
		),
		jen.Return(jen.Lit(0)),
	)
	f.Line()

	/*
		// SlotOffset returns the byte offset in the buffer of the slot of core
		// type t and block id blockID: the strides of the regions before t's,
		// plus blockID strides of t's region.
		func (l Layout) SlotOffset(t CoreType, blockID uint32) uint64 {
			var start uint64
			for _, r := range regions {
				stride := SlotStride(l.Capacities.For(r.CoreType))
				if r.CoreType == t {
					return start + uint64(blockID)*stride
				}
				start += uint64(r.SlotsPerCubeSlot) * uint64(l.CubeSlots) * stride
			}
			return start
		}
	*/
	f.Comment("SlotOffset returns the byte offset in the buffer of the slot of core type t")
	f.Comment("and block id blockID: the strides of every slot in the regions before t's,")
	f.Comment("plus blockID strides of t's region. It is meaningful for blockID <")
	f.Comment("SlotCount(t); for a core type with no region it returns Size().")
	f.Func().Params(jen.Id("l").Id(name)).Id("SlotOffset").Params(jen.Id("t").Id(ct), jen.Id("blockID").Uint32()).Uint64().Block(
		jen.Var().Id("start").Uint64(),
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
			jen.Id("stride").Op(":=").Id("SlotStride").Call(jen.Id("l").Dot("Capacities").Dot("For").Call(jen.Id("r").Dot(ct))),
			jen.If(jen.Id("r").Dot(ct).Op("==").Id("t")).Block(
				jen.Return(jen.Id("start").Op("+").Uint64().Call(jen.Id("blockID")).Op("*").Id("stride")),
			),
			jen.Id("start").Op("+=").Uint64().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Uint64().Call(jen.Id("l").Dot("CubeSlots")).Op("*").Id("stride"),
		),
		jen.Return(jen.Id("start")),
	)
	f.Line()

	/*
		// Slot returns slot i in buffer order ...
		func (l Layout) Slot(i int) Slot {
			if i >= 0 {
				for _, r := range regions {
					n := int(r.SlotsPerCubeSlot) * int(l.CubeSlots)
					if i < n {
						s, _ := l.SlotOf(r.CoreType, uint32(i))
						return s
					}
					i -= n
				}
			}
			panic(fmt.Sprintf("abi: slot index %d out of range [0, %d)", i, l.NumSlots()))
		}
	*/
	f.Comment("Slot returns slot i in buffer order: the slots of each region in turn")
	f.Comment("(" + joinAnd(order) + "), by block id. Like an index")
	f.Comment("expression it panics unless 0 <= i < NumSlots().")
	f.Func().Params(jen.Id("l").Id(name)).Id("Slot").Params(jen.Id("i").Int()).Id("Slot").Block(
		jen.If(jen.Id("i").Op(">=").Lit(0)).Block(
			jen.Id("rest").Op(":=").Id("i"),
			jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("regions")).Block(
				jen.Id("n").Op(":=").Int().Call(jen.Id("r").Dot("SlotsPerCubeSlot")).Op("*").Int().Call(jen.Id("l").Dot("CubeSlots")),
				jen.If(jen.Id("rest").Op("<").Id("n")).Block(
					jen.List(jen.Id("s"), jen.Id("_")).Op(":=").Id("l").Dot("SlotOf").Call(jen.Id("r").Dot(ct), jen.Uint32().Call(jen.Id("rest"))),
					jen.Return(jen.Id("s")),
				),
				jen.Id("rest").Op("-=").Id("n"),
			),
		),
		jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("abi: slot index %d out of range [0, %d)"), jen.Id("i"), jen.Id("l").Dot("NumSlots").Call())),
	)
	f.Line()

	/*
		// SlotOf returns the slot of core type t and block id blockID, and
		// whether the layout has it.
		func (l Layout) SlotOf(t CoreType, blockID uint32) (Slot, bool) {
			if blockID >= l.SlotCount(t) {
				return Slot{}, false
			}
			return Slot{CoreType: t, BlockID: blockID, Offset: l.SlotOffset(t, blockID), Capacity: l.Capacities.For(t)}, true
		}
	*/
	f.Comment("SlotOf returns the slot of core type t and block id blockID, and whether")
	f.Comment("the layout has it.")
	f.Func().Params(jen.Id("l").Id(name)).Id("SlotOf").Params(jen.Id("t").Id(ct), jen.Id("blockID").Uint32()).Params(jen.Id("Slot"), jen.Bool()).Block(
		jen.If(jen.Id("blockID").Op(">=").Id("l").Dot("SlotCount").Call(jen.Id("t"))).Block(jen.Return(jen.Id("Slot").Values(), jen.False())),
		jen.Return(jen.Id("Slot").Values(
			kv(ct, jen.Id("t")),
			kv("BlockID", jen.Id("blockID")),
			kv("Offset", jen.Id("l").Dot("SlotOffset").Call(jen.Id("t"), jen.Id("blockID"))),
			kv("Capacity", jen.Id("l").Dot("Capacities").Dot("For").Call(jen.Id("t"))),
		), jen.True()),
	)
	f.Line()
}

// genSlot emits the Slot type and its methods.
func (g *generator) genSlot(f *jen.File) {
	l := g.s.Layout
	ct := l.CoreTypes.Name
	/*
		// Slot is one core's slot in the buffer.
		type Slot struct {
			CoreType CoreType
			BlockID  uint32
			Offset   uint64
			Capacity uint32
		}
	*/
	name := g.fixed("Slot")
	f.Comment(name + " is one core's slot in the buffer: a " + l.Header.Name + " followed by Capacity")
	f.Comment(l.Record.Name + "s.")
	f.Type().Id(name).Struct(
		jen.Comment(ct+" is the core type of the slot's region."),
		jen.Id(ct).Id(ct),
		jen.Comment("BlockID is the core's index within its type."),
		jen.Id("BlockID").Uint32(),
		jen.Comment("Offset is the byte offset of the slot in the buffer."),
		jen.Id("Offset").Uint64(),
		jen.Comment("Capacity is the number of records the slot holds."),
		jen.Id("Capacity").Uint32(),
	)
	f.Line()

	/*
		// String returns the slot's name in messages and traces: "AIC/3".
		func (s Slot) String() string {
			return s.CoreType.String() + "/" + strconv.FormatUint(uint64(s.BlockID), 10)
		}
	*/
	first := l.Regions[0].CoreType.Name
	f.Comment(fmt.Sprintf("String returns the slot's name in messages and traces: %q.", first+"/3"))
	f.Func().Params(jen.Id("s").Id(name)).Id("String").Params().String().Block(
		jen.Return(jen.Id("s").Dot(ct).Dot("String").Call().Op("+").Lit("/").Op("+").Qual("strconv", "FormatUint").Call(jen.Uint64().Call(jen.Id("s").Dot("BlockID")), jen.Lit(10))),
	)
	f.Line()

	/*
		// Stride returns the slot's size in bytes.
		func (s Slot) Stride() uint64 { return SlotStride(s.Capacity) }
	*/
	f.Comment("Stride returns the slot's size in bytes.")
	f.Func().Params(jen.Id("s").Id(name)).Id("Stride").Params().Uint64().Block(
		jen.Return(jen.Id("SlotStride").Call(jen.Id("s").Dot("Capacity"))),
	)
	f.Line()

	/*
		// RecordOffset returns the byte offset in the buffer of record i of the slot.
		func (s Slot) RecordOffset(i uint32) uint64 {
			return s.Offset + CoreHeaderSize + uint64(i)*ProfileRecordSize
		}
	*/
	f.Comment("RecordOffset returns the byte offset in the buffer of record i of the slot.")
	f.Func().Params(jen.Id("s").Id(name)).Id("RecordOffset").Params(jen.Id("i").Uint32()).Uint64().Block(
		jen.Return(jen.Id("s").Dot("Offset").Op("+").Add(sizeConst(l.Header)).Op("+").Uint64().Call(jen.Id("i")).Op("*").Add(sizeConst(l.Record))),
	)
	f.Line()
}

// joinAnd joins ["a", "b", "c"] as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	out := items[0]
	for _, it := range items[1 : len(items)-1] {
		out += ", " + it
	}
	return out + " and " + items[len(items)-1]
}

// trimDot drops a doc's final period so it can sit inside parentheses.
func trimDot(doc string) string {
	for len(doc) > 0 && doc[len(doc)-1] == '.' {
		doc = doc[:len(doc)-1]
	}
	return doc
}
