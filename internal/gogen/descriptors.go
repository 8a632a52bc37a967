package gogen

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/megakernel/cycleabi/internal/schema"
)

// genDescriptors emits the descriptor-ID namespaces: the Namespace enum, the
// ranges, the named ids and the display-name helpers.
func (g *generator) genDescriptors(f *jen.File) {
	d := g.s.Descriptors
	if len(d.Namespaces) > 255 {
		g.errorf("%d descriptor namespaces do not fit the uint8 Namespace type", len(d.Namespaces))
		return
	}
	g.genNamespaceType(f, d)
	g.genNamespaceConstants(f, d)
	g.genNamespaceMethods(f, d)
	g.genDescLookup(f, d)
}

// nsConst names the Namespace constant of a namespace (NamespaceTaskType).
func nsConst(ns *schema.Namespace) string { return "Namespace" + ns.Name }

// descConst names the constant of a named descriptor id (RuntimeStageWaitDependency).
func descConst(ns *schema.Namespace, n *schema.DescName) string { return ns.Name + exported(n.Name) }

// genNamespaceType emits the Namespace type and its values.
func (g *generator) genNamespaceType(f *jen.File, d *schema.Descriptors) {
	/*
		// Namespace is a descriptor-ID namespace ...
		type Namespace uint8

		const (
			// NamespaceNone is the namespace of a desc_id no range contains.
			NamespaceNone Namespace = 0
			// Stages of the device runtime itself: desc_id 0x10000 to 0x1FFFF.
			NamespaceRuntimeStage Namespace = 1
		)
	*/
	name := g.fixed("Namespace")
	f.Comment(name + " is a descriptor-ID namespace: a range of desc_id values that")
	f.Comment("share a meaning and a display format. The ranges are disjoint.")
	f.Type().Id(name).Uint8()
	f.Line()
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

// genNamespaceMethods emits Namespaces and the Namespace methods.
func (g *generator) genNamespaceMethods(f *jen.File, d *schema.Descriptors) {
	/*
		// Namespaces returns every namespace in schema order (not NamespaceNone).
		func Namespaces() []Namespace {
			return []Namespace{NamespaceRuntimeStage, ...}
		}
	*/
	list := g.fixed("Namespaces")
	f.Comment(list + " returns every namespace in schema order (not NamespaceNone).")
	f.Func().Id(list).Params().Index().Id("Namespace").Block(
		jen.Return(jen.Index().Id("Namespace").ValuesFunc(func(grp *jen.Group) {
			for _, ns := range d.Namespaces {
				grp.Line().Id(nsConst(ns))
			}
			grp.Line()
		})),
	)
	f.Line()

	// method emits a switch over the namespaces returning value(ns), and
	// def for NamespaceNone and values the schema does not name.
	method := func(docText, name string, result *jen.Statement, value func(*schema.Namespace) jen.Code, def jen.Code) {
		f.Add(comment(docText))
		f.Func().Params(jen.Id("n").Id("Namespace")).Id(name).Params().Add(result).Block(
			jen.Switch(jen.Id("n")).BlockFunc(func(grp *jen.Group) {
				for _, ns := range d.Namespaces {
					if v := value(ns); v != nil {
						grp.Case(jen.Id(nsConst(ns))).Block(jen.Return(v))
					}
				}
			}),
			jen.Return(def),
		)
		f.Line()
	}
	/*
		// String returns the namespace's schema name ("TaskType"), "None" for
		// NamespaceNone.
		func (n Namespace) String() string {
			switch n {
			case NamespaceRuntimeStage:
				return "RuntimeStage"
			}
			if n == NamespaceNone {
				return "None"
			}
			return "Namespace(" + strconv.Itoa(int(n)) + ")"
		}
	*/
	f.Comment("String returns the namespace's schema name (\"" + d.Namespaces[0].Name + "\"), \"None\" for")
	f.Comment("NamespaceNone and \"Namespace(9)\" for a value the schema does not name.")
	f.Func().Params(jen.Id("n").Id("Namespace")).Id("String").Params().String().Block(
		jen.Switch(jen.Id("n")).BlockFunc(func(grp *jen.Group) {
			grp.Case(jen.Id("NamespaceNone")).Block(jen.Return(jen.Lit("None")))
			for _, ns := range d.Namespaces {
				grp.Case(jen.Id(nsConst(ns))).Block(jen.Return(jen.Lit(ns.Name)))
			}
		}),
		jen.Return(jen.Lit("Namespace(").Op("+").Qual("strconv", "Itoa").Call(jen.Int().Call(jen.Id("n"))).Op("+").Lit(")")),
	)
	f.Line()
	/*
		// Base returns the first desc_id of the namespace, 0 for NamespaceNone.
		func (n Namespace) Base() uint32 {
			switch n {
			case NamespaceRuntimeStage:
				return RuntimeStageBase
			}
			return 0
		}
	*/
	method("Base returns the first desc_id of the namespace, 0 for NamespaceNone.", "Base", jen.Uint32(),
		func(ns *schema.Namespace) jen.Code { return jen.Id(ns.Name + "Base") }, jen.Lit(0))
	method("Count returns the number of desc_ids in the namespace, 0 for NamespaceNone.", "Count", jen.Uint32(),
		func(ns *schema.Namespace) jen.Code { return jen.Id(ns.Name + "Count") }, jen.Lit(0))
	args := []string{}
	for _, ns := range d.Namespaces {
		if ns.Arg != "" {
			args = append(args, fmt.Sprintf("%q for %s", ns.Arg, ns.Name))
		}
	}
	argDoc := "Arg returns the name of the trace-event argument that carries an id's index within the namespace"
	if len(args) > 0 {
		argDoc += " (" + strings.Join(args, ", ") + ")"
	}
	method(argDoc+"; \"\" when the namespace has none.", "Arg", jen.String(),
		func(ns *schema.Namespace) jen.Code {
			if ns.Arg == "" {
				return nil // the default
			}
			return jen.Lit(ns.Arg)
		}, jen.Lit(""))
}

// genDescLookup emits LookupDesc, DescSchemaName, DescName,
// TaskStagePrefixed, FormatFallback and FormatDisplay.
func (g *generator) genDescLookup(f *jen.File, d *schema.Descriptors) {
	id := jen.Id("id")
	/*
		// LookupDesc returns the namespace of desc_id id and id's index within
		// it; NamespaceNone and id itself when no namespace contains id.
		func LookupDesc(id uint32) (Namespace, uint32) {
			switch {
			case id >= RuntimeStageBase && id-RuntimeStageBase < RuntimeStageCount:
				return NamespaceRuntimeStage, id - RuntimeStageBase
			}
			return NamespaceNone, id
		}
	*/
	lookup := g.fixed("LookupDesc")
	f.Comment(lookup + " returns the namespace of desc_id id and id's index within it;")
	f.Comment("NamespaceNone and id itself when no namespace contains id.")
	f.Func().Id(lookup).Params(jen.Id("id").Uint32()).Params(jen.Id("Namespace"), jen.Uint32()).Block(
		jen.Switch().BlockFunc(func(grp *jen.Group) {
			for _, ns := range d.Namespaces {
				grp.Case(inRange(ns)).Block(jen.Return(jen.Id(nsConst(ns)), index(ns)))
			}
		}),
		jen.Return(jen.Id("NamespaceNone"), id.Clone()),
	)
	f.Line()

	/*
		// DescSchemaName returns the display name of desc_id id when the schema
		// names it ("WaitDependency", "TaskType_MatMul"), and whether it does.
		func DescSchemaName(id uint32) (string, bool) {
			switch id {
			case RuntimeStageWaitDependency:
				return "WaitDependency", true
			case TaskTypeBase + uint32(TaskTypeMatMul):
				return "TaskType_MatMul", true
			}
			return "", false
		}
	*/
	schemaName := g.fixed("DescSchemaName")
	var examples []string
	cases := jen.Switch(id.Clone()).BlockFunc(func(grp *jen.Group) {
		for _, ns := range d.Namespaces {
			first := len(examples)
			for _, n := range ns.Names {
				text := expandStatic(ns.Display, n.Name, n.Index, ns.Base+n.Index)
				if len(examples) == first {
					examples = append(examples, fmt.Sprintf("%q", text))
				}
				grp.Case(jen.Id(descConst(ns, n))).Block(jen.Return(jen.Lit(text), jen.True()))
			}
			if ns.Enum != nil {
				for _, v := range ns.Enum.Values {
					text := expandStatic(ns.Display, v.Name, v.Value, ns.Base+v.Value)
					if len(examples) == first {
						examples = append(examples, fmt.Sprintf("%q", text))
					}
					grp.Case(jen.Id(ns.Name + "Base").Op("+").Uint32().Call(jen.Id(enumValue(ns.Enum, v)))).Block(jen.Return(jen.Lit(text), jen.True()))
				}
			}
		}
	})
	f.Add(comment(fmt.Sprintf("%s returns the display name of desc_id id when the schema names it (%s), and whether it does. Names that come from elsewhere, such as graph-stage names from a kernel's names file, are the caller's to look up first.",
		schemaName, strings.Join(firstOf(examples, 2), ", "))))
	f.Func().Id(schemaName).Params(jen.Id("id").Uint32()).Params(jen.String(), jen.Bool()).Block(
		cases,
		jen.Return(jen.Lit(""), jen.False()),
	)
	f.Line()

	/*
		// DescName returns the display name of desc_id id from the schema alone:
		// the schema's name if it has one, else the namespace's fallback, else
		// the unknown format.
		func DescName(id uint32) string {
			if name, ok := DescSchemaName(id); ok {
				return name
			}
			ns, _ := LookupDesc(id)
			return FormatFallback(ns, id)
		}
	*/
	descName := g.fixed("DescName")
	f.Comment(descName + " returns the display name of desc_id id from the schema alone: the")
	f.Comment("schema's name for it if there is one, else its namespace's fallback")
	f.Comment(fmt.Sprintf("format, else the format for ids outside every namespace (%q).", d.Unknown))
	f.Func().Id(descName).Params(jen.Id("id").Uint32()).String().Block(
		jen.If(jen.List(jen.Id("name"), jen.Id("ok")).Op(":=").Id(schemaName).Call(id.Clone()), jen.Id("ok")).Block(jen.Return(jen.Id("name"))),
		jen.List(jen.Id("ns"), jen.Id("_")).Op(":=").Id(lookup).Call(id.Clone()),
		jen.Return(jen.Id("FormatFallback").Call(jen.Id("ns"), id.Clone())),
	)
	f.Line()

	/*
		// TaskStagePrefixed reports whether the display name of desc_id id is
		// prefixed with the task's stage name ("<TaskStage>_WaitDependency").
		func TaskStagePrefixed(id uint32) bool {
			switch id {
			case RuntimeStageWaitDependency, RuntimeStageTriggerEvent:
				return true
			}
			return false
		}
	*/
	var prefixed []jen.Code
	example := "WaitDependency"
	for _, ns := range d.Namespaces {
		for _, n := range ns.Names {
			if n.TaskStagePrefix {
				if len(prefixed) == 0 {
					example = n.Name
				}
				prefixed = append(prefixed, jen.Id(descConst(ns, n)))
			}
		}
	}
	tsp := g.fixed("TaskStagePrefixed")
	f.Comment(tsp + " reports whether the display name of desc_id id is prefixed")
	f.Comment(fmt.Sprintf("with the task's stage name when the task has one (%q).", "<TaskStage>_"+example))
	f.Func().Id(tsp).Params(jen.Id("id").Uint32()).Bool().BlockFunc(func(grp *jen.Group) {
		if len(prefixed) > 0 {
			grp.Switch(id.Clone()).Block(jen.Case(prefixed...).Block(jen.Return(jen.True())))
		}
		grp.Return(jen.False())
	})
	f.Line()

	/*
		// FormatFallback returns the display name of an id of namespace ns the
		// schema does not name ...
		func FormatFallback(ns Namespace, id uint32) string {
			// id-Base wraps past Count when id < Base: one comparison checks both ends.
			if id-ns.Base() >= ns.Count() {
				return "DescId_" + strconv.FormatUint(uint64(id), 10)
			}
			switch ns {
			case NamespaceTaskType:
				return "TaskType_" + strconv.FormatUint(uint64(id-TaskTypeBase), 10)
			}
			return "DescId_" + ...
		}
	*/
	unknown := expandCode(d.Unknown, nil, nil, id.Clone())
	var fbExamples []string
	for _, ns := range d.Namespaces {
		if strings.Contains(ns.Fallback, "{index}") {
			fbExamples = append(fbExamples, fmt.Sprintf("%q", expandStatic(ns.Fallback, "", 5, ns.Base+5)))
		}
	}
	fb := g.fixed("FormatFallback")
	f.Add(comment(fmt.Sprintf("%s returns the display name the namespace ns gives an id it does not name (%s). For NamespaceNone, or an id outside ns, it is the unknown-id format (%q).",
		fb, strings.Join(firstOf(fbExamples, 2), ", "), d.Unknown)))
	f.Func().Id(fb).Params(jen.Id("ns").Id("Namespace"), jen.Id("id").Uint32()).String().Block(
		jen.Comment("id-Base wraps past Count when id < Base: one comparison checks both ends."),
		jen.If(id.Clone().Op("-").Id("ns").Dot("Base").Call().Op(">=").Id("ns").Dot("Count").Call()).Block(jen.Return(unknown)),
		jen.Switch(jen.Id("ns")).BlockFunc(func(grp *jen.Group) {
			for _, ns := range d.Namespaces {
				grp.Case(jen.Id(nsConst(ns))).Block(jen.Return(expandCode(ns.Fallback, nil, index(ns), id.Clone())))
			}
		}),
		jen.Return(expandCode(d.Unknown, nil, nil, id.Clone())),
	)
	f.Line()

	/*
		// FormatDisplay returns the display name of id in namespace ns given
		// its name from outside the schema ...
		func FormatDisplay(ns Namespace, id uint32, name string) string {
			if id-ns.Base() >= ns.Count() {
				return "DescId_" + strconv.FormatUint(uint64(id), 10)
			}
			switch ns {
			case NamespaceTaskType:
				return "TaskType_" + name
			}
			return ...
		}
	*/
	fd := g.fixed("FormatDisplay")
	f.Add(comment(fmt.Sprintf("%s returns the display name of id in namespace ns for a name that comes from outside the schema, such as a graph-stage name from a kernel's names file: the namespace's display format with {name} = name. For NamespaceNone, or an id outside ns, it is the unknown-id format (%q).",
		fd, d.Unknown)))
	f.Func().Id(fd).Params(jen.Id("ns").Id("Namespace"), jen.Id("id").Uint32(), jen.Id("name").String()).String().Block(
		jen.If(id.Clone().Op("-").Id("ns").Dot("Base").Call().Op(">=").Id("ns").Dot("Count").Call()).Block(jen.Return(expandCode(d.Unknown, nil, nil, id.Clone()))),
		jen.Switch(jen.Id("ns")).BlockFunc(func(grp *jen.Group) {
			for _, ns := range d.Namespaces {
				grp.Case(jen.Id(nsConst(ns))).Block(jen.Return(expandCode(ns.Display, jen.Id("name"), index(ns), id.Clone())))
			}
		}),
		jen.Return(expandCode(d.Unknown, nil, nil, id.Clone())),
	)
	f.Line()
}

// inRange is the condition that id lies in ns.
func inRange(ns *schema.Namespace) *jen.Statement {
	base, count := jen.Id(ns.Name+"Base"), jen.Id(ns.Name+"Count")
	if ns.Base == 0 {
		return jen.Id("id").Op("<").Add(count)
	}
	return jen.Id("id").Op(">=").Add(base).Op("&&").Id("id").Op("-").Add(base.Clone()).Op("<").Add(count)
}

// index is the expression of id's index within ns.
func index(ns *schema.Namespace) *jen.Statement {
	if ns.Base == 0 {
		return jen.Id("id")
	}
	return jen.Id("id").Op("-").Id(ns.Name + "Base")
}

var placeholderRE = regexp.MustCompile(`\{(name|index|desc_id)\}`)

// expandStatic fills a display template at generation time.
func expandStatic(tmpl, name string, index, id uint32) string {
	return placeholderRE.ReplaceAllStringFunc(tmpl, func(ph string) string {
		switch ph {
		case "{name}":
			return name
		case "{index}":
			return fmt.Sprint(index)
		}
		return fmt.Sprint(id)
	})
}

// expandCode renders a display template as a string expression built at
// run time: literal parts and the given expressions, decimal for numbers.
// Placeholders without an expression (nil) render as empty text; the schema
// loader allows only the placeholders each template can fill.
func expandCode(tmpl string, name, index, id *jen.Statement) *jen.Statement {
	var parts []*jen.Statement
	last := 0
	for _, m := range placeholderRE.FindAllStringIndex(tmpl, -1) {
		if m[0] > last {
			parts = append(parts, jen.Lit(tmpl[last:m[0]]))
		}
		switch tmpl[m[0]:m[1]] {
		case "{name}":
			if name != nil {
				parts = append(parts, name.Clone())
			}
		case "{index}":
			if index != nil {
				parts = append(parts, decimal(index))
			}
		default:
			if id != nil {
				parts = append(parts, decimal(id))
			}
		}
		last = m[1]
	}
	if last < len(tmpl) || len(parts) == 0 {
		parts = append(parts, jen.Lit(tmpl[last:]))
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out = out.Clone().Op("+").Add(p)
	}
	return out
}

// decimal renders strconv.FormatUint(uint64(x), 10).
func decimal(x *jen.Statement) *jen.Statement {
	return jen.Qual("strconv", "FormatUint").Call(jen.Uint64().Call(x.Clone()), jen.Lit(10))
}

// firstOf returns at most n leading items.
func firstOf(items []string, n int) []string {
	if len(items) > n {
		return items[:n]
	}
	return items
}
