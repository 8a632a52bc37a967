package gogen

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// socNamePrefix is what a normalised SoC name starts with (gen/doc/ABI.md: a name
// without it gets it prefixed); the schema loader requires every SoC prefix
// to start with it too.
const socNamePrefix = "ascend"

// genSoCs emits the SoC table. Normalising and matching a SoC name are
// hand-written (gen/go/abi/soc.go).
func (g *generator) genSoCs(f *jen.File) {
	socs := g.s.SoCs
	if len(socs) == 0 {
		g.errorf("no SoCs")
		return
	}
	for _, s := range socs {
		if !strings.HasPrefix(s.Prefix, socNamePrefix) {
			g.errorf("SoC prefix %q does not start with %q and could never match a normalised name", s.Prefix, socNamePrefix)
		}
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
