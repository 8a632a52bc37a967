package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// genEnums emits every enum of the schema.
func (g *generator) genEnums(f *jen.File) {
	for _, e := range g.s.Enums {
		g.genEnum(f, e)
	}
}

// enumValue names the Go constant of an enum member (CoreTypeAIC).
func enumValue(e *schema.Enum, v *schema.EnumValue) string { return e.Name + exported(v.Name) }

// genEnum emits an enum type, its values and the compile guard, then its
// methods and lookups.
func (g *generator) genEnum(f *jen.File, e *schema.Enum) {
	typ := g.declare(e.Name, "enum "+e.Name, e.Pos)
	if len(e.Values) == 0 {
		g.errorf("enum %s has no values", e.Name)
		return
	}
	/*
		// CoreType is a u32 enum on the wire. The kind of AI core that owns a slot.
		type CoreType uint32
	*/
	f.Add(comment(fmt.Sprintf("%s is a u32 enum on the wire. %s", typ, sentence(e.Doc))))
	f.Type().Id(typ).Uint32()
	f.Line()

	/*
		const (
			// Cube core; runs matrix tasks.
			CoreTypeAIC CoreType = 1
			...
		)
	*/
	f.Const().DefsFunc(func(grp *jen.Group) {
		for _, v := range e.Values {
			grp.Add(comment(fmt.Sprintf("%s (%d): %s", v.Name, v.Value, sentence(v.Doc))))
			grp.Id(g.declare(enumValue(e, v), "value "+e.Name+"."+v.Name, v.Pos)).Id(typ).Op("=").Lit(int(v.Value))
		}
	})
	f.Line()

	/*
		func _() {
			// An "invalid array index" compiler error means the values above
			// changed without regenerating; run go run ./cmd/abigen.
			var x [1]struct{}
			_ = x[CoreTypeAIC-1]
		}
	*/
	f.Func().Id("_").Params().BlockFunc(func(grp *jen.Group) {
		grp.Comment("An \"invalid array index\" compiler error means the values above")
		grp.Comment("changed without regenerating; run go run ./cmd/abigen.")
		grp.Var().Id("x").Index(jen.Lit(1)).Struct()
		for _, v := range e.Values {
			grp.Id("_").Op("=").Id("x").Index(jen.Id(enumValue(e, v)).Op("-").Lit(int(v.Value)))
		}
	})
	f.Line()

	g.genEnumMethods(f, e, typ)
	g.genEnumLookups(f, e, typ)
}

// genEnumMethods emits the enum's String and Valid methods.
func (g *generator) genEnumMethods(f *jen.File, e *schema.Enum, typ string) {
	recv := receiver(e.Name)
	/*
		// String returns the schema name of t ("AIC"), or "CoreType(7)" for a
		// value the schema does not name.
		func (t CoreType) String() string {
			switch t {
			case CoreTypeAIC:
				return "AIC"
			}
			return "CoreType(" + strconv.FormatUint(uint64(t), 10) + ")"
		}
	*/
	f.Add(comment(fmt.Sprintf("String returns the schema name of %s (%q), or %q for a value the schema does not name.",
		recv, e.Values[0].Name, fmt.Sprintf("%s(%d)", e.Name, unnamedValue(e)))))
	f.Func().Params(jen.Id(recv).Id(typ)).Id("String").Params().String().Block(
		jen.Switch(jen.Id(recv)).BlockFunc(func(grp *jen.Group) {
			for _, v := range e.Values {
				grp.Case(jen.Id(enumValue(e, v))).Block(jen.Return(jen.Lit(v.Name)))
			}
		}),
		jen.Return(jen.Lit(e.Name+"(").Op("+").Qual("strconv", "FormatUint").Call(jen.Uint64().Call(jen.Id(recv)), jen.Lit(10)).Op("+").Lit(")")),
	)
	f.Line()

	/*
		// Valid reports whether t is a value the schema names.
		func (t CoreType) Valid() bool {
			switch t {
			case CoreTypeAIC, CoreTypeAIV:
				return true
			}
			return false
		}
	*/
	var all []jen.Code
	for _, v := range e.Values {
		all = append(all, jen.Id(enumValue(e, v)))
	}
	f.Add(comment(fmt.Sprintf("Valid reports whether %s is a value the schema names.", recv)))
	f.Func().Params(jen.Id(recv).Id(typ)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id(recv)).Block(jen.Case(all...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	)
	f.Line()
}

// genEnumLookups emits the enum's value list and its parser.
func (g *generator) genEnumLookups(f *jen.File, e *schema.Enum, typ string) {
	/*
		// CoreTypes returns every CoreType in schema order.
		func CoreTypes() []CoreType {
			return []CoreType{CoreTypeAIC, CoreTypeAIV}
		}
	*/
	list := g.declare(plural(e.Name), "the value list of enum "+e.Name, e.Pos)
	f.Add(comment(fmt.Sprintf("%s returns every %s in schema order.", list, typ)))
	f.Func().Id(list).Params().Index().Id(typ).Block(
		jen.Return(jen.Index().Id(typ).ValuesFunc(func(grp *jen.Group) {
			for _, v := range e.Values {
				grp.Line().Id(enumValue(e, v))
			}
			grp.Line()
		})),
	)
	f.Line()

	/*
		// ParseCoreType returns the CoreType whose schema name is name ("AIC"),
		// and whether there is one. Names are case-sensitive.
		func ParseCoreType(name string) (CoreType, bool) {
			switch name {
			case "AIC":
				return CoreTypeAIC, true
			}
			return 0, false
		}
	*/
	parse := g.declare("Parse"+e.Name, "the parser of enum "+e.Name, e.Pos)
	f.Add(comment(fmt.Sprintf("%s returns the %s whose schema name is name (%q), and whether there is one. Names are case-sensitive.",
		parse, typ, e.Values[0].Name)))
	f.Func().Id(parse).Params(jen.Id("name").String()).Params(jen.Id(typ), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).BlockFunc(func(grp *jen.Group) {
			for _, v := range e.Values {
				grp.Case(jen.Lit(v.Name)).Block(jen.Return(jen.Id(enumValue(e, v)), jen.True()))
			}
		}),
		jen.Return(jen.Lit(0), jen.False()),
	)
	f.Line()
}

// unnamedValue is a small value the enum does not name, for doc examples.
func unnamedValue(e *schema.Enum) uint32 {
	for n := uint32(7); ; n++ {
		if !hasValue(e, n) {
			return n
		}
	}
}

func hasValue(e *schema.Enum, n uint32) bool {
	for _, v := range e.Values {
		if v.Value == n {
			return true
		}
	}
	return false
}
