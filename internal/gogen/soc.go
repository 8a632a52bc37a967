package gogen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
)

// socNamePrefix is what a normalised SoC name starts with (SPEC.md: a name
// without it gets it prefixed); the schema loader requires every SoC prefix
// to start with it too.
const socNamePrefix = "ascend"

// genSoCs emits the SoC table, NormalizeSoCName and SystemCounterMHz.
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
		// SoC maps a normalised SoC-name prefix to the system-counter frequency.
		type SoC struct {
			Prefix string
			MHz    float64
		}

		// socs is the SoC table in match order.
		var socs = [...]SoC{
			// Atlas 800T A2 class.
			{Prefix: "ascend910b", MHz: 50.0},
		}
	*/
	name := g.fixed("SoC")
	f.Comment(name + " maps a normalised SoC-name prefix to the frequency of the system counter")
	f.Comment("(GetSystemCycle, not the AI Core clock) that cycle records are read from.")
	f.Type().Id(name).Struct(
		jen.Comment("Prefix is matched against the normalised SoC name (see NormalizeSoCName)."),
		jen.Id("Prefix").String(),
		jen.Comment("MHz is the system-counter frequency."),
		jen.Id("MHz").Float64(),
	)
	f.Line()
	f.Comment("socs is the SoC table in match order: the first matching prefix wins.")
	f.Var().Id("socs").Op("=").Index(jen.Op("...")).Id(name).ValuesFunc(func(grp *jen.Group) {
		for _, s := range socs {
			grp.Line().Add(comment(sentence(s.Doc))).Line().Values(kv("Prefix", jen.Lit(s.Prefix)), kv("MHz", jen.Lit(s.MHz)))
		}
		grp.Line()
	})
	f.Line()
	list := g.fixed("SoCs")
	f.Comment(list + " returns the SoC table in match order; the slice is the caller's to keep.")
	f.Func().Id(list).Params().Index().Id(name).Block(
		jen.Return(jen.Append(jen.Index().Id(name).Call(jen.Nil()), jen.Id("socs").Index(jen.Op(":")).Op("..."))),
	)
	f.Line()

	/*
		// NormalizeSoCName lower-cases name, keeps letters, digits and '_', and
		// prefixes "ascend" when the result does not start with it.
		func NormalizeSoCName(name string) string {
			var b strings.Builder
			for _, r := range strings.ToLower(name) {
				if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' {
					b.WriteRune(r)
				}
			}
			n := b.String()
			if !strings.HasPrefix(n, "ascend") {
				n = "ascend" + n
			}
			return n
		}
	*/
	norm := g.fixed("NormalizeSoCName")
	f.Comment(norm + " returns the form of a SoC name the table is matched against:")
	f.Comment(fmt.Sprintf("lower case, only letters, digits and '_' kept, and %q prefixed when", socNamePrefix))
	f.Comment(fmt.Sprintf("missing (\"Ascend910B2\" → %q, \"910_93\" → %q).", "ascend910b2", "ascend910_93"))
	f.Func().Id(norm).Params(jen.Id("name").String()).String().Block(
		jen.Var().Id("b").Qual("strings", "Builder"),
		jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Qual("strings", "ToLower").Call(jen.Id("name"))).Block(
			jen.If(jen.Qual("unicode", "IsLetter").Call(jen.Id("r")).Op("||").Qual("unicode", "IsNumber").Call(jen.Id("r")).Op("||").Id("r").Op("==").LitRune('_')).Block(
				jen.Id("b").Dot("WriteRune").Call(jen.Id("r")),
			),
		),
		jen.Id("n").Op(":=").Id("b").Dot("String").Call(),
		jen.If(jen.Op("!").Qual("strings", "HasPrefix").Call(jen.Id("n"), jen.Lit(socNamePrefix))).Block(
			jen.Id("n").Op("=").Lit(socNamePrefix).Op("+").Id("n"),
		),
		jen.Return(jen.Id("n")),
	)
	f.Line()

	/*
		// UnsupportedSoCError reports a SoC name no table prefix matches.
		type UnsupportedSoCError struct {
			Name     string
			Prefixes []string
		}
	*/
	errName := g.fixed("UnsupportedSoCError")
	f.Comment(errName + " reports a SoC name that no prefix of the table matches.")
	f.Type().Id(errName).Struct(
		jen.Comment("Name is the SoC name as given."),
		jen.Id("Name").String(),
		jen.Comment("Prefixes are the supported prefixes, sorted."),
		jen.Id("Prefixes").Index().String(),
	)
	f.Line()
	f.Comment("Error implements error.")
	f.Func().Params(jen.Id("e").Op("*").Id(errName)).Id("Error").Params().String().Block(
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("abi: unsupported Ascend SoC for MegaKernel profiling: %q; supported SoC prefixes: %s"),
			jen.Id("e").Dot("Name"), jen.Qual("strings", "Join").Call(jen.Id("e").Dot("Prefixes"), jen.Lit(", ")))),
	)
	f.Line()

	/*
		// SystemCounterMHz returns the system-counter frequency of the SoC named soc ...
		func SystemCounterMHz(soc string) (float64, error) {
			name := NormalizeSoCName(soc)
			for _, s := range socs {
				if strings.HasPrefix(name, s.Prefix) {
					return s.MHz, nil
				}
			}
			return 0, &UnsupportedSoCError{Name: soc, Prefixes: []string{"ascend910_93", ...}}
		}
	*/
	prefixes := make([]string, len(socs))
	for i, s := range socs {
		prefixes[i] = s.Prefix
	}
	sort.Strings(prefixes)
	var prefixLits []jen.Code
	for _, p := range prefixes {
		prefixLits = append(prefixLits, jen.Lit(p))
	}
	mhz := g.fixed("SystemCounterMHz")
	f.Comment(mhz + " returns the system-counter frequency in MHz of the SoC named soc:")
	f.Comment("the first table entry whose prefix starts NormalizeSoCName(soc). No match is")
	f.Comment("an *UnsupportedSoCError listing the supported prefixes.")
	f.Func().Id(mhz).Params(jen.Id("soc").String()).Params(jen.Float64(), jen.Error()).Block(
		jen.Id("name").Op(":=").Id(norm).Call(jen.Id("soc")),
		jen.For(jen.List(jen.Id("_"), jen.Id("s")).Op(":=").Range().Id("socs")).Block(
			jen.If(jen.Qual("strings", "HasPrefix").Call(jen.Id("name"), jen.Id("s").Dot("Prefix"))).Block(
				jen.Return(jen.Id("s").Dot("MHz"), jen.Nil()),
			),
		),
		jen.Return(jen.Lit(0), jen.Op("&").Id(errName).Values(kv("Name", jen.Id("soc")), kv("Prefixes", jen.Index().String().Values(prefixLits...)))),
	)
	f.Line()
}
