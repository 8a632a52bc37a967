package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// genDescriptors emits the descriptor-ID namespaces: the Namespace values,
// the ranges, the named ids and the namespace table. Lookup and display
// formatting over the table are hand-written (gen/go/abi/descriptors.go).
func (g *generator) genDescriptors(f *jen.File) {
	d := g.s.Descriptors
	if len(d.Namespaces) > 255 {
		g.errorf("%d descriptor namespaces do not fit the uint8 Namespace type", len(d.Namespaces))
		return
	}
	g.genNamespaceType(f, d)
	g.genNamespaceConstants(f, d)
	g.genNamespaceTable(f, d)
}

// nsConst names the Namespace constant of a namespace (NamespaceTaskType).
func nsConst(ns *schema.Namespace) string { return "Namespace" + ns.Name }

// descConst names the constant of a named descriptor id (RuntimeStageWaitDependency).
func descConst(ns *schema.Namespace, n *schema.DescName) string { return ns.Name + exported(n.Name) }

// genNamespaceType emits the Namespace type and its values.
func (g *generator) genNamespaceType(f *jen.File, d *schema.Descriptors) {
	/*
		const (
			// NamespaceNone is the namespace of a desc_id no range contains.
			NamespaceNone Namespace = 0
			// Stages of the device runtime itself: desc_id 0x10000 to 0x1FFFF.
			NamespaceRuntimeStage Namespace = 1
		)
	*/
	name := g.fixed("Namespace")
	f.Comment("The namespaces in schema order; Namespace(i+1) is row i of namespaces.")
	f.Const().DefsFunc(func(grp *jen.Group) {
		grp.Comment("NamespaceNone is the namespace of a desc_id that no range contains.")
		grp.Id(g.fixed("NamespaceNone")).Id(name).Op("=").Lit(0)
		for i, ns := range d.Namespaces {
			grp.Add(comment(fmt.Sprintf("%s: desc_id 0x%X to 0x%X.", trimDot(ns.Doc), ns.Base, ns.End()-1)))
			grp.Id(g.declare(nsConst(ns), "namespace "+ns.Name, ns.Pos)).Id(name).Op("=").Lit(i + 1)
		}
	})
	f.Line()
}

// genNamespaceConstants emits each namespace's base and count, and the named ids.
func (g *generator) genNamespaceConstants(f *jen.File, d *schema.Descriptors) {
	/*
		// Ranges of the descriptor-ID namespaces: [Base, Base+Count).
		const (
			// RuntimeStageBase is the first desc_id of RuntimeStage.
			RuntimeStageBase = 0x10000
			// RuntimeStageCount is the number of desc_ids in RuntimeStage.
			RuntimeStageCount = 0x10000
		)
	*/
	f.Comment("Ranges of the descriptor-ID namespaces: [Base, Base+Count).")
	f.Const().DefsFunc(func(grp *jen.Group) {
		for _, ns := range d.Namespaces {
			base := g.declare(ns.Name+"Base", "the base of namespace "+ns.Name, ns.Pos)
			grp.Comment(fmt.Sprintf("%s is the first desc_id of %s.", base, ns.Name))
			grp.Id(base).Op("=").Add(hex(uint64(ns.Base)))
			count := g.declare(ns.Name+"Count", "the count of namespace "+ns.Name, ns.Pos)
			grp.Comment(fmt.Sprintf("%s is the number of desc_ids in %s.", count, ns.Name))
			grp.Id(count).Op("=").Add(hex(uint64(ns.Count)))
		}
	})
	f.Line()

	/*
		// Descriptor IDs the schema names.
		const (
			// WaitDependency: Waiting on the task's dependent event.
			RuntimeStageWaitDependency uint32 = 0x10000
		)
	*/
	named := false
	for _, ns := range d.Namespaces {
		named = named || len(ns.Names) > 0
	}
	if !named {
		return
	}
	f.Comment("Descriptor IDs the schema names (ids named after an enum's values are")
	f.Comment("Base + uint32(value), e.g. TaskTypeBase + uint32(TaskTypeMatMul)).")
	f.Const().DefsFunc(func(grp *jen.Group) {
		for _, ns := range d.Namespaces {
			for _, n := range ns.Names {
				grp.Add(comment(fmt.Sprintf("%s (%s index %d): %s", n.Name, ns.Name, n.Index, sentence(n.Doc))))
				grp.Id(g.declare(descConst(ns, n), "descriptor "+ns.Name+"."+n.Name, n.Pos)).Uint32().Op("=").Add(hex(uint64(ns.Base) + uint64(n.Index)))
			}
		}
	})
	f.Line()
}

// genNamespaceTable emits the namespace table the hand-written lookup reads.
func (g *generator) genNamespaceTable(f *jen.File, d *schema.Descriptors) {
	/*
		// unknownDescFormat formats a desc_id that falls in no namespace.
		const unknownDescFormat = "DescId_{desc_id}"

		// namespaces is the namespace table, in schema order.
		var namespaces = [...]namespaceSpec{
			{
				name: "RuntimeStage", base: RuntimeStageBase, count: RuntimeStageCount,
				display: "{name}", fallback: "DescId_{desc_id}",
				names: []descName{
					{index: 0, name: "WaitDependency", taskStagePrefix: true},
				},
			},
			{
				name: "TaskType", ..., arg: "task_type",
				names: []descName{
					{index: uint32(TaskTypeTerminate), name: "Terminate"},
				},
			},
		}
	*/
	f.Comment("unknownDescFormat formats a desc_id that falls in no namespace.")
	f.Const().Id("unknownDescFormat").Op("=").Lit(d.Unknown)
	f.Line()
	f.Comment("namespaces is the namespace table, in schema order.")
	f.Var().Id("namespaces").Op("=").Index(jen.Op("...")).Id("namespaceSpec").ValuesFunc(func(grp *jen.Group) {
		for _, ns := range d.Namespaces {
			row := []jen.Code{
				jen.Line().Add(kv("name", jen.Lit(ns.Name))),
				kv("base", jen.Id(ns.Name+"Base")),
				kv("count", jen.Id(ns.Name+"Count")),
				jen.Line().Add(kv("display", jen.Lit(ns.Display))),
				kv("fallback", jen.Lit(ns.Fallback)),
			}
			if ns.Arg != "" {
				row = append(row, kv("arg", jen.Lit(ns.Arg)))
			}
			var names []jen.Code
			if ns.Enum != nil {
				for _, v := range ns.Enum.Values {
					names = append(names, jen.Line().Values(kv("index", jen.Uint32().Call(jen.Id(enumValue(ns.Enum, v)))), kv("name", jen.Lit(v.Name))))
				}
			}
			for _, n := range ns.Names {
				item := []jen.Code{kv("index", jen.Lit(int(n.Index))), kv("name", jen.Lit(n.Name))}
				if n.TaskStagePrefix {
					item = append(item, kv("taskStagePrefix", jen.True()))
				}
				names = append(names, jen.Line().Values(item...))
			}
			if len(names) > 0 {
				row = append(row, jen.Line().Add(kv("names", jen.Index().Id("descName").Values(append(names, jen.Line())...))))
			}
			grp.Line().Values(append(row, jen.Line())...)
		}
		grp.Line()
	})
	f.Line()
}
