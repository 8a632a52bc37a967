package gogen

import (
	"github.com/dave/jennifer/jen"
)

// genSoCs emits the SoC table. Normalising and matching a SoC name are
// hand-written (gen/go/abi/soc.go); the schema loader holds every prefix to
// the normalised form (lower-case letters, digits and '_').
func (g *generator) genSoCs(f *jen.File) {
	socs := g.s.SoCs
	if len(socs) == 0 {
		g.errorf("no SoCs")
		return
	}
	/*
		// socs is the SoC table in match order.
		var socs = [...]SoC{
			// Atlas 800T A2 class.
			{Prefix: "ascend910b", MHz: 50.0},
		}
	*/
	f.Comment("socs is the SoC table in match order: the first matching prefix wins.")
	f.Var().Id("socs").Op("=").Index(jen.Op("...")).Id(g.fixed("SoC")).ValuesFunc(func(grp *jen.Group) {
		for _, s := range socs {
			grp.Line().Add(comment(sentence(s.Doc))).Line().Values(kv("Prefix", jen.Lit(s.Prefix)), kv("MHz", jen.Lit(s.MHz)))
		}
		grp.Line()
	})
	f.Line()
}
