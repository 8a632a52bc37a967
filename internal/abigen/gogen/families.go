package gogen

import (
	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// familyConst names the Family constant of a family (FamilyMegaMoe).
func familyConst(f *schema.Family) string { return "Family" + f.Name }

// stageClassConst names the StageClass constant of a class (StageCompute).
func stageClassConst(c schema.StageClass) string { return "Stage" + exported(string(c)) }

// genFamilies emits the kernel families: the Family values and the family
// table. Choosing a family and naming and classifying ids under it are
// hand-written (gen/go/abi/families.go).
func (g *generator) genFamilies(f *jen.File) {
	fams := g.s.Families
	if len(fams) > 254 {
		g.errorf("%d kernel families do not fit the uint8 Family type", len(fams))
		return
	}
	/*
		const (
			// FamilyNone is no family: the TaskType enum and the namespaces' names apply.
			FamilyNone Family = 0
			// MegaMoe forward: ...
			FamilyMegaMoe Family = 1
		)
	*/
	typ := g.fixed("Family")
	f.Comment("The kernel families in schema order; Family(i+1) is row i of families.")
	f.Const().DefsFunc(func(grp *jen.Group) {
		grp.Comment("FamilyNone is no family: the enum-named namespace's enum and the")
		grp.Comment("namespaces' names apply.")
		grp.Id(g.fixed("FamilyNone")).Id(typ).Op("=").Lit(0)
		for i, fam := range fams {
			grp.Add(comment(sentence(fam.Doc)))
			grp.Id(g.declare(familyConst(fam), "family "+fam.Name, fam.Pos)).Id(typ).Op("=").Lit(i + 1)
		}
	})
	f.Line()

	/*
		// familyTaskTypeNamespace is the namespace family task types name.
		const familyTaskTypeNamespace = NamespaceTaskType
	*/
	ns := jen.Id(g.fixed("NamespaceNone"))
	if tt := g.s.Descriptors.TaskTypeNamespace(); tt != nil {
		ns = jen.Id(nsConst(tt))
	}
	f.Comment("familyTaskTypeNamespace is the namespace whose ids family task types name")
	f.Comment("(NamespaceNone when the schema has no enum-named namespace).")
	f.Const().Id("familyTaskTypeNamespace").Op("=").Add(ns)
	f.Line()

	/*
		// families is the family table, in schema order.
		var families = [...]familySpec{
			{
				name: "MegaMoe", kernelNames: []string{"MegaMoe"}, ownerLabel: "Expert",
				upstream: "modules/mega_moe/profiling.py@206213f",
				taskTypes: []familyTaskType{
					{value: 105, name: "ShmemPutMemSignal"},
				},
				stages: []FamilyStage{
					{DescID: 0x10001, Name: "Dispatch", Class: StageCompute, TaskType: 105, HasTaskType: true},
				},
			},
		}
	*/
	f.Comment("families is the family table, in schema order.")
	f.Var().Id("families").Op("=").Index(jen.Op("...")).Id("familySpec").ValuesFunc(func(grp *jen.Group) {
		for _, fam := range fams {
			row := []jen.Code{jen.Line().Add(kv("name", jen.Lit(fam.Name)))}
			if len(fam.KernelNames) > 0 {
				var ks []jen.Code
				for _, k := range fam.KernelNames {
					ks = append(ks, jen.Lit(k))
				}
				row = append(row, kv("kernelNames", jen.Index().String().Values(ks...)))
			}
			if fam.OwnerLabel != "" {
				row = append(row, kv("ownerLabel", jen.Lit(fam.OwnerLabel)))
			}
			row = append(row, jen.Line().Add(kv("upstream", jen.Lit(fam.Upstream))))
			if len(fam.TaskTypes) > 0 {
				var tts []jen.Code
				for _, t := range fam.TaskTypes {
					tts = append(tts, jen.Line().Values(kv("value", jen.Lit(int(t.Value))), kv("name", jen.Lit(t.Name))))
				}
				row = append(row, jen.Line().Add(kv("taskTypes", jen.Index().Id("familyTaskType").Values(append(tts, jen.Line())...))))
			}
			if len(fam.Stages) > 0 {
				var sts []jen.Code
				for _, st := range fam.Stages {
					item := []jen.Code{kv("DescID", hex(uint64(st.DescID))), kv("Name", jen.Lit(st.Name)),
						kv("Class", jen.Id(g.fixed(stageClassConst(st.Class))))}
					if st.TaskType != nil {
						item = append(item, kv("TaskType", jen.Lit(int(st.TaskType.Value))), kv("HasTaskType", jen.True()))
					}
					sts = append(sts, jen.Line().Values(item...))
				}
				row = append(row, jen.Line().Add(kv("stages", jen.Index().Id(g.fixed("FamilyStage")).Values(append(sts, jen.Line())...))))
			}
			grp.Line().Values(append(row, jen.Line())...)
		}
		grp.Line()
	})
	f.Line()
}
